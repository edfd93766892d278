import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../adapters/clients/dynamodb';
import { config } from '../../kernel/config';
import { GSI1, keys, withoutKeys } from '../../adapters/store/keys';
import { getItem, putItem, queryPartition, queryPrefix, transactWrite, updateItem, updateItemReturning, type TableWrite } from '../../adapters/store/table';
import { releaseBacklog, reserveBacklog } from './webhook-backlog.repository';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, WebhookRecord } from './webhook.entities';

/** The most subscriptions an organization may have. */
export const MAX_WEBHOOKS = 20;
/** How long deliveries and their attempts stay listed (their TTL). */
export const DELIVERY_LOG_DAYS = 30;

const expiry = (from: Date) => Math.floor(from.getTime() / 1000) + DELIVERY_LOG_DAYS * 86_400;

export async function getWebhook(orgUuid: string, webhookId: string): Promise<WebhookRecord | undefined> {
  return getItem<WebhookRecord>(keys.webhook(orgUuid, webhookId), { consistent: true });
}

/** The organization's subscriptions in key (id) order. */
export async function listWebhooks(orgUuid: string): Promise<WebhookRecord[]> {
  const { PK, SKPrefix } = keys.webhooksOf(orgUuid);
  return queryPrefix<WebhookRecord>(PK, SKPrefix);
}

/**
 * Writes a new subscription with `alongside` (its audit event), counting it: false when the
 * organization already has `MAX_WEBHOOKS` (nothing is written then).
 */
export async function insertWebhook(record: WebhookRecord, alongside: readonly TableWrite[]): Promise<boolean> {
  const counted: TableWrite = {
    Update: {
      Key: keys.webhookCount(record.orgUuid),
      UpdateExpression: 'ADD webhooks :one',
      ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOKS },
    },
  };
  const put: TableWrite = { Put: { Item: { ...keys.webhook(record.orgUuid, record.id), type: 'WEBHOOK', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } };
  return (await transactWrite([counted, put, ...alongside])).length === 0;
}

/** Replaces a subscription that has not changed since `updatedAt` was read; false otherwise. */
export async function replaceWebhook(record: WebhookRecord, readUpdatedAt: string, alongside: readonly TableWrite[]): Promise<boolean> {
  const put: TableWrite = {
    Put: {
      Item: { ...keys.webhook(record.orgUuid, record.id), type: 'WEBHOOK', ...record },
      ConditionExpression: 'updatedAt = :read',
      ExpressionAttributeValues: { ':read': readUpdatedAt },
    },
  };
  return (await transactWrite([put, ...alongside])).length === 0;
}

/** Deletes a subscription (its pending deliveries are given up by the sweep); false when it was gone. */
export async function deleteWebhook(orgUuid: string, webhookId: string, alongside: readonly TableWrite[]): Promise<boolean> {
  const remove: TableWrite = { Delete: { Key: keys.webhook(orgUuid, webhookId), ConditionExpression: 'attribute_exists(PK)' } };
  const uncount: TableWrite = { Update: { Key: keys.webhookCount(orgUuid), UpdateExpression: 'ADD webhooks :minus', ExpressionAttributeValues: { ':minus': -1 } } };
  return (await transactWrite([remove, uncount, ...alongside])).length === 0;
}

/** Notes that an attempt failed: `failingSince` is set by the first failure after a success. */
export async function markFailing(orgUuid: string, webhookId: string, now: string): Promise<WebhookRecord | undefined> {
  return updateItemReturning<WebhookRecord>({
    Key: keys.webhook(orgUuid, webhookId),
    UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': now },
  });
}

/** Notes a success: the subscription is no longer failing (one write only when it was). */
export async function markHealthy(orgUuid: string, webhookId: string): Promise<void> {
  await updateItem({ Key: keys.webhook(orgUuid, webhookId), UpdateExpression: 'REMOVE failingSince', ConditionExpression: 'attribute_exists(failingSince)' });
}

/** Disables a subscription that is enabled, with why, and `alongside` (its audit event); false when it was not enabled. */
export async function disableWebhook(orgUuid: string, webhookId: string, reason: string, now: string, alongside: readonly TableWrite[]): Promise<boolean> {
  const update: TableWrite = {
    Update: {
      Key: keys.webhook(orgUuid, webhookId),
      UpdateExpression: 'SET enabled = :false, disabledAt = :now, disabledReason = :reason, updatedAt = :now',
      ConditionExpression: 'enabled = :true',
      ExpressionAttributeValues: { ':false': false, ':true': true, ':now': now, ':reason': reason },
    },
  };
  return (await transactWrite([update, ...alongside])).length === 0;
}

const dueKeys = (delivery: Pick<DeliveryRecord, 'dueAt' | 'orgUuid' | 'webhookId' | 'id'>) =>
  keys.webhookDue(delivery.orgUuid, delivery.webhookId, delivery.dueAt, delivery.id);

const laneEntry = (delivery: DeliveryRecord) => keys.webhookLaneEntry(delivery.orgUuid, delivery.webhookId, delivery.laneId, delivery.sequence, delivery.id);

/**
 * Schedules a delivery with its lane entry, once: false when a delivery of that id exists already
 * (the same event enqueued again, after a retried batch or a replay). The caller has counted it in
 * its subscription's backlog (`reserveBacklog`) and gives the count back when this answers false.
 */
export async function enqueueDelivery(delivery: DeliveryRecord): Promise<boolean> {
  const item = { ...keys.webhookDelivery(delivery.orgUuid, delivery.webhookId, delivery.id), ...dueKeys(delivery), type: 'WEBHOOK_DELIVERY', ...delivery, ttl: expiry(new Date(delivery.createdAt)) };
  const writes: TableWrite[] = [
    { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { Item: { ...laneEntry(delivery), type: 'WEBHOOK_LANE_ENTRY', deliveryId: delivery.id, ttl: item.ttl } } },
  ];
  return (await transactWrite(writes)).length === 0;
}

export async function getDelivery(orgUuid: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  return getItem<DeliveryRecord>(keys.webhookDelivery(orgUuid, webhookId, deliveryId), { consistent: true });
}

/** Up to `limit` of a subscription's deliveries due at `now`, earliest first (GSI1, eventually consistent: a claim checks the item itself). */
export async function dueDeliveries(orgUuid: string, webhookId: string, now: string, limit: number): Promise<DeliveryRecord[]> {
  return dueQuery(keys.webhookDuePartition(orgUuid, webhookId), limit, now);
}

/** Whether a subscription has any pending delivery, due now or later (GSI1, eventually consistent). */
export async function hasPendingDelivery(orgUuid: string, webhookId: string): Promise<boolean> {
  return (await dueQuery(keys.webhookDuePartition(orgUuid, webhookId), 1)).length > 0;
}

/** Pending deliveries still in the earlier layout's shared due partition, due or not. */
export async function legacyDueDeliveries(limit: number): Promise<DeliveryRecord[]> {
  return dueQuery(keys.legacyWebhooksDue, limit);
}

/**
 * Moves a delivery from the shared due partition to its subscription's, counted in its backlog
 * (reserved first, given back when another sweep moved or ended it meanwhile).
 */
export async function moveLegacyDelivery(delivery: DeliveryRecord, now: string): Promise<void> {
  await reserveBacklog(delivery.orgUuid, delivery.webhookId, 1, now);
  const { GSI1PK, GSI1SK } = dueKeys(delivery);
  const moved = await updateItem({
    Key: keys.webhookDelivery(delivery.orgUuid, delivery.webhookId, delivery.id),
    UpdateExpression: 'SET GSI1PK = :pk, GSI1SK = :sk',
    ConditionExpression: 'GSI1PK = :legacy',
    ExpressionAttributeValues: { ':pk': GSI1PK, ':sk': GSI1SK, ':legacy': keys.legacyWebhooksDue },
  });
  if (!moved) await releaseBacklog(delivery.orgUuid, delivery.webhookId, 1);
}

async function dueQuery(partition: string, limit: number, dueBy?: string): Promise<DeliveryRecord[]> {
  const page = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: GSI1,
      KeyConditionExpression: dueBy === undefined ? 'GSI1PK = :due' : 'GSI1PK = :due AND GSI1SK <= :now',
      ExpressionAttributeValues: { ':due': partition, ...(dueBy === undefined ? {} : { ':now': dueBy }) },
      Limit: limit,
    }),
  );
  return (page.Items ?? []).map((item) => withoutKeys<DeliveryRecord>(item));
}

/** The id of the first pending delivery of a lane (consistent: an enqueued one is seen). */
export async function laneHead(orgUuid: string, webhookId: string, laneId: string): Promise<string | undefined> {
  const { PK, SKPrefix } = keys.webhookLane(orgUuid, webhookId, laneId);
  const page = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :lane)',
      ExpressionAttributeValues: { ':pk': PK, ':lane': SKPrefix },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return page.Items?.[0]?.deliveryId as string | undefined;
}

/**
 * Takes a pending delivery for one attempt (no other sweep takes it until `leaseUntil`), counting
 * the attempt; undefined when it is not pending, not due (it was read from the index before it was
 * rescheduled) or another sweep holds it.
 */
export async function claimDelivery(delivery: DeliveryRecord, now: string, leaseUntil: string): Promise<DeliveryRecord | undefined> {
  return updateItemReturning<DeliveryRecord>({
    Key: keys.webhookDelivery(delivery.orgUuid, delivery.webhookId, delivery.id),
    UpdateExpression: 'SET leaseUntil = :lease, attempts = attempts + :one, firstAttemptAt = if_not_exists(firstAttemptAt, :now)',
    ConditionExpression: '#status = :pending AND dueAt <= :now AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':lease': leaseUntil, ':one': 1, ':now': now, ':pending': 'pending' },
  });
}

/**
 * Ends a pending delivery (delivered or given up): out of the schedule, of its lane and of its
 * subscription's backlog count. False when it had ended already (another sweep's attempt, after its
 * lease ran out), which counts nothing out twice.
 */
export async function finishDelivery(delivery: DeliveryRecord, status: Exclude<DeliveryStatus, 'pending'>, reason?: string): Promise<boolean> {
  const failed = await transactWrite([
    {
      Update: {
        Key: keys.webhookDelivery(delivery.orgUuid, delivery.webhookId, delivery.id),
        UpdateExpression: `SET #status = :status${reason ? ', reason = :reason' : ''} REMOVE GSI1PK, GSI1SK, leaseUntil`,
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status, ':pending': 'pending', ...(reason ? { ':reason': reason } : {}) },
      },
    },
    { Delete: { Key: laneEntry(delivery) } },
  ]);
  if (failed.length > 0) return false;
  await releaseBacklog(delivery.orgUuid, delivery.webhookId, 1);
  return true;
}

/** Counts events not scheduled for a subscription because a backlog cap was reached, and when the last was. */
export async function markDropped(orgUuid: string, webhookId: string, count: number, now: string): Promise<void> {
  await updateItem({
    Key: keys.webhook(orgUuid, webhookId),
    UpdateExpression: 'ADD droppedEvents :count SET lastDroppedAt = :now',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':count': count, ':now': now },
  });
}

/** Moves a pending delivery's next attempt to `dueAt` and lets it go. */
export async function rescheduleDelivery(delivery: DeliveryRecord, dueAt: string): Promise<void> {
  await updateItem({
    Key: keys.webhookDelivery(delivery.orgUuid, delivery.webhookId, delivery.id),
    UpdateExpression: 'SET dueAt = :due, GSI1SK = :sk REMOVE leaseUntil',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':due': dueAt, ':sk': dueKeys({ ...delivery, dueAt }).GSI1SK, ':pending': 'pending' },
  });
}

export async function recordAttempt(orgUuid: string, webhookId: string, attempt: AttemptRecord): Promise<void> {
  const at = new Date(attempt.at);
  await putItem({ ...keys.webhookAttempt(orgUuid, webhookId, attempt.at, attempt.deliveryId, attempt.attempt), type: 'WEBHOOK_ATTEMPT', ...attempt, ttl: expiry(at) });
}

/**
 * The newest `limit` attempts of a subscription, newest first, or the `limit` older than the attempt
 * whose sort key is `after` (a page token's position: the Query starts there); `next` is the sort key
 * of the page's last attempt when older ones follow.
 */
export async function listAttempts(orgUuid: string, webhookId: string, limit: number, after?: string): Promise<{ attempts: AttemptRecord[]; next?: string }> {
  const { PK, SKPrefix } = keys.webhookAttemptsOf(orgUuid, webhookId);
  const found = await queryPartition<AttemptRecord>(PK, { forward: false, limit: limit + 1, between: [SKPrefix, `${SKPrefix}\uffff`], exclusiveStart: after });
  const attempts = found.slice(0, limit);
  const last = attempts.at(-1);
  return { attempts, ...(found.length > limit && last ? { next: keys.webhookAttempt(orgUuid, webhookId, last.at, last.deliveryId, last.attempt).SK } : {}) };
}
