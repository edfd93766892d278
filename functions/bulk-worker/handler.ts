import type { S3Event, S3EventRecord, SQSRecord } from 'aws-lambda';
import { runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';
import { parseUploadKey } from '../../shared/app/bulk/bulk-files';
import { failJob } from '../../shared/app/bulk/bulk-job';
import { eventFunction } from '../../shared/edge/http/event-function';
import { logger } from '../../shared/kernel/logger';
import { count } from '../../shared/kernel/metrics';

/**
 * What Lambda writes to the on-failure destination once an asynchronous invocation has failed its
 * every attempt: the original event is `requestPayload` (here the S3 event of an upload).
 */
export interface AsyncFailureRecord {
  requestContext: { condition: string; approximateInvokeCount: number };
  requestPayload: S3Event;
  responsePayload?: { errorType?: string };
}

/**
 * Two triggers, one function. The bulk bucket's object-created events (S3 notifications in AWS,
 * s3rver's events on the local stack) for keys under `uploads/` run the job each upload belongs to;
 * S3 and Lambda deliver at least once, and a job runs safely twice. The failure queue (the
 * destination of uploads whose every attempt failed) marks those jobs failed, retryably, one message
 * after the other, so no job stays `running` and a client polling it learns it ended; a message that
 * cannot be settled goes back to the queue.
 */
export const handler = eventFunction('bulk-worker', {
  s3: async (record: S3EventRecord) => {
    const upload = uploadOf(record);
    if (upload) await runBulkCreateJob(upload.orgUuid, upload.jobId);
  },
  queue: { handle: (record: SQSRecord) => settleFailure(JSON.parse(record.body) as AsyncFailureRecord), failure: 'failed upload not settled', inParallel: false },
});

/** The job an S3 record's key names (a key outside the upload layout is logged and left alone). */
function uploadOf(record: S3EventRecord): { orgUuid: string; jobId: string } | undefined {
  const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
  const upload = parseUploadKey(key);
  if (!upload) logger.warn('object outside the upload layout: ignored', { key });
  return upload;
}

/** Marks the jobs of one failed invocation failed (ids and the error's type only reach the log and the job). */
export async function settleFailure(failure: AsyncFailureRecord): Promise<void> {
  const { condition, approximateInvokeCount } = failure.requestContext;
  const errorType = failure.responsePayload?.errorType ?? 'unknown error';
  for (const upload of failure.requestPayload.Records.map(uploadOf)) {
    if (!upload) continue;
    const { orgUuid, jobId } = upload;
    const message =
      condition === 'EventAgeExceeded'
        ? 'The import could not start in time; retry the job to run it again'
        : `The import failed ${approximateInvokeCount} times; retry the job to run it again`;
    const marked = await failJob(orgUuid, jobId, message);
    if (marked) count('BulkJobsFailed');
    logger.warn(marked ? 'bulk job failed in the worker' : 'failed upload of a job already finished', {
      orgUuid,
      jobId,
      condition,
      attempts: approximateInvokeCount,
      errorType,
    });
  }
}
