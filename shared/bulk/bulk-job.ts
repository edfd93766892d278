import { CopyObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { withAuditContext, type AuditContext } from '../audit/audit-context';
import { auditWrites, type PatchOperation } from '../audit/audit-event';
import { s3Client } from '../clients/s3';
import { config, ConfigError, envNames } from '../config';
import type { ErrorCode, FileProblem } from '../errors';
import type { Language } from '../mail/mail.templates';
import { keys } from '../store/keys';
import { getItem, transactWrite, updateItem, type TableWrite } from '../store/table';
import type { BulkError } from './bulk-create.rules';

/**
 * A bulk-create job: the uploaded file is an S3 object under `uploads/`, the job an item of the table,
 * the outcome (the error list and the failed rows as CSV) S3 objects under `results/`.
 */
export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

/**
 * Why a whole job failed: the file could not be processed (its problem and message), or the worker
 * failed after its retries (`retryable`: the same file may be run again).
 */
export type JobFailure =
  | { errorCode: FileProblem; message: string; retryable?: false }
  | { errorCode: typeof WORKER_FAILED; message: string; retryable: true };

export interface BulkJob {
  jobId: string;
  orgUuid: string;
  /** The ADMIN who asked for it. */
  requestedBy: string;
  /**
   * The cause of the job's changes (audit events): its author and the id of the request that created
   * it. The worker makes every change of the job (the users it creates, its outcome) on its behalf.
   */
  cause?: AuditContext;
  language: Language;
  dryRun: boolean;
  status: JobStatus;
  counts: { rows: number; created: number; failed: number };
  /**
   * Users the job created whose welcome e-mail SES did not accept (ids only, never an address): they
   * can sign in only once it is sent again (`POST …/bulk-jobs/{jobId}/welcomes`, or the operator CLI).
   */
  welcomeFailures?: WelcomeFailure[];
  /** Users handled so far out of those the file asks for. */
  progress: { processed: number; total: number };
  /** Why a whole job failed (items written before failures had codes only may also hold a `status`: never read). */
  failure?: JobFailure;
  createdAt: string;
  updatedAt: string;
  /** Epoch seconds after which the table's TTL removes the job. */
  ttl?: number;
  /** The run working on the job, until when (epoch ms) unless it renews: one run at a time. */
  lease?: { runId: string; until: number };
}

export interface WelcomeFailure {
  line: number;
  userUuid: string;
  /** The error's name or code (SES's), never its message. */
  reason: string;
}

/** How long a run holds a job without renewing; it renews every third of this. */
export const LEASE_MS = 60_000;

/** Uploaded files and results live as long as the bucket's lifecycle keeps them. */
export const JOB_DAYS = 7;

export const uploadKey = (orgUuid: string, jobId: string) => `uploads/${orgUuid}/${jobId}.csv`;
export const resultKey = (orgUuid: string, jobId: string) => `results/${orgUuid}/${jobId}/errors.json`;
export const failedRowsKey = (orgUuid: string, jobId: string) => `results/${orgUuid}/${jobId}/failed-rows.csv`;

/** The organization and job an upload key names, or undefined for any other key. */
export function parseUploadKey(key: string): { orgUuid: string; jobId: string } | undefined {
  const match = /^uploads\/([0-9a-f-]{36})\/([0-9a-f-]{36})\.csv$/.exec(key);
  return match ? { orgUuid: match[1]!, jobId: match[2]! } : undefined;
}

function bucket(): string {
  const name = config().bulkBucket;
  if (!name) throw new ConfigError(`Missing environment variable ${envNames.bulkBucket}`);
  return name;
}

/** Who a job's changes are attributed to: its stored cause (a job from before causes were stored: its author alone). */
export const causeOfJob = (job: BulkJob): AuditContext => job.cause ?? { actor: { uuid: job.requestedBy, email: null }, requestId: null };

/** The audit event of a job's status change, attributed to the current cause (`withAuditContext`). */
function jobAudit(orgUuid: string, jobId: string, action: 'BULK_JOB_STARTED' | 'BULK_JOB_FINISHED', changes: PatchOperation[], at: string): TableWrite[] {
  return auditWrites({ orgUuid, action, resource: { type: 'BULK_JOB', uuid: jobId }, changes, at });
}

/** What a finished job's event records: its status and, as they ended, its counts and failure. */
function outcomeChanges(outcome: { status: JobStatus; counts?: BulkJob['counts']; failure?: JobFailure; welcomeFailures?: WelcomeFailure[] }): PatchOperation[] {
  return [
    { op: 'replace', path: '/status', value: outcome.status },
    ...(outcome.counts ? [{ op: 'add' as const, path: '/counts', value: outcome.counts }] : []),
    ...(outcome.failure ? [{ op: 'add' as const, path: '/failure', value: { errorCode: outcome.failure.errorCode, message: outcome.failure.message } }] : []),
    ...(outcome.welcomeFailures?.length ? [{ op: 'add' as const, path: '/welcomeFailures', value: outcome.welcomeFailures.length }] : []),
  ];
}

/** Records a new job with its BULK_JOB_STARTED event (one transaction), attributed to the job's cause. */
export async function createJob(job: BulkJob): Promise<void> {
  const ttl = Math.floor(Date.parse(job.createdAt) / 1000) + JOB_DAYS * 86_400;
  const started = { status: job.status, dryRun: job.dryRun, language: job.language };
  await withAuditContext(causeOfJob(job), () =>
    transactWrite([
      { Put: { Item: { ...keys.bulkJob(job.orgUuid, job.jobId), type: 'JOB', ...job, ttl }, ConditionExpression: 'attribute_not_exists(PK)' } },
      ...jobAudit(job.orgUuid, job.jobId, 'BULK_JOB_STARTED', [{ op: 'add', path: '', value: started }], job.createdAt),
    ]),
  );
}

export async function getJob(orgUuid: string, jobId: string): Promise<BulkJob | undefined> {
  return getItem<BulkJob>(keys.bulkJob(orgUuid, jobId));
}

/**
 * Takes the job for run `runId` (and moves it to `running`) unless it is finished or another run holds
 * a lease that has not expired; false then.
 */
export async function acquireLease(orgUuid: string, jobId: string, runId: string): Promise<boolean> {
  const now = Date.now();
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET #status = :running, lease = :lease, updatedAt = :now',
    ConditionExpression:
      'attribute_exists(PK) AND (#status = :queued OR #status = :running) AND (attribute_not_exists(lease) OR lease.#until < :epoch OR lease.runId = :run)',
    ExpressionAttributeNames: { '#status': 'status', '#until': 'until' },
    ExpressionAttributeValues: {
      ':running': 'running',
      ':queued': 'queued',
      ':lease': { runId, until: now + LEASE_MS },
      ':epoch': now,
      ':run': runId,
      ':now': new Date(now).toISOString(),
    },
  });
}

/** Extends this run's lease; false when the run lost the job (it must stop). */
export async function renewLease(orgUuid: string, jobId: string, runId: string): Promise<boolean> {
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET lease.#until = :until',
    ConditionExpression: 'lease.runId = :run AND #status = :running',
    ExpressionAttributeNames: { '#status': 'status', '#until': 'until' },
    ExpressionAttributeValues: { ':until': Date.now() + LEASE_MS, ':run': runId, ':running': 'running' },
  });
}

/** Records what the file holds, once the run holding the job has read it. */
export async function startJob(orgUuid: string, jobId: string, runId: string, total: number, rows: number): Promise<boolean> {
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET progress = :progress, counts.#rows = :rows, updatedAt = :now',
    ConditionExpression: 'lease.runId = :run AND #status = :running',
    ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows' },
    ExpressionAttributeValues: {
      ':running': 'running',
      ':run': runId,
      ':progress': { processed: 0, total },
      ':rows': rows,
      ':now': new Date().toISOString(),
    },
  });
}

export async function reportProgress(orgUuid: string, jobId: string, processed: number): Promise<void> {
  await updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET progress.#processed = :processed, updatedAt = :now',
    ConditionExpression: '#status = :running AND progress.#processed < :processed',
    ExpressionAttributeNames: { '#status': 'status', '#processed': 'processed' },
    ExpressionAttributeValues: { ':processed': processed, ':running': 'running', ':now': new Date().toISOString() },
  });
}

/**
 * Records a job's outcome with its BULK_JOB_FINISHED event (one transaction, attributed to the
 * current cause: the worker runs as the job's), if run `runId` still holds it; false when it does not.
 */
export async function finishJob(
  orgUuid: string,
  jobId: string,
  runId: string,
  outcome: Pick<BulkJob, 'status' | 'counts'> & { failure?: JobFailure; welcomeFailures?: WelcomeFailure[] },
): Promise<boolean> {
  const now = new Date().toISOString();
  const failed = await transactWrite([{ Update: finishUpdate(orgUuid, jobId, runId, outcome, now) }, ...jobAudit(orgUuid, jobId, 'BULK_JOB_FINISHED', outcomeChanges(outcome), now)]);
  return failed.length === 0;
}

function finishUpdate(
  orgUuid: string,
  jobId: string,
  runId: string,
  outcome: Pick<BulkJob, 'status' | 'counts'> & { failure?: JobFailure; welcomeFailures?: WelcomeFailure[] },
  now: string,
): NonNullable<TableWrite['Update']> {
  return {
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: `SET #status = :status, counts = :counts, welcomeFailures = :welcomes, progress.#processed = progress.#total, updatedAt = :now${outcome.failure ? ', failure = :failure' : ''} REMOVE lease`,
    ConditionExpression: 'lease.runId = :run AND #status = :running',
    ExpressionAttributeNames: { '#status': 'status', '#total': 'total', '#processed': 'processed' },
    ExpressionAttributeValues: {
      ':run': runId,
      ':running': 'running',
      ':status': outcome.status,
      ':counts': outcome.counts,
      ':welcomes': outcome.welcomeFailures ?? [],
      ':now': now,
      ...(outcome.failure ? { ':failure': outcome.failure } : {}),
    },
  };
}

/** The code of a job the worker could not finish (its retries failed, or its lease lapsed). */
export const WORKER_FAILED = 'BULK_WORKER_FAILED' satisfies ErrorCode;

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

/**
 * Marks a job that has not finished as failed, retryably (the worker's on-failure path, after
 * Lambda's retries), with its BULK_JOB_FINISHED event attributed to the job's cause; false when the
 * job had already finished or does not exist.
 */
export async function failJob(orgUuid: string, jobId: string, message: string): Promise<boolean> {
  const job = await getJob(orgUuid, jobId);
  if (!job) return false;
  const failure: JobFailure = { errorCode: WORKER_FAILED, message, retryable: true };
  const now = new Date().toISOString();
  const failed = await withAuditContext(causeOfJob(job), () =>
    transactWrite([
      {
        Update: {
          Key: keys.bulkJob(orgUuid, jobId),
          UpdateExpression: 'SET #status = :failed, failure = :failure, updatedAt = :now REMOVE lease',
          ConditionExpression: 'attribute_exists(PK) AND (#status = :queued OR #status = :running)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failed': 'failed', ':queued': 'queued', ':running': 'running', ':failure': failure, ':now': now },
        },
      },
      ...jobAudit(orgUuid, jobId, 'BULK_JOB_FINISHED', outcomeChanges({ status: 'failed', failure }), now),
    ]),
  );
  return failed.length === 0;
}

/**
 * Puts a retryable failed job (or one whose lease lapsed) back in the queue; false when it is not
 * one (it finished, failed on its file, or a run holds it).
 */
export async function requeueJob(orgUuid: string, jobId: string): Promise<boolean> {
  const now = Date.now();
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET #status = :queued, updatedAt = :now REMOVE failure, lease',
    ConditionExpression:
      '(#status = :failed AND failure.retryable = :true) OR (#status = :running AND lease.#until < :epoch)',
    ExpressionAttributeNames: { '#status': 'status', '#until': 'until' },
    ExpressionAttributeValues: { ':queued': 'queued', ':failed': 'failed', ':running': 'running', ':true': true, ':epoch': now, ':now': new Date(now).toISOString() },
  });
}

/**
 * Puts a finished job with welcome e-mails SES did not accept back in the queue: its next run finds
 * every user created and sends the welcomes still missing (with new passwords when the file gave
 * none). False when the job is not one.
 */
export async function requeueWelcomes(orgUuid: string, jobId: string): Promise<boolean> {
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET #status = :queued, updatedAt = :now',
    ConditionExpression: '#status = :done AND size(welcomeFailures) > :none',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':queued': 'queued', ':done': 'done', ':none': 0, ':now': new Date().toISOString() },
  });
}

/** Puts a job queued for its welcomes back to `done`, if no run took it meanwhile. */
export async function settleQueued(orgUuid: string, jobId: string): Promise<boolean> {
  return updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET #status = :done, updatedAt = :now',
    ConditionExpression: '#status = :queued',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':done': 'done', ':queued': 'queued', ':now': new Date().toISOString() },
  });
}

/** Starts the worker on an upload again: S3 copies the object onto itself, an object-created event as the upload's. */
export async function touchObject(key: string): Promise<void> {
  const Bucket = bucket();
  await s3Client().send(
    new CopyObjectCommand({
      Bucket,
      Key: key,
      CopySource: `${Bucket}/${key}`,
      MetadataDirective: 'REPLACE',
      ContentType: 'text/csv',
      Metadata: { retried: new Date().toISOString() },
    }),
  );
}

/** A URL that lets its holder PUT one object, for `seconds`. */
export async function presignedPut(key: string, seconds: number): Promise<string> {
  return getSignedUrl(s3Client(), new PutObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: seconds });
}

export async function putObject(key: string, body: Buffer | string, contentType: string): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
}

/** An object's content as a stream (the CSV is read as it arrives, never whole). */
export async function objectStream(key: string): Promise<Readable> {
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Body as Readable;
}

export async function objectText(key: string): Promise<string | undefined> {
  try {
    const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return await Body!.transformToString('utf8');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export async function saveErrors(orgUuid: string, jobId: string, errors: BulkError[]): Promise<void> {
  await putObject(resultKey(orgUuid, jobId), JSON.stringify(errors), 'application/json');
}

export async function readErrors(orgUuid: string, jobId: string): Promise<BulkError[]> {
  const text = await objectText(resultKey(orgUuid, jobId));
  return text ? (JSON.parse(text) as BulkError[]) : [];
}
