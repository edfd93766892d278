/**
 * The order in which a sweep looks at the subscriptions with pending deliveries: organization by
 * organization, so that each gets its look in every cycle whatever the others hold
 * (docs/api/events.md#backlogs-caps-and-rates). Pure: the sweep feeds it the backlog registry and
 * what it found, and it answers whom to look at next.
 */

/** A subscription with pending deliveries, as the backlog registry lists it. */
export interface BacklogRef {
  orgUuid: string;
  webhookId: string;
  /** Changes whenever deliveries are counted in: they may be due now. */
  touchedAt: string;
}

/** One organization's turn in a cycle: its subscriptions to look at, in this cycle's order. */
export interface OrgTurn<T extends BacklogRef> {
  orgUuid: string;
  webhooks: T[];
}

const keyOf = (ref: Pick<BacklogRef, 'orgUuid' | 'webhookId'>) => `${ref.orgUuid}/${ref.webhookId}`;

export class SweepRotation {
  /** Subscriptions found with nothing due, left out until then (epoch ms). */
  private readonly quietUntil = new Map<string, number>();
  private readonly touched = new Map<string, string>();
  /** The organization that starts the next cycle. */
  private startAt: string | undefined;
  private starvedAt: string | undefined;
  private cycles = 0;

  /**
   * The turns of one cycle: every organization with a subscription to look at, each once, starting
   * where the last cycle ran out of room (or one further than its first, so that no organization is
   * always first); within an organization, its subscriptions starting one further each cycle.
   * Subscriptions that are quiet are left out, unless deliveries were counted in since.
   */
  cycle<T extends BacklogRef>(entries: readonly T[], now: number): OrgTurn<T>[] {
    const byOrg = new Map<string, T[]>();
    for (const entry of entries) {
      const key = keyOf(entry);
      if (this.touched.get(key) !== entry.touchedAt) {
        this.touched.set(key, entry.touchedAt);
        this.quietUntil.delete(key);
      }
      if ((this.quietUntil.get(key) ?? 0) > now) continue;
      byOrg.set(entry.orgUuid, [...(byOrg.get(entry.orgUuid) ?? []), entry]);
    }
    this.forgetAllBut(new Set(entries.map(keyOf)));
    const orgs = [...byOrg.keys()].sort();
    const start = this.startIndex(orgs);
    this.starvedAt = undefined;
    this.startAt = undefined;
    const turn = this.cycles++;
    const ordered = [...orgs.slice(start), ...orgs.slice(0, start)];
    if (ordered.length > 1) this.startAt = ordered[1];
    return ordered.map((orgUuid) => {
      const webhooks = byOrg.get(orgUuid)!.sort((a, b) => a.webhookId.localeCompare(b.webhookId));
      const first = turn % webhooks.length;
      return { orgUuid, webhooks: [...webhooks.slice(first), ...webhooks.slice(0, first)] };
    });
  }

  /** An organization got no room this cycle (every attempt slot was taken): the next cycle starts with it. */
  starved(orgUuid: string): void {
    if (this.starvedAt === undefined) {
      this.starvedAt = orgUuid;
      this.startAt = orgUuid;
    }
  }

  /** A subscription had nothing due: not looked at again before `until`, unless deliveries are counted in. */
  quiet(ref: Pick<BacklogRef, 'orgUuid' | 'webhookId'>, until: number): void {
    this.quietUntil.set(keyOf(ref), until);
  }

  /** One of the subscription's deliveries is due at `at`: a quiet subscription is looked at again by then. */
  wake(ref: Pick<BacklogRef, 'orgUuid' | 'webhookId'>, at: number): void {
    const key = keyOf(ref);
    const until = this.quietUntil.get(key);
    if (until !== undefined && at < until) this.quietUntil.set(key, at);
  }

  private startIndex(orgs: readonly string[]): number {
    if (this.startAt === undefined) return 0;
    const index = orgs.findIndex((orgUuid) => orgUuid >= this.startAt!);
    return index < 0 ? 0 : index;
  }

  private forgetAllBut(keys: Set<string>): void {
    for (const key of [...this.touched.keys()]) {
      if (!keys.has(key)) {
        this.touched.delete(key);
        this.quietUntil.delete(key);
      }
    }
  }
}
