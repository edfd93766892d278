import { randomUUID } from 'node:crypto';
import { auditContext } from '../../domain/audit/audit-context';
import { ConflictError, fileRefused, NotFoundError, ValidationError, type ErrorCode } from '../../kernel/errors';
import type { Language } from '../../kernel/messages/languages';
import { sleep } from '../../kernel/retry';
import { count } from '../../kernel/metrics';
import type { OrgScope } from '../../domain/users/org-scope';
import type { BulkError } from './bulk-create.rules';
import { JOB_DAYS, readErrors, readFailedRows, restartUpload, saveUpload, uploadForm, type UploadForm } from '../../domain/bulk/bulk-file.repository';
import { createJob, failJob, getJob, requeueJob, requeueWelcomes, settleQueued } from '../../domain/bulk/bulk-job.repository';
import { NO_WELCOMES, type BulkJob, type WelcomeCounts } from '../../domain/bulk/bulk-job.entities';
import { effectiveJob } from './bulk-job-view';
import { requireWithin, type UploadedFile } from './csv-file';
import { bulkCreateLimits, MULTIPART_MAX_BYTES, SYNC_WAIT_MS, UPLOAD_URL_SECONDS } from './bulk.limits';

/** The job the operations below read and answer, for their callers. */
export type { BulkJob };

/**
 * The HTTP side of bulk-create jobs (docs/api/bulk.md#jobs): each takes the scope of an ADMIN of the path's
 * organization (`authorizeOrgAdmin`, with `BULK_ADMIN_ONLY` as its refusal).
 */

/** Why a user who is not an ADMIN is refused every bulk operation. */
export const BULK_ADMIN_ONLY = 'Only an ADMIN runs bulk operations';



/**
 * Bulk-create with the file in the request: records the job and stores its file under the bulk
 * bucket's upload prefix (the object's creation event starts the worker, in AWS and on the local
 * stack alike), then, with `wait`, waits for the worker up to `SYNC_WAIT_MS`. Returns the job as last
 * seen. A file refused whole throws its refusal; a finished job that created nobody throws
 * `NO_USER_CREATED` with its error list. A worker failure is not the file's: that job (failed,
 * retryable) comes back as one not done.
 */
export async function bulkCreate(scope: OrgScope, file: UploadedFile, options: { language: Language; dryRun: boolean; wait: boolean }): Promise<JobView> {
  requireWithin(
    file,
    MULTIPART_MAX_BYTES,
    `The file is larger than ${MULTIPART_MAX_BYTES / 1024 / 1024} MiB (${MULTIPART_MAX_BYTES} bytes), the most a request body carries: upload it with POST /users/bulk-uploads`,
  );
  const job = newJob(scope, options);
  await createJob(job);
  count('BulkJobsAccepted');
  await saveUpload(scope.orgUuid, job.jobId, file.content);
  const seen = options.wait ? await awaitJob(scope.orgUuid, job.jobId, Date.now() + SYNC_WAIT_MS) : job;
  if (seen.status === 'failed' && seen.failure && !seen.failure.retryable) throw fileRefused(seen.failure.errorCode, seen.failure.message);
  const view = await jobView(seen);
  if (seen.status === 'done' && seen.counts.created === 0) {
    const details = (view.errors ?? []).map((error) => ({ fieldName: error.email, ...error }));
    throw new ValidationError({ details, code: 'NO_USER_CREATED' });
  }
  return view;
}


/** A job's upload form, the largest file S3 takes through it, and until when it does. */
export interface JobUpload extends UploadForm {
  maxBytes: number;
  expiresAt: string;
}

/**
 * Records a bulk-create job whose file the client uploads itself, straight to the bulk bucket, with a
 * presigned POST (for files over the 4 MiB a request body carries, up to the worker's 50 MiB, or
 * clients that cannot send multipart). The object's creation starts the worker as for any upload.
 */
export async function createUploadJob(scope: OrgScope, options: { language: Language; dryRun: boolean }): Promise<{ job: BulkJob; upload: JobUpload }> {
  const job = newJob(scope, options);
  await createJob(job);
  count('BulkJobsAccepted');
  const maxBytes = bulkCreateLimits.maxBytes;
  const form = await uploadForm(scope.orgUuid, job.jobId, { seconds: UPLOAD_URL_SECONDS, maxBytes });
  return { job, upload: { ...form, maxBytes, expiresAt: new Date(Date.now() + UPLOAD_URL_SECONDS * 1000).toISOString() } };
}

function newJob(scope: OrgScope, options: { language: Language; dryRun: boolean }): BulkJob {
  const now = new Date().toISOString();
  return {
    jobId: randomUUID(),
    orgUuid: scope.orgUuid,
    requestedBy: scope.caller.uuid,
    // The request creating the job: its author and request id are the cause of all the job does.
    cause: auditContext(),
    language: options.language,
    dryRun: options.dryRun,
    status: 'queued',
    counts: { rows: 0, created: 0, failed: 0 },
    progress: { processed: 0, total: 0 },
    createdAt: now,
    updatedAt: now,
  };
}

/** Waits for a job to finish, polling its item, until `deadline` (epoch ms); returns it as last seen. */
async function awaitJob(orgUuid: string, jobId: string, deadline: number): Promise<BulkJob> {
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    const job = effectiveJob((await getJob(orgUuid, jobId))!);
    if (job.status === 'done' || job.status === 'failed' || Date.now() + wait > deadline) return job;
    await sleep(wait);
  }
}

export interface JobView {
  jobId: string;
  status: BulkJob['status'];
  dryRun: boolean;
  counts: BulkJob['counts'];
  welcomes: WelcomeCounts;
  progress: BulkJob['progress'] & { percent: number };
  createdAt: string;
  updatedAt: string;
  /** When done: the bulk error list. */
  errors?: BulkError[];
  /** When the whole file was refused, or the worker failed. */
  failure?: { errorCode: ErrorCode; message: string };
  /** Users created whose welcome e-mail SES did not accept (`POST …/welcomes` sends them again). */
  welcomeFailures?: BulkJob['welcomeFailures'];
}

export async function jobView(job: BulkJob): Promise<JobView> {
  const { processed, total } = job.progress;
  return {
    jobId: job.jobId,
    status: job.status,
    dryRun: job.dryRun,
    counts: job.counts,
    welcomes: job.welcomes ?? NO_WELCOMES,
    progress: { processed, total, percent: total === 0 ? (job.status === 'done' ? 100 : 0) : Math.floor((processed / total) * 100) },
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(job.status === 'done' ? { errors: await readErrors(job.orgUuid, job.jobId) } : {}),
    ...(job.failure ? { failure: { errorCode: job.failure.errorCode, message: job.failure.message } } : {}),
    ...(job.welcomeFailures?.length ? { welcomeFailures: [...job.welcomeFailures].sort((a, b) => a.line - b.line) } : {}),
  };
}

export async function readJob(scope: OrgScope, jobId: string): Promise<BulkJob> {
  const job = await getJob(scope.orgUuid, jobId);
  if (!job) throw new NotFoundError('The bulk job was not found');
  return effectiveJob(job);
}

/**
 * Runs a job the worker could not finish again, from its uploaded file (kept as long as the job): the
 * job goes back to `queued` and the upload's object-created event starts the worker, as the upload did.
 * Rows already done are found done (a job runs safely twice). Any other job is a 409.
 */
export async function retryJob(scope: OrgScope, jobId: string): Promise<BulkJob> {
  const { orgUuid } = scope;
  const job = await readJob(scope, jobId);
  if (!job.failure?.retryable || !(await requeueJob(orgUuid, jobId))) {
    throw new ConflictError('Only a job whose worker failed can be retried; this one is ' + job.status);
  }
  return startAgain(orgUuid, jobId, () => failJob(orgUuid, jobId, 'The import could not be started again; retry the job'));
}

/**
 * Sends again the welcome e-mails of a finished job that SES did not accept: the job goes back to
 * `queued` and its upload starts the worker, which finds every user created and welcomes those not
 * welcomed yet (new passwords where the file gave none). A job without such failures is a 409.
 */
export async function resendWelcomes(scope: OrgScope, jobId: string): Promise<BulkJob> {
  await readJob(scope, jobId);
  return requeueWelcomesOf(scope.orgUuid, jobId);
}

/** `resendWelcomes` without a scope: the operator CLI's. */
export async function requeueWelcomesOf(orgUuid: string, jobId: string): Promise<BulkJob> {
  if (!(await requeueWelcomes(orgUuid, jobId))) {
    throw new ConflictError('The job has no welcome e-mail to send again (or it has not finished)');
  }
  return startAgain(orgUuid, jobId, () => settleQueued(orgUuid, jobId));
}

/**
 * Starts the worker on a job just queued again, by copying its upload onto itself, and returns the
 * job as queued (read first: the worker may take it at once). When the copy fails (S3, or an upload
 * the bucket's lifecycle removed), `undo` puts the job back as it was, so it never waits in the queue
 * for a run that will not come.
 */
async function startAgain(orgUuid: string, jobId: string, undo: () => Promise<unknown>): Promise<BulkJob> {
  const queued = (await getJob(orgUuid, jobId))!;
  try {
    await restartUpload(orgUuid, jobId);
  } catch (error) {
    await undo();
    if ((error as { name?: string }).name === 'NoSuchKey') {
      throw new ConflictError(`The job's file is no longer kept (uploads expire after ${JOB_DAYS} days): upload it again`);
    }
    throw error;
  }
  return queued;
}

/** A finished job's failed rows as CSV (header plus `Error`), or only the header when none failed. */
export async function failedRows(scope: OrgScope, jobId: string): Promise<string> {
  const job = await readJob(scope, jobId);
  if (job.status !== 'done') throw new NotFoundError('The job has not finished: it has no failed rows yet');
  return (await readFailedRows(scope.orgUuid, jobId)) ?? 'Email,Name,Company,Password,Role,EnvironmentUuid,EnvironmentName,Bot,Error\r\n';
}
