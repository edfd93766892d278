import type { S3Event } from 'aws-lambda';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { parseUploadKey } from '../../domain/bulk/bulk-file.repository';
import { failJob } from '../../domain/bulk/bulk-job.repository';
import { runBulkCreateJob } from './bulk-create.worker';

/**
 * What Lambda writes to the on-failure destination once an asynchronous invocation has failed its
 * every attempt: the original event is `requestPayload` (here the S3 event of an upload).
 */
export interface AsyncFailureRecord {
  requestContext: { condition: string; approximateInvokeCount: number };
  requestPayload: S3Event;
  responsePayload?: { errorType?: string };
}

/** The job an object key names, as an S3 event carries it (a key outside the upload layout is logged and left alone). */
function uploadOf(eventKey: string): { orgUuid: string; jobId: string } | undefined {
  const key = decodeURIComponent(eventKey.replace(/\+/g, ' '));
  const upload = parseUploadKey(key);
  if (!upload) logger.warn('object outside the upload layout: ignored', { key });
  return upload;
}

/** Runs the job an uploaded object belongs to (S3 and Lambda deliver at least once; a job runs safely twice). */
export async function runUpload(eventKey: string): Promise<void> {
  const upload = uploadOf(eventKey);
  if (upload) await runBulkCreateJob(upload.orgUuid, upload.jobId);
}

/** Marks the jobs of one failed invocation failed (ids and the error's type only reach the log and the job). */
export async function settleFailedUpload(failure: AsyncFailureRecord): Promise<void> {
  const { condition, approximateInvokeCount } = failure.requestContext;
  const errorType = failure.responsePayload?.errorType ?? 'unknown error';
  for (const upload of failure.requestPayload.Records.map((record) => uploadOf(record.s3.object.key))) {
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
