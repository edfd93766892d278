import type { S3EventRecord, SQSRecord } from 'aws-lambda';
import { runUpload, settleFailedUpload, type AsyncFailureRecord } from '../../shared/app/bulk/bulk-upload.worker';
import { eventFunction } from '../../shared/edge/http/event-function';

/**
 * Two triggers, one function. The bulk bucket's object-created events (S3 notifications in AWS,
 * s3rver's events on the local stack) for keys under `uploads/` run the job each upload belongs to;
 * S3 and Lambda deliver at least once, and a job runs safely twice. The failure queue (the
 * destination of uploads whose every attempt failed) marks those jobs failed, retryably, one message
 * after the other, so no job stays `running` and a client polling it learns it ended; a message that
 * cannot be settled goes back to the queue.
 */
export const handler = eventFunction('bulk-worker', {
  s3: (record: S3EventRecord) => runUpload(record.s3.object.key),
  queue: { handle: (record: SQSRecord) => settleFailedUpload(JSON.parse(record.body) as AsyncFailureRecord), failure: 'failed upload not settled', inParallel: false },
});
