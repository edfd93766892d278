import type { S3Event, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runBulkCreateJob } from '../../shared/bulk/bulk-create.worker';
import { parseUploadKey } from '../../shared/bulk/bulk-files';
import { failJob } from '../../shared/bulk/bulk-job';
import { logger } from '../../shared/logger';
import { count, publishMetrics } from '../../shared/metrics';

/**
 * What Lambda writes to the on-failure destination once an asynchronous invocation has failed its
 * every attempt: the original event is `requestPayload` (here the S3 event of an upload).
 */
export interface AsyncFailureRecord {
  requestContext: { condition: string; approximateInvokeCount: number };
  requestPayload: S3Event;
  responsePayload?: { errorType?: string };
}

const isSqsEvent = (event: S3Event | SQSEvent): event is SQSEvent => event.Records.some((record) => 'body' in record);

/** The jobs an S3 event's records name (keys outside the upload layout are logged and left alone). */
function uploadsOf(event: S3Event): { orgUuid: string; jobId: string }[] {
  return event.Records.flatMap((record) => {
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const upload = parseUploadKey(key);
    if (!upload) logger.warn('object outside the upload layout: ignored', { key });
    return upload ? [upload] : [];
  });
}

/**
 * Two triggers, one function. The bulk bucket's object-created events (S3 notifications in AWS,
 * s3rver's events on the local stack) for keys under `uploads/` run the job each upload belongs to;
 * S3 and Lambda deliver at least once, and a job runs safely twice. The failure queue (the
 * destination of uploads whose every attempt failed) marks those jobs failed, retryably, so no job
 * stays `running` and a client polling it learns it ended.
 */
export async function handler(event: S3Event | SQSEvent): Promise<SQSBatchResponse | void> {
  try {
    if (isSqsEvent(event)) return await settleFailures(event);
    for (const { orgUuid, jobId } of uploadsOf(event)) await runBulkCreateJob(orgUuid, jobId);
  } finally {
    publishMetrics('bulk-worker');
  }
}

/** Marks the job of each failed upload failed; a record that cannot be settled goes back to the queue. */
async function settleFailures(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await settleFailure(JSON.parse(record.body) as AsyncFailureRecord);
    } catch (error) {
      logger.error('failed upload not settled', { messageId: record.messageId, errorType: (error as Error).name });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

/** Marks the jobs of one failed invocation failed (ids and the error's type only reach the log and the job). */
export async function settleFailure(failure: AsyncFailureRecord): Promise<void> {
  const { condition, approximateInvokeCount } = failure.requestContext;
  const errorType = failure.responsePayload?.errorType ?? 'unknown error';
  for (const { orgUuid, jobId } of uploadsOf(failure.requestPayload)) {
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
