import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { cloudEventOf } from '../../shared/audit/cloud-event';
import { eventTypeOfAction } from '../../shared/audit/event-types';
import { changeOfRecord, type StreamedChange } from '../../shared/change-events/change-stream';
import { publishChangeEvents } from '../../shared/change-events/event-bus';
import { logger } from '../../shared/logger';
import { count, publishMetrics } from '../../shared/metrics';
import { sweepDeliveries } from '../../shared/webhooks/delivery-engine';
import { enqueueChanges } from '../../shared/webhooks/delivery-schedule';
import { DELIVERY_TIMEOUT_MS } from '../../shared/webhooks/outbound-http';

/**
 * Two triggers, one function (docs/api/events.md). The table's stream, filtered to the audit events
 * every change writes in its own transaction, arrives in order, shard by shard: each becomes one
 * CloudEvent put on the EventBridge bus, then a delivery for each webhook subscription that wants it.
 * When an event cannot be published, the answer names its record (`batchItemFailures`), so the
 * stream's poller retries from that record on and nothing after it overtakes it; a thrown error fails
 * the whole batch, which the poller splits and retries, then hands to the dead-letter queue
 * (docs/operations/change-events.md). A schedule starts the sweep that sends the due webhook deliveries.
 */
export async function handler(event: DynamoDBStreamEvent | ScheduledEvent | { sweep: 'webhooks' }, context: Context): Promise<DynamoDBBatchResponse | void> {
  try {
    if (!('Records' in event)) return void (await sweepDeliveries(Date.now() + context.getRemainingTimeInMillis() - DELIVERY_TIMEOUT_MS - SWEEP_MARGIN_MS));
    return await publish(event);
  } finally {
    publishMetrics('events');
  }
}

/** What a sweep leaves of the invocation: the last attempts' time limit and this, for the writes after them. */
const SWEEP_MARGIN_MS = 5_000;

async function publish(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = event.Records.flatMap((record): StreamedChange[] => {
    const change = changeOfRecord(record);
    if (!change) logger.warn('stream record that is no audit event: skipped', { eventId: record.eventID, eventName: record.eventName });
    return change ? [change] : [];
  });
  const events = changes.map(({ orgUuid, event: audit }) => ({ orgUuid, event: cloudEventOf(orgUuid, audit), shortType: eventTypeOfAction[audit.action] }));
  const published = await publishChangeEvents(events.map(({ event: cloudEvent }) => cloudEvent));
  count('ChangeEventsPublished', published);
  await enqueueChanges(events.slice(0, published));
  if (published === changes.length) return { batchItemFailures: [] };
  logger.error('change events not published: the stream retries from the first', { published, pending: changes.length - published });
  return { batchItemFailures: [{ itemIdentifier: changes[published]!.sequenceNumber }] };
}
