import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { auditWrites } from '../audit/audit-event';
import type { CloudEvent } from '../audit/cloud-event';
import { config } from '../config';
import { logger } from '../logger';
import { count } from '../metrics';
import { DELIVERY_TIMEOUT_MS, postJson } from './outbound-http';
import { signedHeaders } from './signing';
import type { DeliveryRecord, WebhookRecord } from './webhook.entities';
import {
  claimDelivery,
  disableWebhook,
  dueDeliveries,
  enqueueDelivery,
  finishDelivery,
  getDelivery,
  getWebhook,
  laneHead,
  listWebhooks,
  markFailing,
  markHealthy,
  recordAttempt,
  rescheduleDelivery,
} from './webhook.repository';

/**
 * The delivery engine (docs/api/events.md): every event a
 * subscription wants becomes a delivery item, scheduled in the table; a sweep sends what is due,
 * at least once and with the event's id as `webhook-id`, one resource's events to one subscription
 * in order (its lane), each receiver on its own connection within its own time limit, so none holds
 * up another.
 */

/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** How long an attempt holds its delivery: the receiver's time limit and a margin for the writes around it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** At most this many attempts run at once: in all, for one organization, for one subscription. */
const MAX_IN_FLIGHT = 256;
const MAX_IN_FLIGHT_PER_ORG = 32;
const MAX_IN_FLIGHT_PER_WEBHOOK = 8;
/** Due deliveries read per look: pages of 100, at most 5 (past subscriptions at their limit). */
const DUE_PAGE = 100;
const DUE_PAGES = 5;

/** A delivery's id: the same for the same event and subscription, so enqueueing twice writes once. */
export const deliveryIdOf = (webhookId: string, eventId: string) => createHash('sha256').update(`${webhookId}\n${eventId}`).digest('hex').slice(0, 32);

/** Whether a subscription wants an event: enabled, of a type it asked for, not made by a user it excludes. */
export function wants(webhook: WebhookRecord, shortType: string, actorUuid: string | null): boolean {
  if (!webhook.enabled) return false;
  if (!webhook.eventTypes.includes('*') && !webhook.eventTypes.includes(shortType)) return false;
  return !(actorUuid && webhook.excludeActors.includes(actorUuid));
}

/** A new pending delivery of `event` to a subscription, due now. */
export function newDelivery(webhook: Pick<WebhookRecord, 'id' | 'orgUuid'>, event: CloudEvent, kind: DeliveryRecord['kind'], id: string, now = new Date()): DeliveryRecord {
  const at = now.toISOString();
  return {
    id,
    orgUuid: webhook.orgUuid,
    webhookId: webhook.id,
    kind,
    eventId: event.id,
    eventType: event.type,
    // A change waits for the earlier changes of its resource; a redelivery or ping is a lane of its own.
    laneId: kind === 'event' ? event.data.resource.uuid : id,
    sequence: event.sequence,
    body: JSON.stringify(event),
    status: 'pending',
    createdAt: at,
    dueAt: at,
    attempts: 0,
  };
}

/** Schedules `event` for every subscription of its organization that wants it (once each, however often called). */
export async function enqueueForSubscribers(webhooks: readonly WebhookRecord[], event: CloudEvent, shortType: string): Promise<number> {
  let enqueued = 0;
  for (const webhook of webhooks) {
    if (!wants(webhook, shortType, event.data.actor.uuid)) continue;
    if (await enqueueDelivery(newDelivery(webhook, event, 'event', deliveryIdOf(webhook.id, event.id)))) enqueued++;
  }
  return enqueued;
}

/** A change event to hand to the subscriptions of its organization; `shortType` is its type without the prefix. */
export interface ChangeForSubscribers {
  orgUuid: string;
  event: CloudEvent;
  shortType: string;
}

/** Lanes scheduled at once by `enqueueChanges`. */
const ENQUEUE_LANES = 16;

/**
 * Schedules each change for the subscriptions that want it (each organization's subscriptions read
 * once). One resource's changes are scheduled one after the other, in the stream's order; different
 * resources' at once, up to `ENQUEUE_LANES` (a lane's entries sort by the event's sequence, so only a
 * resource's own order matters). Enqueueing is idempotent, so a batch read again from the stream
 * schedules nothing twice.
 */
export async function enqueueChanges(changes: readonly ChangeForSubscribers[]): Promise<number> {
  const subscriptions = new Map<string, Promise<WebhookRecord[]>>();
  const lanes = new Map<string, ChangeForSubscribers[]>();
  for (const change of changes) {
    const lane = `${change.orgUuid}/${change.event.data.resource.uuid}`;
    lanes.set(lane, [...(lanes.get(lane) ?? []), change]);
  }
  const pending = [...lanes.values()];
  let enqueued = 0;
  const scheduleLanes = async () => {
    for (let lane = pending.shift(); lane; lane = pending.shift()) {
      for (const { orgUuid, event, shortType } of lane) {
        if (!subscriptions.has(orgUuid)) subscriptions.set(orgUuid, listWebhooks(orgUuid));
        enqueued += await enqueueForSubscribers(await subscriptions.get(orgUuid)!, event, shortType);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENQUEUE_LANES, pending.length) }, scheduleLanes));
  return enqueued;
}

/** The wait after `attempts` failed attempts: the first retry's delay, doubling, at most an hour, ±10 %. */
export function retryDelayMs(attempts: number, firstRetryMs = config().webhooks.firstRetryMs, random = Math.random): number {
  const base = Math.min(firstRetryMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  return Math.round(base * (0.9 + random() * 0.2));
}

const secondsSince = (iso: string, now: Date) => (now.getTime() - Date.parse(iso)) / 1000;

/**
 * Sends due deliveries until `deadline` (epoch ms), looking every `pollMs`; then waits for the
 * attempts it started. Runs on a schedule (each minute in AWS, a timer locally); two sweeps at once
 * never send one delivery twice at once (each attempt holds its delivery).
 */
export async function sweepDeliveries(deadline: number): Promise<{ attempts: number }> {
  const inFlight = new Map<string, { orgUuid: string; webhookId: string; running: Promise<void> }>();
  let attempts = 0;
  const busy = (key: 'orgUuid' | 'webhookId', value: string) => [...inFlight.values()].filter((entry) => entry[key] === value).length;
  while (Date.now() < deadline) {
    let after: Record<string, unknown> | undefined;
    for (let page = 0; page < DUE_PAGES; page++) {
      const { due, next } = await dueDeliveries(new Date().toISOString(), DUE_PAGE, after);
      for (const delivery of due) {
        if (inFlight.has(delivery.id) || inFlight.size >= MAX_IN_FLIGHT) continue;
        if (busy('orgUuid', delivery.orgUuid) >= MAX_IN_FLIGHT_PER_ORG || busy('webhookId', delivery.webhookId) >= MAX_IN_FLIGHT_PER_WEBHOOK) continue;
        attempts++;
        const running = attemptDelivery(delivery)
          .catch((error: unknown) => logger.error('webhook delivery attempt failed', { deliveryId: delivery.id, errorType: (error as Error).name }))
          .finally(() => inFlight.delete(delivery.id));
        inFlight.set(delivery.id, { orgUuid: delivery.orgUuid, webhookId: delivery.webhookId, running });
      }
      after = next;
      if (!after) break;
    }
    await sleep(config().webhooks.pollMs);
  }
  await Promise.allSettled([...inFlight.values()].map((entry) => entry.running));
  return { attempts };
}

/**
 * One attempt of a due delivery: only the first of its lane goes; it is taken, sent, logged, then
 * delivered, rescheduled or given up, and the subscription's health follows.
 */
export async function attemptDelivery(due: DeliveryRecord): Promise<void> {
  const { orgUuid, webhookId } = due;
  const settings = config().webhooks;
  const head = await laneHead(orgUuid, webhookId, due.laneId);
  if (head !== undefined && head !== due.id) {
    // An earlier event of the same resource is still pending: this one waits for it.
    const first = await getDelivery(orgUuid, webhookId, head);
    const soonest = new Date(Date.now() + settings.pollMs).toISOString();
    await rescheduleDelivery(due, first && first.dueAt > soonest ? first.dueAt : soonest);
    return;
  }
  const now = new Date();
  const delivery = await claimDelivery(due, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString());
  if (!delivery) return;
  const webhook = await getWebhook(orgUuid, webhookId);
  if (!webhook || !webhook.enabled) {
    await finishDelivery(delivery, 'failed', webhook ? 'The subscription is disabled' : 'The subscription was deleted');
    return;
  }
  const sentAt = new Date();
  const outcome = await postJson(new URL(webhook.url), signedHeaders(delivery.eventId, delivery.body, webhook.secrets, sentAt), delivery.body, {
    allowLoopbackHttp: settings.allowLoopbackHttp,
  });
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
    answer: outcome.answer,
  });
  if (outcome.ok) {
    await finishDelivery(delivery, 'delivered');
    if (webhook.failingSince) await markHealthy(orgUuid, webhookId);
    count('WebhookDeliveries');
    return;
  }
  count('WebhookAttemptsFailed');
  await failed(delivery, outcome.detail ?? 'The attempt failed');
}

/** After a failed attempt: the subscription disabled after failing long enough, else the delivery retried or given up. */
async function failed(delivery: DeliveryRecord, detail: string): Promise<void> {
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
    return;
  }
  if (secondsSince(delivery.firstAttemptAt ?? now.toISOString(), now) >= settings.retrySeconds) {
    await finishDelivery(delivery, 'failed', `Given up after ${delivery.attempts} attempts. Last error: ${detail}`);
    count('WebhookDeliveriesGivenUp');
    return;
  }
  await rescheduleDelivery(delivery, new Date(now.getTime() + retryDelayMs(delivery.attempts)).toISOString());
}
