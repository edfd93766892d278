import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '../../shared/domain/audit/cloud-event';
import { DEFAULT_EVENT_TYPE_PREFIX } from '../../shared/kernel/config';
import { publishMetrics } from '../../shared/kernel/metrics';
import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, putItem, updateItem } from '../../shared/adapters/store/table';
import { getUser } from '../../shared/domain/users/user.repository';
import type { OrgScope } from '../../shared/domain/users/org-scope';
import { deliveryIdOf, enqueueChanges, newDelivery, type ChangeForSubscribers } from '../../shared/domain/webhooks/delivery-schedule';
import { orgBacklog } from '../../shared/domain/webhooks/webhook-backlog.repository';
import { BACKLOG_RETRY_AFTER_SECONDS, MAX_PENDING_PER_WEBHOOK, SEND_WINDOW_SECONDS, SENDS_PER_WINDOW } from '../../shared/domain/webhooks/webhook-limits';
import { getDelivery } from '../../shared/domain/webhooks/webhook.repository';
import type { WebhookBody } from '../../shared/domain/webhooks/webhook.schemas';
import { createWebhook, deleteWebhook, listDeliveryAttempts, readWebhook } from '../../shared/app/webhooks/webhook.service';
import { captureLogs } from '../support/capture-logs';
import { expectError } from '../support/error-body';
import { userArea } from '../support/stack';
import { createViaApi, freshOrganization, type TestOrg } from '../support/user-helpers';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Webhook backlogs against each other, through the real path (changes made over HTTP, the stream,
 * the `publisher` function's enqueueing and the sweep sending to receivers on 127.0.0.1): one
 * organization's backlog never holds up another's deliveries.
 */

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function adminScope(org: TestOrg): Promise<OrgScope> {
  return { orgUuid: org.orgUuid, caller: (await getUser(org.orgUuid, org.admin.uuid))!, isAdmin: true };
}

const body = (url: string, overrides: Partial<WebhookBody> = {}): WebhookBody => ({ url, eventTypes: ['user.updated'], enabled: true, excludeActors: [], ...overrides });

async function rename(org: TestOrg, user: { uuid: string }, name: string): Promise<void> {
  const current = await org.admin.api.get(org.url(`/${user.uuid}`));
  const response = await org.admin.api.put(org.url(`/${user.uuid}`), { ...current.body, name });
  expect(response.status).toBe(200);
}

/** A change event of a user of `orgUuid`, as the publisher function hands it on: each a resource (a lane) of its own. */
function userChange(orgUuid: string): ChangeForSubscribers {
  const id = randomUUID();
  const uuid = randomUUID();
  const time = new Date().toISOString();
  const event: CloudEvent = {
    specversion: '1.0',
    id,
    source: `/org/${orgUuid}`,
    type: `${DEFAULT_EVENT_TYPE_PREFIX}.user.updated`,
    subject: `users/${uuid}`,
    time,
    datacontenttype: 'application/json',
    sequence: `${time}#${id}`,
    data: { resource: { type: 'USER', uuid }, actor: { uuid: null, email: null }, requestId: null },
  };
  return { orgUuid, event, shortType: 'user.updated' };
}

test("an organization holding hundreds of pending deliveries to a slow receiver does not hold up another organization's delivery", async () => {
  const pending = 700;
  const slow = await receiver(() => 204, { delayMs: 8_000 });
  const prompt = await receiver();
  const [busy, quiet] = await Promise.all([freshOrganization(), freshOrganization()]);
  const busyScope = await adminScope(busy);
  const { webhook: busyHook } = await createWebhook(busyScope, body(slow.url));
  await createWebhook(await adminScope(quiet), body(prompt.url));
  const quietUser = await createViaApi(quiet);

  // Scheduled as the publisher function schedules a batch: all due before the other organization's
  // delivery, each answered after 8 s.
  expect(await enqueueChanges(Array.from({ length: pending }, () => userChange(busy.orgUuid)))).toBe(pending);
  await rename(quiet, quietUser, 'Not held up');
  await eventually(() => prompt.received.length >= 1, "the other organization's delivery", 40_000);

  // When it arrived, more than 500 had not been sent yet: a sweep reading the first 500 due
  // deliveries of all organizations together could not have reached it.
  const sentBefore = new Set(slow.received.filter((entry) => entry.at <= prompt.received[0]!.at).map((entry) => entry.headers['webhook-id']));
  expect(sentBefore.size).toBeLessThan(pending - 500);

  // The busy organization's backlog is given up by the sweep rather than left to slow down the file's other tests.
  await deleteWebhook(busyScope, busyHook.id);
  await slow.close();
}, 90_000);

test("a delivery left in the earlier layout's one shared due partition is moved to its subscription's and sent", async () => {
  const org = await freshOrganization();
  const hook = await receiver();
  const { webhook } = await createWebhook(await adminScope(org), body(hook.url));
  const { event } = userChange(org.orgUuid);
  const delivery = newDelivery(webhook, event, 'event', deliveryIdOf(webhook.id, event.id));
  // As the earlier layout wrote it: due in `WEBHOOKS_DUE`, by time then organization, counted nowhere.
  await putItem({
    ...keys.webhookDelivery(org.orgUuid, webhook.id, delivery.id),
    GSI1PK: keys.legacyWebhooksDue,
    GSI1SK: `${delivery.dueAt}#${org.orgUuid}#${webhook.id}#${delivery.id}`,
    type: 'WEBHOOK_DELIVERY',
    ...delivery,
  });
  await putItem({ ...keys.webhookLaneEntry(org.orgUuid, webhook.id, delivery.laneId, delivery.sequence, delivery.id), type: 'WEBHOOK_LANE_ENTRY', deliveryId: delivery.id });

  await eventually(() => hook.received.length >= 1, 'the delivery');
  expect(hook.received[0]!.headers['webhook-id']).toBe(event.id);
  // Counted in when moved, out when delivered: nothing is left in the registry for it.
  await eventually(async () => (await orgBacklog(org.orgUuid)).length === 0, 'its backlog entry removed');
  expect(await getDelivery(org.orgUuid, webhook.id, delivery.id)).toMatchObject({ status: 'delivered' });
});

describe('caps and rates: a test or redelivery beyond them answers 429 with Retry-After and schedules nothing', () => {
  let org: TestOrg;
  let scope: OrgScope;
  beforeAll(async () => {
    org = await freshOrganization();
    scope = await adminScope(org);
  });
  const hookUrl = (webhookId: string, path: string) => userArea(org.orgUuid, `/webhooks/${webhookId}${path}`);

  test(`at most ${SENDS_PER_WINDOW} tests and redeliveries of a subscription every ${SEND_WINDOW_SECONDS} s`, async () => {
    const hook = await receiver();
    const { webhook } = await createWebhook(scope, body(hook.url, { eventTypes: ['agent.updated'] }));
    // Twice the rate and one more, at once: whatever window boundary falls among them, one window is over its rate.
    const answers = await Promise.all(Array.from({ length: 2 * SENDS_PER_WINDOW + 1 }, () => org.admin.api.post(hookUrl(webhook.id, '/test'), undefined)));

    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer.status !== 429).map((answer) => answer.status)).toEqual(Array(answers.length - refused.length).fill(202));
    const error = expectError(refused[0]!, 429, 'RATE_LIMITED');
    expect(error.message).toMatch(/retry after the number of seconds in Retry-After/);
    const retryAfter = Number(refused[0]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(SEND_WINDOW_SECONDS);

    // Only the accepted tests were scheduled: each reaches the receiver, the refused ones never do.
    const accepted = answers.length - refused.length;
    await eventually(() => hook.events('webhook.ping').length >= accepted, 'the accepted pings');
    await eventually(async () => (await listDeliveryAttempts(scope, webhook.id, 100)).length >= accepted, 'their attempts listed');
    expect(await listDeliveryAttempts(scope, webhook.id, 100)).toHaveLength(accepted);
  });

  test("a subscription at its cap refuses tests and redeliveries, drops the change events beyond it (counted), and the organization's other subscriptions go on", async () => {
    const full = await receiver();
    const other = await receiver();
    const { webhook } = await createWebhook(scope, body(full.url));
    await createWebhook(scope, body(other.url));
    const ping = await org.admin.api.post<{ deliveryId: string }>(hookUrl(webhook.id, '/test'), undefined);
    expect(ping.status).toBe(202);
    // Delivered and counted out: the subscription has nothing pending.
    await eventually(async () => (await orgBacklog(org.orgUuid)).every((entry) => entry.webhookId !== webhook.id), 'the ping delivered');
    expect(full.received).toHaveLength(1);
    // As if its receiver had fallen that far behind.
    const backlog = keys.webhookBacklog(org.orgUuid, webhook.id);
    await updateItem({ Key: backlog, UpdateExpression: 'SET pending = :full, orgUuid = :org, webhookId = :id, touchedAt = :now', ExpressionAttributeValues: { ':full': MAX_PENDING_PER_WEBHOOK, ':org': org.orgUuid, ':id': webhook.id, ':now': new Date().toISOString() } });
    try {
      for (const path of ['/test', `/deliveries/${ping.body.deliveryId}/redeliver`]) {
        const refused = await org.admin.api.post(hookUrl(webhook.id, path), undefined);
        expect(expectError(refused, 429, 'WEBHOOK_BACKLOG_FULL').message).toMatch(/^The subscription has 10,000 deliveries pending, the most it may have: .*Retry-After$/);
        expect(refused.headers.get('retry-after')).toBe(String(BACKLOG_RETRY_AFTER_SECONDS));
      }

      const user = await createViaApi(org);
      const current = await org.admin.api.get(org.url(`/${user.uuid}`));
      expect((await org.admin.api.put(org.url(`/${user.uuid}`), { ...current.body, name: 'Past the cap' })).status).toBe(200);
      await eventually(() => other.events('user.updated').length >= 1, "the other subscription's delivery");
      await eventually(async () => (await readWebhook(scope, webhook.id)).droppedEvents === 1, 'the dropped event counted');
      const read = await org.admin.api.get<{ droppedEvents: number; lastDroppedAt: string | null }>(userArea(org.orgUuid, `/webhooks/${webhook.id}`));
      expect(read.body).toMatchObject({ droppedEvents: 1, lastDroppedAt: expect.any(String) });
      expect(full.received).toHaveLength(1);

      // What the publisher function counts: one WebhookEventsDropped per event it could not schedule.
      let enqueued = -1;
      const lines = await captureLogs(async () => {
        enqueued = await enqueueChanges([userChange(org.orgUuid)]);
        publishMetrics('publisher');
      });
      expect(enqueued).toBe(1);
      const emf = lines.flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : [])).find((record) => '_aws' in record);
      expect(emf).toMatchObject({ WebhookEventsDropped: 1, service: 'publisher' });
    } finally {
      await deleteItem({ Key: backlog });
    }
  });
});

