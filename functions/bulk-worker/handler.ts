import type { S3Event } from 'aws-lambda';
import { runBulkCreateJob } from '../../shared/bulk/bulk-create.worker';
import { parseUploadKey } from '../../shared/bulk/bulk-job';
import { logger } from '../../shared/logger';

/**
 * Started by the bulk bucket's object-created events (S3 notifications in AWS, s3rver's events on the
 * local stack) for keys under `uploads/`: runs the job each upload belongs to. S3 and Lambda deliver
 * at least once; a job runs safely twice.
 */
export async function handler(event: S3Event): Promise<void> {
  for (const record of event.Records) {
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    const upload = parseUploadKey(key);
    if (!upload) {
      logger.warn('object outside the upload layout: ignored', { key });
      continue;
    }
    await runBulkCreateJob(upload.orgUuid, upload.jobId);
  }
}
