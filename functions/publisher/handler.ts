import type { Context } from 'aws-lambda';
import { changeOf, publishChanges } from '../../shared/app/change-events/change-publication';
import { sweepDeliveries } from '../../shared/app/webhooks/delivery-engine';
import { eventFunction } from '../../shared/edge/http/event-function';

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
  stream: { collect: changeOf, flush: publishChanges },
  schedule: (context: Context) => sweepDeliveries(() => context.getRemainingTimeInMillis()),
});
