import { createHash } from 'node:crypto';
import type { CloudEvent } from '../audit/cloud-event';
import { RateLimitedError } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import { count as countMetric } from '../../kernel/metrics';
import { orgBacklog, releaseBacklog, reserveBacklog, takeSend } from './webhook-backlog.repository';
import {
  BACKLOG_RETRY_AFTER_SECONDS,
  BacklogPlan,
  MAX_PENDING_PER_ORG,
  MAX_PENDING_PER_WEBHOOK,
  SEND_WINDOW_SECONDS,
  SENDS_PER_WINDOW,
  type CapReached,
} from './webhook-limits';
import type { DeliveryRecord, WebhookRecord } from './webhook.entities';
import { enqueueDelivery, listWebhooks, markDropped } from './webhook.repository';
import { groupDigits } from '../../kernel/text/numbers';

/**
 * Scheduling deliveries (docs/api/events.md#webhooks): every change event a subscription wants
 * becomes a delivery item, counted in its subscription's backlog, within the caps
 * (docs/api/events.md#backlogs-caps-and-rates); the sweep (`shared/app/webhooks/delivery-engine.ts`) sends them.
 */

/** A delivery's id: the same for the same event and subscription, so enqueueing twice writes once. */
export const deliveryIdOf = (webhookId: string, eventId: string) => createHash('sha256').update(`${webhookId}\n${eventId}`).digest('hex').slice(0, 32);

/**
 * Whether a subscription wants an event: enabled, committed no earlier than the subscription was
 * created (the stream may hand over an older change after it), of a type it asked for, not made by a
 * user it excludes.
 */
export function wants(webhook: WebhookRecord, event: Pick<CloudEvent, 'time'>, shortType: string, actorUuid: string | null): boolean {
  if (!webhook.enabled || event.time < webhook.createdAt) return false;
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

/** A change event to hand to the subscriptions of its organization; `shortType` is its type without the prefix. */
export interface ChangeForSubscribers {
  orgUuid: string;
  event: CloudEvent;
  shortType: string;
}

/** Lanes scheduled at once by `enqueueChanges`. */
const ENQUEUE_LANES = 16;

/** One organization's deliveries of a batch, admitted within its caps. */
interface OrgBatch {
  orgUuid: string;
  plan: BacklogPlan;
  deliveries: DeliveryRecord[];
}

/**
 * Schedules each change for the subscriptions that want it, in the stream's order, and returns how
 * many deliveries were written. Each organization's subscriptions and backlog are read once; a
 * delivery beyond a cap is not scheduled but counted (the subscription's `droppedEvents`, the
 * `WebhookEventsDropped` metric), since the stream cannot wait for a receiver. One resource's
 * deliveries to one subscription (a lane) are written one after the other; different lanes' at
 * once, up to `ENQUEUE_LANES` (a lane's entries sort by the event's sequence, so only its own order
 * matters).
 * Enqueueing is idempotent, so a batch read again from the stream schedules nothing twice, and the
 * counts it reserved for deliveries already written are given back.
 */
export async function enqueueChanges(changes: readonly ChangeForSubscribers[]): Promise<number> {
  const now = new Date().toISOString();
  const byOrg = new Map<string, ChangeForSubscribers[]>();
  for (const change of changes) byOrg.set(change.orgUuid, [...(byOrg.get(change.orgUuid) ?? []), change]);
  const batches = await Promise.all([...byOrg].map(([orgUuid, orgChanges]) => admitted(orgUuid, orgChanges)));
  await Promise.all(batches.flatMap(({ orgUuid, plan }) => [...plan.admitted].map(([webhookId, count]) => reserveBacklog(orgUuid, webhookId, count, now))));
  const duplicates = await writeInLanes(batches.flatMap((batch) => batch.deliveries));
  await Promise.all([...duplicates].map(([key, count]) => releaseBacklog(...splitKey(key), count)));
  await Promise.all(batches.map((batch) => recordDropped(batch, now)));
  return batches.reduce((sum, batch) => sum + batch.deliveries.length, 0) - [...duplicates.values()].reduce((sum, count) => sum + count, 0);
}

async function admitted(orgUuid: string, changes: readonly ChangeForSubscribers[]): Promise<OrgBatch> {
  const webhooks = (await listWebhooks(orgUuid)).filter((webhook) => webhook.enabled);
  // Most organizations subscribe nothing: their backlog is not read.
  const plan = new BacklogPlan(webhooks.length > 0 ? await orgBacklog(orgUuid) : []);
  const deliveries: DeliveryRecord[] = [];
  for (const { event, shortType } of changes) {
    for (const webhook of webhooks) {
      if (wants(webhook, event, shortType, event.data.actor.uuid) && plan.admit(webhook.id)) deliveries.push(newDelivery(webhook, event, 'event', deliveryIdOf(webhook.id, event.id)));
    }
  }
  return { orgUuid, plan, deliveries };
}

const keyOf = (orgUuid: string, webhookId: string) => `${orgUuid}/${webhookId}`;
const splitKey = (key: string) => key.split('/') as [string, string];

/** Writes the deliveries, each lane in order; answers how many of each subscription's existed already. */
async function writeInLanes(deliveries: readonly DeliveryRecord[]): Promise<Map<string, number>> {
  const lanes = new Map<string, DeliveryRecord[]>();
  for (const delivery of deliveries) {
    const lane = `${delivery.orgUuid}/${delivery.webhookId}/${delivery.laneId}`;
    lanes.set(lane, [...(lanes.get(lane) ?? []), delivery]);
  }
  const pending = [...lanes.values()];
  const duplicates = new Map<string, number>();
  const writeLanes = async () => {
    for (let lane = pending.shift(); lane; lane = pending.shift()) {
      for (const delivery of lane) {
        if (await enqueueDelivery(delivery)) continue;
        const key = keyOf(delivery.orgUuid, delivery.webhookId);
        duplicates.set(key, (duplicates.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENQUEUE_LANES, pending.length) }, writeLanes));
  return duplicates;
}

async function recordDropped({ orgUuid, plan }: OrgBatch, now: string): Promise<void> {
  for (const [webhookId, count] of plan.dropped) {
    countMetric('WebhookEventsDropped', count);
    logger.warn('webhook events not scheduled: a backlog cap was reached', { orgUuid, webhookId, dropped: count });
    await markDropped(orgUuid, webhookId, count, now);
  }
}

const capMessages: Record<CapReached, string> = {
  webhook: `The subscription has ${groupDigits(MAX_PENDING_PER_WEBHOOK)} deliveries pending, the most it may have`,
  organization: `The organization's subscriptions have ${groupDigits(MAX_PENDING_PER_ORG)} deliveries pending, the most they may have`,
};

/**
 * Schedules a test's ping or a redelivery: refused (429) when a backlog cap is reached or the
 * subscription had `SENDS_PER_WINDOW` of them in this window, and then nothing is written.
 */
export async function scheduleSend(delivery: DeliveryRecord): Promise<void> {
  const { orgUuid, webhookId } = delivery;
  const cap = new BacklogPlan(await orgBacklog(orgUuid)).capReached(webhookId);
  if (cap) {
    const message = `${capMessages[cap]}: let its receivers catch up (GET …/deliveries lists the attempts), then retry after the number of seconds in Retry-After`;
    throw new RateLimitedError({ retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS, code: 'WEBHOOK_BACKLOG_FULL', message });
  }
  const wait = await takeSend(orgUuid, webhookId);
  if (wait !== undefined) {
    const message = `A subscription takes at most ${SENDS_PER_WINDOW} tests and redeliveries every ${SEND_WINDOW_SECONDS} seconds: retry after the number of seconds in Retry-After`;
    throw new RateLimitedError({ retryAfterSeconds: wait, message });
  }
  await reserveBacklog(orgUuid, webhookId, 1, delivery.createdAt);
  try {
    await enqueueDelivery(delivery);
  } catch (error) {
    await releaseBacklog(orgUuid, webhookId, 1);
    throw error;
  }
}
