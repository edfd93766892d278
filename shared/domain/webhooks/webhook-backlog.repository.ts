import { keys } from '../../adapters/store/keys';
import { deleteItem, queryPartition, updateItem, updateItemReturning } from '../../adapters/store/table';
import { sendWindow, SENDS_PER_WINDOW } from './webhook-limits';

/**
 * The backlog registry (docs/data-model.md#the-webhook-backlog-registry): one entry per subscription
 * with pending deliveries, counting them. The sweep reads the registry to know whose due partitions
 * to look at; the caps read the counts.
 *
 * A count is reserved before its deliveries are written and released after they end, so it is never
 * below the deliveries that exist, and an entry whose count reaches zero can be removed without
 * losing one: a delivery being enqueued has already counted itself. A process that dies between the
 * two steps leaves the count high; `dropIdleBacklog` removes such an entry once its subscription has
 * nothing pending.
 */

export interface BacklogEntry {
  orgUuid: string;
  webhookId: string;
  pending: number;
  /** When a delivery was last counted in: a change here means new deliveries may be due. */
  touchedAt: string;
}

/** Every entry of the registry, grouped by organization in key order (eventually consistent: the sweep reads it again each cycle). */
export async function readBacklogs(): Promise<BacklogEntry[]> {
  return queryPartition<BacklogEntry>(keys.webhookBacklogs, { forward: true });
}

/** The entries of one organization's subscriptions, as written (consistent). */
export async function orgBacklog(orgUuid: string): Promise<BacklogEntry[]> {
  const { PK, SKPrefix } = keys.webhookBacklogsOf(orgUuid);
  return queryPartition<BacklogEntry>(PK, { forward: true, consistent: true, between: [SKPrefix, `${SKPrefix}\uffff`] });
}

/** Counts `count` deliveries in before they are written; the entry is made by the first. */
export async function reserveBacklog(orgUuid: string, webhookId: string, count: number, now: string): Promise<void> {
  if (count <= 0) return;
  await updateItem({
    Key: keys.webhookBacklog(orgUuid, webhookId),
    UpdateExpression: 'ADD pending :count SET orgUuid = :org, webhookId = :webhook, touchedAt = :now',
    ExpressionAttributeValues: { ':count': count, ':org': orgUuid, ':webhook': webhookId, ':now': now },
  });
}

/**
 * Counts `count` deliveries out once they ended (or were not written after all); the entry goes when
 * nothing is left. Removal is conditioned on the count, so an enqueue that counted itself meanwhile
 * keeps the entry, and one that counts itself after the removal makes it again.
 */
export async function releaseBacklog(orgUuid: string, webhookId: string, count: number): Promise<void> {
  if (count <= 0) return;
  const key = keys.webhookBacklog(orgUuid, webhookId);
  const left = await updateItemReturning<BacklogEntry>({
    Key: key,
    UpdateExpression: 'ADD pending :minus',
    // Never makes an entry: one removed as idle had nothing left to count out.
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':minus': -count },
  });
  if (left && left.pending <= 0) await deleteItem({ Key: key, ConditionExpression: 'pending <= :zero', ExpressionAttributeValues: { ':zero': 0 } });
}

/**
 * Removes an entry whose subscription has nothing pending although its count says otherwise (a
 * process died between a count and its write), unless a delivery was counted in since it was read.
 */
export async function dropIdleBacklog(entry: BacklogEntry): Promise<boolean> {
  return deleteItem({
    Key: keys.webhookBacklog(entry.orgUuid, entry.webhookId),
    ConditionExpression: 'touchedAt = :seen',
    ExpressionAttributeValues: { ':seen': entry.touchedAt },
  });
}

/** The window's counter expires a minute after the window. */
const SEND_WINDOW_TTL_SECONDS = 60;

/**
 * Counts a test or redelivery of the subscription in the current window: the seconds to wait when
 * the window already holds `SENDS_PER_WINDOW`, undefined when counted.
 */
export async function takeSend(orgUuid: string, webhookId: string, nowMs = Date.now()): Promise<number | undefined> {
  const { window, secondsLeft } = sendWindow(nowMs);
  const counted = await updateItem({
    Key: keys.webhookSendWindow(orgUuid, webhookId, window),
    UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
    ConditionExpression: 'attribute_not_exists(sends) OR sends < :limit',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':one': 1, ':limit': SENDS_PER_WINDOW, ':ttl': Math.floor(nowMs / 1000) + secondsLeft + SEND_WINDOW_TTL_SECONDS },
  });
  return counted ? undefined : secondsLeft;
}
