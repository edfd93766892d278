import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { cloudEventOf } from '../../shared/audit/cloud-event';
import { changeOfRecord, type StreamedChange } from '../../shared/change-events/change-stream';
import { publishChangeEvents } from '../../shared/change-events/event-bus';
import { logger } from '../../shared/logger';
import { count, publishMetrics } from '../../shared/metrics';

/**
 * The outbox's reader (docs/api/events.md): the table's stream, filtered to the audit events every
 * change writes in its own transaction, arrives here in order, shard by shard. Each becomes one
 * CloudEvent put on the EventBridge bus. When an event cannot be published, the answer names its
 * record (`batchItemFailures`), so the stream's poller retries from that record on and nothing after
 * it overtakes it; a thrown error fails the whole batch, which the poller splits and retries, then
 * hands to the dead-letter queue (docs/operations/change-events.md).
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  try {
    const changes = event.Records.flatMap((record): StreamedChange[] => {
      const change = changeOfRecord(record);
      if (!change) logger.warn('stream record that is no audit event: skipped', { eventId: record.eventID, eventName: record.eventName });
      return change ? [change] : [];
    });
    const published = await publishChangeEvents(changes.map(({ orgUuid, event: audit }) => cloudEventOf(orgUuid, audit)));
    count('ChangeEventsPublished', published);
    if (published === changes.length) return { batchItemFailures: [] };
    logger.error('change events not published: the stream retries from the first', { published, pending: changes.length - published });
    return { batchItemFailures: [{ itemIdentifier: changes[published]!.sequenceNumber }] };
  } finally {
    publishMetrics('events');
  }
}
