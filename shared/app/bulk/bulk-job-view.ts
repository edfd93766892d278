import { WORKER_FAILED, type BulkJob } from '../../domain/bulk/bulk-job.entities';

/**
 * The job as a client sees it: a `running` job whose lease lapsed (no run has renewed it for a whole
 * lease) reads as failed and retryable, since nothing may ever pick it up again. A later delivery
 * that takes the job over moves it back to running.
 */
export function effectiveJob(job: BulkJob, now = Date.now()): BulkJob {
  if (job.status !== 'running' || !job.lease || job.lease.until >= now) return job;
  return {
    ...job,
    status: 'failed',
    failure: {
      errorCode: WORKER_FAILED,
      message: 'The import stopped without finishing (its worker stopped renewing the job); retry the job to run it again',
      retryable: true,
    },
  };
}
