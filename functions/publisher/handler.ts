import type { Context, DynamoDBRecord } from 'aws-lambda';
import { cloudEventOf } from '../../shared/domain/audit/cloud-event';
import { eventTypeOfAction } from '../../shared/domain/audit/event-types';
import { changeOfRecord } from '../../shared/app/change-events/change-stream';
import { publishChangeEvents } from '../../shared/app/change-events/event-bus';
import { eventFunction } from '../../shared/edge/http/event-function';
import { logger } from '../../shared/kernel/logger';
import { count } from '../../shared/kernel/metrics';
import { sweepDeliveries } from '../../shared/app/webhooks/delivery-engine';
import { enqueueChanges, type ChangeForSubscribers } from '../../shared/domain/webhooks/delivery-schedule';
import { DELIVERY_TIMEOUT_MS } from '../../shared/adapters/http/outbound-http';

/**
 * Two triggers, one function (docs/api/events.md). The table's stream, filtered to the audit events
 * every change writes in its own transaction, arrives in order, shard by shard: each becomes one
 * CloudEvent put on the EventBridge bus (ten a call), then a delivery for each webhook subscription
 * that wants it. When an event cannot be published, the answer names its record and those after it
 * (`batchItemFailures`), so the stream's poller retries from that record on and nothing after it
 * overtakes it; a thrown error fails the whole batch, which the poller splits and retries, then hands
 * to the dead-letter queue (docs/operations/change-events.md). A schedule starts the sweep that sends
 * the due webhook deliveries.
 */
export const handler = eventFunction('publisher', {
  stream: { collect: changeOf, flush: publish },
  schedule: (context: Context) => sweepDeliveries(Date.now() + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - SWEEP_MARGIN_MS),
});

/** What a sweep leaves of the invocation: the last attempts' time limit and this, for the writes after them. */
const SWEEP_MARGIN_MS = 5_000;

/** The change event of a stream record, or nothing for a record that is no audit event. */
function changeOf(record: DynamoDBRecord): ChangeForSubscribers | undefined {
  const change = changeOfRecord(record);
  if (!change) return void logger.warn('stream record that is no audit event: skipped', { eventId: record.eventID, eventName: record.eventName });
  return { orgUuid: change.orgUuid, event: cloudEventOf(change.orgUuid, change.event), shortType: eventTypeOfAction[change.event.action] };
}

/** Puts the batch's change events on the bus in order and schedules the webhook deliveries of those published; how many were. */
async function publish(changes: ChangeForSubscribers[]): Promise<number> {
  const published = await publishChangeEvents(changes.map(({ event }) => event));
  count('ChangeEventsPublished', published);
  await enqueueChanges(changes.slice(0, published));
  if (published < changes.length) logger.error('change events not published: the stream retries from the first', { published, pending: changes.length - published });
  return published;
}
