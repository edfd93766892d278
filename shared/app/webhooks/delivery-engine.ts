import { auditWrites } from '../../domain/audit/audit-event.repository';
import { config } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { DELIVERY_TIMEOUT_MS, webhookHttp } from './webhook-http.port';
import { signedHeaders } from '../../domain/webhooks/signing';
import { SweepRotation } from '../../domain/webhooks/sweep-rotation';
import { dropIdleBacklog, readBacklogs, type BacklogEntry } from '../../domain/webhooks/webhook-backlog.repository';
import type { DeliveryRecord } from '../../domain/webhooks/webhook.entities';
import {
  claimDelivery,
  disableWebhook,
  dueDeliveries,
  finishDelivery,
  getDelivery,
  getWebhook,
  hasPendingDelivery,
  laneHead,
  legacyDueDeliveries,
  markFailing,
  markHealthy,
  moveLegacyDelivery,
  recordAttempt,
  rescheduleDelivery,
} from '../../domain/webhooks/webhook.repository';
import { sleep } from '../../kernel/retry';

/**
 * The delivery engine (docs/api/events.md#webhooks): a sweep sends the due deliveries that
 * `delivery-schedule.ts` wrote, at least once and with the event's id as `webhook-id`, one
 * resource's events to one subscription in order (its lane), each receiver on its own connection
 * within its own time limit, so none holds up another; and it looks at every organization's
 * subscriptions in turn, taking a bounded number from each, so no backlog holds up another's.
 */

/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** How long an attempt holds its delivery: the receiver's time limit and a margin for the writes around it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** At most this many attempts run at once: in all, for one organization, for one subscription. */
const MAX_IN_FLIGHT = 256;
const MAX_IN_FLIGHT_PER_ORG = 32;
const MAX_IN_FLIGHT_PER_WEBHOOK = 8;
/** What a sweep leaves of its invocation after the last attempt's time limit: room for the writes after it. */
const SWEEP_MARGIN_MS = 5_000;
/** Organizations looked at at once within a cycle. */
const ORG_TURNS_AT_ONCE = 8;
/** Deliveries of the earlier layout's shared due partition moved per cycle. */
const LEGACY_MOVES_PER_CYCLE = 100;
/** An entry counted in this long ago whose subscription has nothing pending is a count left high, and removed. */
const IDLE_ENTRY_MS = 10 * 60 * 1000;

/** The wait after `attempts` failed attempts: the first retry's delay, doubling, at most an hour, ±10 %. */
export function retryDelayMs(attempts: number, firstRetryMs = config().webhooks.firstRetryMs, random = Math.random): number {
  const base = Math.min(firstRetryMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  return Math.round(base * (0.9 + random() * 0.2));
}

/** A time that never comes: an attempt made outside a sweep waits for its receiver's answer. */
const NEVER = new Promise<void>(() => undefined);

const secondsSince = (iso: string, now: Date) => (now.getTime() - Date.parse(iso)) / 1000;

interface InFlight {
  orgUuid: string;
  webhookId: string;
  running: Promise<void>;
}

/**
 * Sends due deliveries while its invocation has time for an attempt and the writes after it
 * (`remainingMs`: the time left, as the invocation's context tells it, read before each cycle), then
 * waits for the attempts it started. Runs on a schedule (each minute in AWS, a timer locally); two
 * sweeps at once never send one delivery twice at once (each attempt holds its delivery). Each cycle
 * reads the backlog registry and gives every organization a turn (`SweepRotation`): up to its free
 * attempt slots from its subscriptions' due partitions. A subscription with nothing due is left out
 * until the first retry's delay has passed, or deliveries are counted in for it; then the sweep waits
 * `pollMs` before the next cycle. Should the invocation's time run out meanwhile (the local stack ends
 * it when it stops), the sweep starts nothing more and waits on no receiver (`attemptDelivery`).
 */
export async function sweepDeliveries(remainingMs: () => number): Promise<{ attempts: number }> {
  const settings = config().webhooks;
  const inFlight = new Map<string, InFlight>();
  const rotation = new SweepRotation();
  const idleChecked = new Set<string>();
  let attempts = 0;
  let legacyLeft = true;
  const timeUp = whenNoTimeLeft(remainingMs, settings.pollMs);
  const busy = (key: 'orgUuid' | 'webhookId', value: string) => [...inFlight.values()].filter((entry) => entry[key] === value).length;

  const start = (delivery: DeliveryRecord) => {
    attempts++;
    const running = attemptDelivery(delivery, timeUp.reached)
      .then((nextDue) => {
        if (nextDue) rotation.wake(delivery, Date.parse(nextDue));
      })
      .catch((error: unknown) => logger.error('webhook delivery attempt failed', { deliveryId: delivery.id, errorType: (error as Error).name }))
      .finally(() => inFlight.delete(delivery.id));
    inFlight.set(delivery.id, { orgUuid: delivery.orgUuid, webhookId: delivery.webhookId, running });
  };

  /** Nothing due: quiet for a while; an entry left high with nothing pending at all is removed. */
  const nothingDue = async (entry: BacklogEntry, now: number) => {
    rotation.quiet(entry, now + settings.firstRetryMs);
    const key = `${entry.orgUuid}/${entry.webhookId}`;
    if (now - Date.parse(entry.touchedAt) < IDLE_ENTRY_MS || idleChecked.has(key)) return;
    idleChecked.add(key);
    if (!(await hasPendingDelivery(entry.orgUuid, entry.webhookId))) await dropIdleBacklog(entry);
  };

  const takeTurn = async (orgUuid: string, webhooks: readonly BacklogEntry[]) => {
    for (const entry of webhooks) {
      if (inFlight.size >= MAX_IN_FLIGHT) return rotation.starved(orgUuid);
      const running = busy('webhookId', entry.webhookId);
      let room = Math.min(MAX_IN_FLIGHT - inFlight.size, MAX_IN_FLIGHT_PER_ORG - busy('orgUuid', orgUuid), MAX_IN_FLIGHT_PER_WEBHOOK - running);
      if (room <= 0) continue;
      const now = Date.now();
      // The attempts running still stand first in the due partition until they end: read past them.
      const due = await dueDeliveries(orgUuid, entry.webhookId, new Date(now).toISOString(), room + running);
      if (due.length === 0) await nothingDue(entry, now);
      for (const delivery of due) {
        if (room <= 0 || inFlight.size >= MAX_IN_FLIGHT) break;
        if (inFlight.has(delivery.id)) continue;
        start(delivery);
        room--;
      }
    }
  };

  try {
    while (remainingMs() > DELIVERY_TIMEOUT_MS + SWEEP_MARGIN_MS) {
      if (legacyLeft) legacyLeft = await moveLegacyDeliveries();
      const turns = rotation.cycle(await readBacklogs(), Date.now());
      await inTurns(turns, ({ orgUuid, webhooks }) => takeTurn(orgUuid, webhooks));
      await sleep(settings.pollMs);
    }
    await Promise.allSettled([...inFlight.values()].map((entry) => entry.running));
  } finally {
    timeUp.stop();
  }
  return { attempts };
}

/** Resolves `reached` once `remainingMs` tells no time is left, looking every `everyMs` until `stop`. */
function whenNoTimeLeft(remainingMs: () => number, everyMs: number): { reached: Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<void>((resolve) => {
    const look = () => (remainingMs() <= 0 ? resolve() : void (timer = setTimeout(look, everyMs)));
    look();
  });
  return { reached, stop: () => clearTimeout(timer) };
}

/** Runs `take` for each turn, `ORG_TURNS_AT_ONCE` at a time, in the turns' order. */
async function inTurns<T>(turns: readonly T[], take: (turn: T) => Promise<void>): Promise<void> {
  const queue = [...turns];
  const next = async () => {
    for (let turn = queue.shift(); turn; turn = queue.shift()) await take(turn);
  };
  await Promise.all(Array.from({ length: Math.min(ORG_TURNS_AT_ONCE, queue.length) }, next));
}

/** Moves deliveries of the earlier layout's shared due partition to their subscriptions'; false once it is empty. */
async function moveLegacyDeliveries(): Promise<boolean> {
  const legacy = await legacyDueDeliveries(LEGACY_MOVES_PER_CYCLE);
  const now = new Date().toISOString();
  for (const delivery of legacy) await moveLegacyDelivery(delivery, now);
  return legacy.length > 0;
}

/**
 * One attempt of a due delivery: only the first of its lane goes; it is taken, sent, logged, then
 * delivered, rescheduled or given up, and the subscription's health follows. Answers when it is due
 * again if it was rescheduled. When `timeUp` comes first while the receiver has not answered (the
 * invocation has no time left), the attempt ends there, unrecorded: the delivery stays taken until its
 * lease ends, then a sweep sends it again, as after an invocation Lambda stopped mid-attempt.
 */
export async function attemptDelivery(due: DeliveryRecord, timeUp: Promise<void> = NEVER): Promise<string | undefined> {
  const { orgUuid, webhookId } = due;
  const settings = config().webhooks;
  const head = await laneHead(orgUuid, webhookId, due.laneId);
  if (head !== undefined && head !== due.id) {
    // An earlier event of the same resource is still pending: this one waits for it.
    const first = await getDelivery(orgUuid, webhookId, head);
    const soonest = new Date(Date.now() + settings.pollMs).toISOString();
    const dueAt = first && first.dueAt > soonest ? first.dueAt : soonest;
    await rescheduleDelivery(due, dueAt);
    return dueAt;
  }
  const now = new Date();
  const delivery = await claimDelivery(due, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString());
  if (!delivery) return undefined;
  const webhook = await getWebhook(orgUuid, webhookId);
  if (!webhook || !webhook.enabled) {
    await finishDelivery(delivery, 'failed', webhook ? 'The subscription is disabled' : 'The subscription was deleted');
    return undefined;
  }
  const sentAt = new Date();
  const sending = webhookHttp.post(new URL(webhook.url), signedHeaders(delivery.eventId, delivery.body, webhook.secrets, sentAt), delivery.body, {
    allowLoopbackHttp: settings.allowLoopbackHttp,
  });
  const outcome = await Promise.race([sending, timeUp.then(() => undefined)]);
  if (!outcome) return undefined;
  await recordAttempt(orgUuid, webhookId, {
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempts,
    at: sentAt.toISOString(),
    ok: outcome.ok,
    httpStatus: outcome.status,
    latencyMs: outcome.latencyMs,
    ...(outcome.detail ? { error: outcome.detail } : {}),
  });
  if (outcome.ok) {
    await finishDelivery(delivery, 'delivered');
    if (webhook.failingSince) await markHealthy(orgUuid, webhookId);
    count('WebhookDeliveries');
    return undefined;
  }
  count('WebhookAttemptsFailed');
  return failed(delivery, outcome.detail ?? 'The attempt failed');
}

/** After a failed attempt: the subscription disabled after failing long enough, else the delivery retried (when it is due again) or given up. */
async function failed(delivery: DeliveryRecord, detail: string): Promise<string | undefined> {
  const settings = config().webhooks;
  const now = new Date();
  const webhook = await markFailing(delivery.orgUuid, delivery.webhookId, now.toISOString());
  if (webhook?.enabled && webhook.failingSince && secondsSince(webhook.failingSince, now) >= settings.disableAfterSeconds) {
    const reason = `Disabled at ${now.toISOString()}: every delivery failed since ${webhook.failingSince}. Last error: ${detail}`;
    const audit = auditWrites({
      orgUuid: delivery.orgUuid,
      action: 'WEBHOOK_DISABLED',
      resource: { type: 'WEBHOOK', uuid: delivery.webhookId },
      changes: [
        { op: 'replace', path: '/enabled', value: false },
        { op: 'add', path: '/disabledReason', value: reason },
      ],
    });
    if (await disableWebhook(delivery.orgUuid, delivery.webhookId, reason, now.toISOString(), audit)) {
      count('WebhooksDisabled');
      logger.warn('webhook disabled after failing', { orgUuid: delivery.orgUuid, webhookId: delivery.webhookId, failingSince: webhook.failingSince });
    }
    await finishDelivery(delivery, 'failed', 'The subscription was disabled after failing too long');
    count('WebhookDeliveriesGivenUp');
    return undefined;
  }
  if (secondsSince(delivery.firstAttemptAt ?? now.toISOString(), now) >= settings.retrySeconds) {
    await finishDelivery(delivery, 'failed', `Given up after ${delivery.attempts} attempts. Last error: ${detail}`);
    count('WebhookDeliveriesGivenUp');
    return undefined;
  }
  const dueAt = new Date(now.getTime() + retryDelayMs(delivery.attempts)).toISOString();
  await rescheduleDelivery(delivery, dueAt);
  return dueAt;
}
