/**
 * The bounds on what a subscription and an organization may have waiting
 * (docs/api/events.md#backlogs-caps-and-rates): pending deliveries per subscription and per
 * organization, and the rate of tests and redeliveries.
 */

export { MAX_URL_LENGTH } from '../../kernel/url-limits';

/** A bulk import's largest file (10,000 rows) fits one subscription's backlog. */
export const MAX_PENDING_PER_WEBHOOK = 10_000;
/** Ten subscriptions' full backlogs. */
export const MAX_PENDING_PER_ORG = 100_000;
/** Tests and redeliveries of one subscription: at most this many in each window of `SEND_WINDOW_SECONDS`. */
export const SENDS_PER_WINDOW = 20;
export const SEND_WINDOW_SECONDS = 10;
/** A full backlog drains over minutes: a sweep's period is the least worth waiting before asking again. */
export const BACKLOG_RETRY_AFTER_SECONDS = 60;

export interface BacklogCaps {
  perWebhook: number;
  perOrg: number;
}

export const backlogCaps: BacklogCaps = { perWebhook: MAX_PENDING_PER_WEBHOOK, perOrg: MAX_PENDING_PER_ORG };

/** Which cap a subscription's next delivery would pass. */
export type CapReached = 'webhook' | 'organization';

/** A subscription's count of pending deliveries, as its backlog entry keeps it. */
export interface PendingCount {
  webhookId: string;
  pending: number;
}

/**
 * The deliveries one organization may still take, counted from its subscriptions' backlog entries:
 * each delivery admitted counts against both caps, each beyond them is counted as dropped.
 */
export class BacklogPlan {
  private readonly pending = new Map<string, number>();
  private total = 0;
  readonly admitted = new Map<string, number>();
  readonly dropped = new Map<string, number>();

  constructor(
    counts: readonly PendingCount[],
    private readonly caps: BacklogCaps = backlogCaps,
  ) {
    for (const { webhookId, pending } of counts) {
      // A count below zero would only be a bookkeeping slip: it never makes room beyond the cap.
      const counted = Math.max(0, pending);
      this.pending.set(webhookId, counted);
      this.total += counted;
    }
  }

  /** The cap the subscription's next delivery would pass, if any. */
  capReached(webhookId: string): CapReached | undefined {
    if ((this.pending.get(webhookId) ?? 0) >= this.caps.perWebhook) return 'webhook';
    if (this.total >= this.caps.perOrg) return 'organization';
    return undefined;
  }

  /** Counts one more delivery for the subscription: true when it fits, false (and counted as dropped) when a cap is reached. */
  admit(webhookId: string): boolean {
    const tally = this.capReached(webhookId) ? this.dropped : this.admitted;
    tally.set(webhookId, (tally.get(webhookId) ?? 0) + 1);
    if (tally === this.dropped) return false;
    this.pending.set(webhookId, (this.pending.get(webhookId) ?? 0) + 1);
    this.total++;
    return true;
  }
}

/** The window a send falls in, and how many seconds are left of it. */
export function sendWindow(nowMs: number, windowSeconds = SEND_WINDOW_SECONDS): { window: number; secondsLeft: number } {
  const length = windowSeconds * 1000;
  const window = Math.floor(nowMs / length);
  return { window, secondsLeft: Math.max(1, Math.ceil(((window + 1) * length - nowMs) / 1000)) };
}
