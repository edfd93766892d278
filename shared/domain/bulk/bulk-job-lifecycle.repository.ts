import { type PatchOperation } from '../audit/audit-event';
import { auditWrites } from '../audit/audit-event.repository';
import { keys } from '../../adapters/store/keys';
import { transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import { NO_WELCOMES, type BulkJob, type JobStatus } from './bulk-job.entities';

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
export async function transition(event: JobEvent, job: { orgUuid: string; jobId: string }, change: Change = {}): Promise<boolean> {
  const now = change.now ?? new Date();
  const write = jobWrite(event, job, change, now);
  const { audit }: Transition = lifecycle[event];
  if (!audit) return updateItem(write.Update!);
  const recorded = { orgUuid: job.orgUuid, action: audit, resource: { type: 'BULK_JOB' as const, uuid: job.jobId }, changes: change.changes ?? [], at: now.toISOString() };
  return (await transactWrite([write, ...auditWrites(recorded)])).length === 0;
}
