import { SweepRotation, type BacklogRef } from '../../shared/domain/webhooks/sweep-rotation';
import { BacklogPlan, sendWindow } from '../../shared/domain/webhooks/webhook-limits';

/** The sweep's turns across organizations and the caps on what each may have waiting: pure logic, no table. */

const entry = (orgUuid: string, webhookId: string, touchedAt = '2026-01-01T00:00:00.000Z'): BacklogRef => ({ orgUuid, webhookId, touchedAt });
const orgsOf = (turns: { orgUuid: string }[]) => turns.map((turn) => turn.orgUuid);

describe('SweepRotation', () => {
  test('every organization gets one turn per cycle, however many subscriptions another has', () => {
    const rotation = new SweepRotation();
    const busy = Array.from({ length: 20 }, (_, i) => entry('org-a', `hook-${String(i).padStart(2, '0')}`));
    const turns = rotation.cycle([...busy, entry('org-b', 'hook-x'), entry('org-c', 'hook-y')], 0);
    expect(orgsOf(turns)).toEqual(['org-a', 'org-b', 'org-c']);
    expect(turns[0]!.webhooks).toHaveLength(20);
  });

  test('the next cycle starts one organization further, so no organization is always first', () => {
    const rotation = new SweepRotation();
    const entries = [entry('org-a', 'h'), entry('org-b', 'h'), entry('org-c', 'h')];
    expect(orgsOf(rotation.cycle(entries, 0))).toEqual(['org-a', 'org-b', 'org-c']);
    expect(orgsOf(rotation.cycle(entries, 0))).toEqual(['org-b', 'org-c', 'org-a']);
    expect(orgsOf(rotation.cycle(entries, 0))).toEqual(['org-c', 'org-a', 'org-b']);
  });

  test('an organization that found no room starts the next cycle', () => {
    const rotation = new SweepRotation();
    const entries = ['org-a', 'org-b', 'org-c', 'org-d'].map((org) => entry(org, 'h'));
    rotation.cycle(entries, 0);
    rotation.starved('org-c');
    rotation.starved('org-d');
    expect(orgsOf(rotation.cycle(entries, 0))).toEqual(['org-c', 'org-d', 'org-a', 'org-b']);
  });

  test("within an organization, its subscriptions take turns at going first", () => {
    const rotation = new SweepRotation();
    const entries = [entry('org-a', 'h1'), entry('org-a', 'h2'), entry('org-a', 'h3')];
    const firsts = [0, 1, 2, 3].map(() => rotation.cycle(entries, 0)[0]!.webhooks[0]!.webhookId);
    expect(firsts).toEqual(['h1', 'h2', 'h3', 'h1']);
  });

  test('a quiet subscription is left out until its time, or until deliveries are counted in for it', () => {
    const rotation = new SweepRotation();
    const quiet = entry('org-a', 'h1');
    rotation.cycle([quiet, entry('org-b', 'h')], 0);
    rotation.quiet(quiet, 1_000);
    expect(orgsOf(rotation.cycle([quiet, entry('org-b', 'h')], 500))).toEqual(['org-b']);
    expect(orgsOf(rotation.cycle([quiet, entry('org-b', 'h')], 1_000))).toContain('org-a');

    rotation.quiet(quiet, 5_000);
    const touched = entry('org-a', 'h1', '2026-01-01T00:00:01.000Z');
    expect(orgsOf(rotation.cycle([touched, entry('org-b', 'h')], 1_500))).toContain('org-a');
  });

  test('a delivery rescheduled sooner wakes a quiet subscription by then', () => {
    const rotation = new SweepRotation();
    const quiet = entry('org-a', 'h1');
    rotation.cycle([quiet], 0);
    rotation.quiet(quiet, 5_000);
    rotation.wake(quiet, 2_000);
    expect(rotation.cycle([quiet], 1_999)).toEqual([]);
    expect(orgsOf(rotation.cycle([quiet], 2_000))).toEqual(['org-a']);
  });
});

describe('BacklogPlan', () => {
  const caps = { perWebhook: 3, perOrg: 5 };

  test("a subscription at its cap drops what is beyond it; the organization's other subscriptions go on", () => {
    const plan = new BacklogPlan([{ webhookId: 'full', pending: 2 }], caps);
    expect([plan.admit('full'), plan.admit('full'), plan.admit('other')]).toEqual([true, false, true]);
    expect(plan.admitted).toEqual(new Map([['full', 1], ['other', 1]]));
    expect(plan.dropped).toEqual(new Map([['full', 1]]));
    expect(plan.capReached('full')).toBe('webhook');
  });

  test("the organization's cap counts every subscription's pending deliveries", () => {
    const plan = new BacklogPlan([{ webhookId: 'a', pending: 2 }, { webhookId: 'b', pending: 2 }], caps);
    expect(plan.capReached('c')).toBeUndefined();
    expect(plan.admit('c')).toBe(true);
    expect(plan.capReached('c')).toBe('organization');
    expect(plan.admit('c')).toBe(false);
  });

  test('a count below zero makes no room beyond the cap', () => {
    const plan = new BacklogPlan([{ webhookId: 'a', pending: -4 }, { webhookId: 'b', pending: 5 }], caps);
    expect(plan.capReached('a')).toBe('organization');
  });
});

test('sendWindow: the window a moment falls in, and the whole seconds left of it', () => {
  expect(sendWindow(20_000, 10)).toEqual({ window: 2, secondsLeft: 10 });
  expect(sendWindow(29_001, 10)).toEqual({ window: 2, secondsLeft: 1 });
  expect(sendWindow(25_500, 10)).toEqual({ window: 2, secondsLeft: 5 });
});
