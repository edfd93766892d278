import { withAuditContext, type AuditContext } from '../audit/audit-context';
import type { PatchOperation } from '../audit/audit-event';
import { keys } from '../../adapters/store/keys';
import { getItem } from '../../adapters/store/table';
import { JOB_DAYS } from './bulk-file.repository';
import { transition } from './bulk-job-lifecycle.repository';
import { LEASE_MS, NO_WELCOMES, WORKER_FAILED, type BulkJob, type JobFailure, type JobOutcome, type JobStatus, type JobTally } from './bulk-job.entities';

/**
 * What a bulk-create job goes through, each step one event of its lifecycle (`bulk-job-lifecycle.repository.ts`):
 * created by a request, taken, renewed and finished by the worker's runs, failed from the failure
 * queue, queued again by a client or the operator. Its types are `bulk-job.entities.ts`.
 */

// The job these operations read and write, for their callers.
export type { BulkJob };

/** Who a job's changes are attributed to: its stored cause (a job from before causes were stored: its author alone). */
export const causeOfJob = (job: BulkJob): AuditContext => job.cause ?? { actor: { uuid: job.requestedBy, email: null }, requestId: null };

/** What a finished job's event records: its status and, as they ended, its counts and failure. */
function outcomeChanges(outcome: { status: JobStatus; counts?: BulkJob['counts']; failure?: JobFailure }): PatchOperation[] {
  return [
    { op: 'replace', path: '/status', value: outcome.status },
    ...(outcome.counts ? [{ op: 'add' as const, path: '/counts', value: outcome.counts }] : []),
    ...(outcome.failure ? [{ op: 'add' as const, path: '/failure', value: { errorCode: outcome.failure.errorCode, message: outcome.failure.message } }] : []),
  ];
}

/** Records a new job (queued) with its BULK_JOB_STARTED event, attributed to the job's cause. */
export async function createJob(job: BulkJob): Promise<void> {
  const ttl = Math.floor(Date.parse(job.createdAt) / 1000) + JOB_DAYS * 86_400;
  const started = { status: 'queued' as const, dryRun: job.dryRun, language: job.language };
  const changes: PatchOperation[] = [{ op: 'add', path: '', value: started }];
  const item = { welcomes: NO_WELCOMES, welcomeFailures: [], ...job, ttl };
  await withAuditContext(causeOfJob(job), () => transition('create', job, { item, changes, now: new Date(job.createdAt) }));
}

export async function getJob(orgUuid: string, jobId: string): Promise<BulkJob | undefined> {
  return getItem<BulkJob>(keys.bulkJob(orgUuid, jobId));
}

/** Takes the job for run `runId` (and moves it to `running`); false when it finished or another run holds an unexpired lease. */
export async function acquireLease(orgUuid: string, jobId: string, runId: string): Promise<boolean> {
  const now = new Date();
  return transition('take', { orgUuid, jobId }, { values: { ':run': runId, ':lease': { runId, until: now.getTime() + LEASE_MS } }, now });
}

/** Extends this run's lease; false when the run lost the job (it must stop). */
export async function renewLease(orgUuid: string, jobId: string, runId: string): Promise<boolean> {
  return transition('renew', { orgUuid, jobId }, { values: { ':run': runId, ':until': Date.now() + LEASE_MS } });
}

/** Records what the file holds, once the run holding the job has read it. */
export async function startJob(orgUuid: string, jobId: string, runId: string, total: number, rows: number): Promise<boolean> {
  return transition('start', { orgUuid, jobId }, { values: { ':run': runId, ':progress': { processed: 0, total }, ':rows': rows } });
}

/**
 * Empties the job's list of failed welcomes as run `runId` starts: the run queues again every user of
 * the job whose welcome failed (and lists those that fail anew). False when the run lost the job.
 */
export async function reopenWelcomes(orgUuid: string, jobId: string, runId: string): Promise<boolean> {
  return transition('reopen', { orgUuid, jobId }, { values: { ':run': runId } });
}

/** Records a running job's counts so far, if run `runId` still holds it; false when it does not. */
export async function reportTally(orgUuid: string, jobId: string, runId: string, tally: JobTally): Promise<boolean> {
  return transition('tally', { orgUuid, jobId }, { values: { ':run': runId, ':counts': tally.counts, ':processed': tally.processed } });
}

/**
 * Records a job's outcome with its BULK_JOB_FINISHED event (attributed to the current cause: the
 * worker runs as the job's), if run `runId` still holds it; false when it does not.
 */
export async function finishJob(orgUuid: string, jobId: string, runId: string, outcome: JobOutcome): Promise<boolean> {
  const values = { ':run': runId, ':counts': outcome.counts, ...(outcome.status === 'failed' ? { ':failure': outcome.failure } : {}) };
  return transition(outcome.status === 'done' ? 'finish' : 'refuse', { orgUuid, jobId }, { values, changes: outcomeChanges(outcome) });
}

/**
 * Marks a job that has not finished as failed, retryably (the worker's on-failure path, after
 * Lambda's retries), with its BULK_JOB_FINISHED event attributed to the job's cause; false when the
 * job had already finished or does not exist.
 */
export async function failJob(orgUuid: string, jobId: string, message: string): Promise<boolean> {
  const job = await getJob(orgUuid, jobId);
  if (!job) return false;
  const failure: JobFailure = { errorCode: WORKER_FAILED, message, retryable: true };
  const change = { values: { ':failure': failure }, changes: outcomeChanges({ status: 'failed', failure }) };
  return withAuditContext(causeOfJob(job), () => transition('fail', job, change));
}

/** Puts a retryable failed job (or one whose lease lapsed) back in the queue; false when it is not one. */
export async function requeueJob(orgUuid: string, jobId: string): Promise<boolean> {
  return transition('retry', { orgUuid, jobId });
}

/**
 * Puts a finished job with welcome e-mails SES did not accept back in the queue: its next run finds
 * every user created and sends the welcomes still missing (with new passwords when the file gave
 * none). False when the job is not one.
 */
export async function requeueWelcomes(orgUuid: string, jobId: string): Promise<boolean> {
  return transition('resend', { orgUuid, jobId });
}

/** Puts a job queued for its welcomes back to `done`, if no run took it meanwhile. */
export async function settleQueued(orgUuid: string, jobId: string): Promise<boolean> {
  return transition('settle', { orgUuid, jobId });
}
