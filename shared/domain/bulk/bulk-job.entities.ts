import type { AuditContext } from '../audit/audit-context';
import type { ErrorCode, FileProblem } from '../../kernel/errors';
import type { Language } from '../../kernel/messages/languages';

/**
 * A bulk-create job: an item of the table, whose status moves only as the lifecycle below says. Its
 * file and its outcome's details are S3 objects (`bulk-file.repository.ts`).
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

/** What a run has done so far, written whole (a rerun counts again from its start, so nothing is counted twice). */
export interface JobTally {
  counts: BulkJob['counts'];
  processed: number;
}

/** One entry of the bulk error list (docs/api/bulk.md#errors-of-a-bulk-create): the user's e-mail, a message, the line and a stable code. */
export interface BulkError {
  email: string;
  message: string;
  line: number;
  errorCode: ErrorCode;
}
