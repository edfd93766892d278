import { withAuditContext, type AuditContext } from '../audit/audit-context';
import { auditWrites, type PatchOperation } from '../audit/audit-event';
import type { ErrorCode, FileProblem } from '../errors';
import type { Language } from '../mail/mail.templates';
import { keys } from '../store/keys';
import { getItem, transactWrite, updateItem, type TableWrite } from '../store/table';
import { JOB_DAYS } from './bulk-files';

/**
 * A bulk-create job: an item of the table, whose status moves only as the lifecycle below says. Its
 * file and its outcome's details are S3 objects (`bulk-files.ts`).
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
  /** Rows read, users created (or found made by an earlier run of the job) and users failed: live while it runs. */
  counts: { rows: number; created: number; failed: number };
  /**
   * The welcome e-mails of the users created: accepted by SES, waiting in the mail queue, refused.
   * Counted by the worker as it queues them and by the `mail` function as it settles each, also after
   * the job is done, until none is pending.
   */
  welcomes?: WelcomeCounts;
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

export interface WelcomeCounts {
  sent: number;
  pending: number;
  failed: number;
}

export const NO_WELCOMES: WelcomeCounts = { sent: 0, pending: 0, failed: 0 };

export interface WelcomeFailure {
  line: number;
  userUuid: string;
  /** The error's name or code (SES's), never its message. */
  reason: string;
}

/** What a run records when it ends: the users created, or why the file could not be processed. */
export type JobOutcome =
  | { status: 'done'; counts: BulkJob['counts'] }
  | { status: 'failed'; counts: BulkJob['counts']; failure: JobFailure };

/** How long a run holds a job without renewing; it renews every third of this. */
export const LEASE_MS = 60_000;

/** The code of a job the worker could not finish (its retries failed, or its lease lapsed). */
export const WORKER_FAILED = 'BULK_WORKER_FAILED' satisfies ErrorCode;

/** Run `:run` may take the job: no run holds it, its holder stopped renewing, or it is its own. */
const LEASE_FREE = 'attribute_not_exists(lease) OR lease.#until < :epoch OR lease.runId = :run';
const LEASE_HELD = 'lease.runId = :run';
const OUTCOME = 'SET counts = :counts, progress.#processed = progress.#total, updatedAt = :now';

interface Transition {
  /** The states the event applies in, each with what else must hold then ('' nothing); `absent`: no job yet. */
  from: Partial<Record<JobStatus | 'absent', string>>;
  to: JobStatus;
  /** What the write sets besides the status (set whenever the event moves the job), or `PUT` the job whole. */
  write: 'PUT' | `SET ${string}`;
  /** The audit event written in the same transaction. */
  audit?: 'BULK_JOB_STARTED' | 'BULK_JOB_FINISHED';
}

/**
 * The job's lifecycle, one row an event. Each event is one write conditioned on its row's states and
 * guards, so in any other state it changes nothing (and reports false).
 */
const lifecycle = {
  // The request: the job waits for its file, whose upload starts the worker.
  create: { from: { absent: '' }, to: 'queued', write: 'PUT', audit: 'BULK_JOB_STARTED' },
  // The worker: one run at a time holds the job under a lease it renews, until it records the outcome.
  take: { from: { queued: LEASE_FREE, running: LEASE_FREE }, to: 'running', write: 'SET lease = :lease, updatedAt = :now' },
  renew: { from: { running: LEASE_HELD }, to: 'running', write: 'SET lease.#until = :until' },
  start: {
    from: { running: LEASE_HELD },
    to: 'running',
    write: 'SET progress = :progress, counts.#rows = :rows, welcomes = if_not_exists(welcomes, :welcomes), welcomeFailures = if_not_exists(welcomeFailures, :empty), updatedAt = :now',
  },
  // A run lists the welcomes that fail from its start: each one listed before is queued again by it.
  reopen: { from: { running: LEASE_HELD }, to: 'running', write: 'SET welcomeFailures = :empty, welcomes.#failed = :none, updatedAt = :now' },
  tally: { from: { running: LEASE_HELD }, to: 'running', write: 'SET counts = :counts, progress.#processed = :processed, updatedAt = :now' },
  finish: { from: { running: LEASE_HELD }, to: 'done', write: `${OUTCOME} REMOVE lease`, audit: 'BULK_JOB_FINISHED' },
  refuse: { from: { running: LEASE_HELD }, to: 'failed', write: `${OUTCOME}, failure = :failure REMOVE lease`, audit: 'BULK_JOB_FINISHED' },
  // The failure queue, once every attempt of the worker on an upload failed.
  fail: { from: { queued: '', running: '' }, to: 'failed', write: 'SET failure = :failure, updatedAt = :now REMOVE lease', audit: 'BULK_JOB_FINISHED' },
  // A client or the operator: run a job again, or only send the welcomes SES did not accept (`settle` undoes that).
  retry: { from: { failed: 'failure.retryable = :true', running: 'lease.#until < :epoch' }, to: 'queued', write: 'SET updatedAt = :now REMOVE failure, lease' },
  resend: { from: { done: 'size(welcomeFailures) > :none' }, to: 'queued', write: 'SET updatedAt = :now' },
  settle: { from: { queued: '' }, to: 'done', write: 'SET updatedAt = :now' },
} as const satisfies Record<string, Transition>;

export type JobEvent = keyof typeof lifecycle;

interface Change {
  /** The values the event's write names (`:run`, `:counts`, …); the statuses, `:now` and `:epoch` come with every write. */
  values?: Record<string, unknown>;
  /** The job, for `create`. */
  item?: BulkJob & { ttl: number };
  /** The changes its audit event records. */
  changes?: PatchOperation[];
  now?: Date;
}

const constants: Record<string, unknown> = { ':queued': 'queued', ':running': 'running', ':done': 'done', ':failed': 'failed', ':true': true, ':none': 0, ':empty': [], ':welcomes': NO_WELCOMES };
const tokens = (expression: string, sigil: '#' | ':') => [...new Set(expression.match(new RegExp(`${sigil}\\w+`, 'g')))];

/** The conditional write of `event` on a job, naming exactly the attributes and values its expressions use. */
export function jobWrite(event: JobEvent, job: { orgUuid: string; jobId: string }, change: Change = {}, now = new Date()): TableWrite {
  const { from, to, write }: Transition = lifecycle[event];
  const Key = keys.bulkJob(job.orgUuid, job.jobId);
  const guarded = Object.entries(from).map(([state, guard]) => {
    const status = state === 'absent' ? 'attribute_not_exists(PK)' : `#status = :${state}`;
    return guard ? `${status} AND (${guard})` : status;
  });
  const ConditionExpression = guarded.length === 1 ? guarded[0]! : guarded.map((row) => `(${row})`).join(' OR ');
  if (write === 'PUT') return { Put: { Item: { ...Key, type: 'JOB', ...change.item, status: to }, ConditionExpression } };
  const moves = Object.keys(from).some((state) => state !== to);
  const UpdateExpression = moves ? write.replace(/^SET /, 'SET #status = :to, ') : write;
  const both = `${UpdateExpression} ${ConditionExpression}`;
  const given: Record<string, unknown> = { ...constants, ':to': to, ':now': now.toISOString(), ':epoch': now.getTime(), ...change.values };
  const value = (name: string) => {
    if (given[name] === undefined) throw new Error(`The ${event} write of a bulk job needs ${name}`);
    return [name, given[name]];
  };
  return {
    Update: {
      Key,
      UpdateExpression,
      ConditionExpression,
      ExpressionAttributeNames: Object.fromEntries(tokens(both, '#').map((name) => [name, name.slice(1)])),
      ExpressionAttributeValues: Object.fromEntries(tokens(both, ':').map(value)),
    },
  };
}

/** Applies `event` to a job as one conditional write, with its audit event (current cause) in the same transaction; false when the job's state refused it. */
async function transition(event: JobEvent, job: { orgUuid: string; jobId: string }, change: Change = {}): Promise<boolean> {
  const now = change.now ?? new Date();
  const write = jobWrite(event, job, change, now);
  const { audit }: Transition = lifecycle[event];
  if (!audit) return updateItem(write.Update!);
  const recorded = { orgUuid: job.orgUuid, action: audit, resource: { type: 'BULK_JOB' as const, uuid: job.jobId }, changes: change.changes ?? [], at: now.toISOString() };
  return (await transactWrite([write, ...auditWrites(recorded)])).length === 0;
}

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
  const started = { status: lifecycle.create.to, dryRun: job.dryRun, language: job.language };
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

/** What a run has done so far, written whole (a rerun counts again from its start, so nothing is counted twice). */
export interface JobTally {
  counts: BulkJob['counts'];
  processed: number;
}

/** Records a running job's counts so far, if run `runId` still holds it; false when it does not. */
export async function reportTally(orgUuid: string, jobId: string, runId: string, tally: JobTally): Promise<boolean> {
  return transition('tally', { orgUuid, jobId }, { values: { ':run': runId, ':counts': tally.counts, ':processed': tally.processed } });
}

/** Counts welcome e-mails the worker is about to queue as pending (before they are queued, so that no outcome comes first). */
export async function countWelcomesQueued(orgUuid: string, jobId: string, queued: number): Promise<void> {
  await updateItem({
    Key: keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET welcomes.pending = welcomes.pending + :queued, updatedAt = :now',
    ConditionExpression: 'attribute_exists(welcomes)',
    ExpressionAttributeValues: { ':queued': queued, ':now': new Date().toISOString() },
  });
}

/**
 * The write counting a welcome e-mail's outcome on its job, made with the outcome itself: one fewer
 * pending, one more sent, or one more failed and listed.
 */
export function welcomeOutcomeWrite(orgUuid: string, jobId: string, outcome: { sent: true } | { sent: false; failure: WelcomeFailure }, now = new Date()): TableWrite {
  const counted = outcome.sent ? 'welcomes.sent = welcomes.sent + :one' : 'welcomes.failed = welcomes.failed + :one, welcomeFailures = list_append(welcomeFailures, :failure)';
  return {
    Update: {
      Key: keys.bulkJob(orgUuid, jobId),
      UpdateExpression: `SET ${counted}, welcomes.pending = welcomes.pending - :one, updatedAt = :now`,
      ConditionExpression: 'attribute_exists(welcomes) AND attribute_exists(welcomeFailures)',
      ExpressionAttributeValues: { ':one': 1, ':now': now.toISOString(), ...(outcome.sent ? {} : { ':failure': [outcome.failure] }) },
    },
  };
}

/**
 * Takes a user's failed welcome off its job's list, as it is queued again: one fewer failed, one more
 * pending. Conditioned on the list as read, and read again when an outcome changed it meanwhile.
 */
export async function countWelcomeRequeued(orgUuid: string, jobId: string, userUuid: string): Promise<void> {
  for (;;) {
    const job = await getItem<BulkJob>(keys.bulkJob(orgUuid, jobId), { consistent: true });
    const listed = job?.welcomeFailures ?? [];
    if (!job?.welcomes || !listed.some((failure) => failure.userUuid === userUuid)) return countWelcomesQueued(orgUuid, jobId, 1);
    const written = await updateItem({
      Key: keys.bulkJob(orgUuid, jobId),
      UpdateExpression: 'SET welcomeFailures = :rest, welcomes.failed = welcomes.failed - :one, welcomes.pending = welcomes.pending + :one, updatedAt = :now',
      ConditionExpression: 'size(welcomeFailures) = :size',
      ExpressionAttributeValues: {
        ':rest': listed.filter((failure) => failure.userUuid !== userUuid),
        ':one': 1,
        ':size': listed.length,
        ':now': new Date().toISOString(),
      },
    });
    if (written) return;
  }
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
