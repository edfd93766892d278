import { createHash, randomUUID } from 'node:crypto';
import { withAuditContext } from '../audit/audit-context';
import { mailSettings } from '../config';
import { rateLimited, sendRateBucket, type TokenBucket } from '../mail/send-rate';
import { ConflictError, fileProblemOf } from '../errors';
import { logger } from '../logger';
import { count } from '../metrics';
import { getOrganization } from '../org/org.repository';
import type { UserRecord } from '../users/user.entities';
import { generatePassword } from '../identity/password-policy';
import { sendWelcome, signInAddress, type MailContext } from '../users/user-mail';
import { userPorts, type UserPorts } from '../users/user-ports';
import { findUserByEmail, getEmailClaim, getUser, markWelcomed } from '../users/user.repository';
import { registerUser } from '../users/user-registration';
import { bulkCreateLayout, BulkCreatePlan, bulkError, eachLimited, type BulkError, type Candidate } from './bulk-create.rules';
import {
  acquireLease,
  causeOfJob,
  failedRowsKey,
  finishJob,
  getJob,
  LEASE_MS,
  objectStream,
  putObject,
  renewLease,
  reportProgress,
  saveErrors,
  startJob,
  uploadKey,
  type BulkJob,
  type WelcomeFailure,
} from './bulk-job';
import { csvCell, readCsv, type CsvLimits } from './csv-file';

/**
 * What a bulk-create file may hold (docs/api/bulk.md#bulk-create): 10,000 rows, and 50 MiB for a file uploaded
 * with a presigned URL (the API's own body takes 4 MiB).
 */
export const bulkCreateLimits: CsvLimits = { maxRows: 10_000, maxBytes: 50 * 1024 * 1024 };

export interface WorkerOptions {
  /** Users created at once: bounded, to stay within the identity provider's rate limits. */
  concurrency?: number;
  ports?: UserPorts;
  /** Paces the welcome e-mails of all lanes; default one bucket per process at SES's send rate. */
  sendRate?: Pick<TokenBucket, 'take'>;
  /** The sign-in address e-mails give, `{realm}` standing for the organization's name; default the function's. */
  signInUrl?: string;
}

/**
 * The uuid a job gives the user of an e-mail: the same on every run of the job, so a rerun finds the
 * users it created (and the claims it made) as its own and creates nobody twice.
 */
export function jobUserUuid(jobId: string, email: string): string {
  const hex = createHash('sha256').update(`${jobId}\n${email.trim().toLowerCase()}`).digest('hex');
  // RFC 9562 version 8 (custom) layout: version nibble 8, variant bits 10.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const throttling = new Set(['TooManyRequestsException', 'ThrottlingException', 'LimitExceededException', 'RequestLimitExceeded']);

/** Runs `work` again after a throttling error, with exponential back-off and jitter (6 attempts). */
async function withBackoff<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (!throttling.has(name) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

/**
 * Processes one bulk-create job, reading its file from S3: checks every row, creates the valid users
 * (store, identity provider and welcome e-mail, exactly as `POST /users` does), and records the
 * outcome. Safe to run twice on the same job, at once or after a crash: it creates nobody twice and
 * reports the same result.
 */
export async function runBulkCreateJob(orgUuid: string, jobId: string, options: WorkerOptions = {}): Promise<BulkJob | undefined> {
  let job = await getJob(orgUuid, jobId);
  if (!job) {
    logger.warn('bulk upload without a job: ignored', { orgUuid, jobId });
    return undefined;
  }
  // One run at a time: a second delivery waits while the first holds the job, and takes it over if
  // that run stops renewing its lease (it crashed).
  const runId = randomUUID();
  while (!(await acquireLease(orgUuid, jobId, runId))) {
    job = (await getJob(orgUuid, jobId))!;
    if (job.status === 'done' || job.status === 'failed') return job;
    await sleep(Math.min(Math.max((job.lease?.until ?? 0) - Date.now(), 0) + 100, 2_000));
  }
  let lost = false;
  const heartbeat = setInterval(() => {
    renewLease(orgUuid, jobId, runId).then(
      (held) => (lost ||= !held),
      () => undefined,
    );
  }, LEASE_MS / 3);
  try {
    // On the job's behalf: the users it creates and its outcome are its author's changes, made in the
    // request that created it (their audit events say so).
    const leased = job;
    return await withAuditContext(causeOfJob(leased), () => runLeased(leased, runId, () => lost, options));
  } finally {
    clearInterval(heartbeat);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runLeased(job: BulkJob, runId: string, lost: () => boolean, options: WorkerOptions): Promise<BulkJob | undefined> {
  const { orgUuid, jobId } = job;
  const ports = options.ports ?? userPorts();
  const plan = new BulkCreatePlan();
  let header: string[] = [];
  try {
    for await (const row of readCsv(await objectStream(uploadKey(orgUuid, jobId)), bulkCreateLayout, bulkCreateLimits, (h) => (header = h))) {
      plan.add(row);
    }
  } catch (error) {
    const problem = fileProblemOf(error);
    if (!problem) throw error;
    await finishJob(orgUuid, jobId, runId, {
      status: 'failed',
      counts: { rows: plan.rows, created: 0, failed: 0 },
      failure: { errorCode: problem, message: (error as Error).message },
    });
    return getJob(orgUuid, jobId);
  }

  const { candidates, errors, failedLines } = await plan.resolve(orgUuid, async (email) => {
    const holder = await findUserByEmail(orgUuid, email);
    return holder !== undefined && holder.uuid !== jobUserUuid(jobId, email);
  });
  if (!(await startJob(orgUuid, jobId, runId, candidates.length + errors.length, plan.rows))) return getJob(orgUuid, jobId);

  let created = 0;
  const welcomeFailures: WelcomeFailure[] = [];
  if (job.dryRun) {
    created = candidates.length;
  } else {
    // One mail context for the job: the realm is read once, not once per welcome e-mail.
    const realm = (await getOrganization(orgUuid))?.name ?? '';
    const mail: MailContext = { language: job.language, signInUrl: signInAddress(options.signInUrl ?? mailSettings().signInUrl), realm };
    // Every lane takes its turn from one bucket: together they stay within SES's send rate.
    const mailer = rateLimited(ports.mailer, options.sendRate ?? (await sendRateBucket()));
    let processed = errors.length;
    await eachLimited(candidates, options.concurrency ?? 8, async (candidate) => {
      if (lost()) return;
      const outcome = await createOne(job, candidate, { ...ports, mailer }, mail);
      if ('error' in outcome) {
        errors.push(outcome.error);
        candidate.lines.forEach((line) => failedLines.add(line));
      } else {
        created += 1;
        if (outcome.welcomeFailure) welcomeFailures.push(outcome.welcomeFailure);
      }
      processed += 1;
      if (processed % 25 === 0) await reportProgress(orgUuid, jobId, processed);
    });
  }
  // A run that lost its lease leaves the outcome to the run that took the job over.
  if (lost()) return getJob(orgUuid, jobId);

  errors.sort((a, b) => a.line - b.line);
  await saveErrors(orgUuid, jobId, errors);
  if (failedLines.size > 0) await writeFailedRows(job, header, failedLines, errors);
  welcomeFailures.sort((a, b) => a.line - b.line);
  const finished = await finishJob(orgUuid, jobId, runId, {
    status: 'done',
    counts: { rows: plan.rows, created, failed: errors.length },
    welcomeFailures,
  });
  // Counted once per job, by the run that recorded its outcome; a dry run creates nobody.
  if (finished && !job.dryRun) {
    count('BulkRowsCreated', created);
    count('BulkRowsFailed', errors.length);
  }
  return getJob(orgUuid, jobId);
}

/** A row's outcome: its error, or the user exists now (and whether its welcome e-mail failed). */
type RowOutcome = { error: BulkError } | { welcomeFailure?: WelcomeFailure };

/**
 * Creates one user, or finds it made by this job's earlier run. The welcome e-mail is sent once: the
 * user record notes it once SES accepted it, so a later run (a takeover after a crash, a retry, a
 * resend of failed welcomes) sends the ones missing, with a new password when the file gave none,
 * since the first one was never seen.
 */
async function createOne(job: BulkJob, candidate: Candidate, ports: UserPorts, mail: MailContext): Promise<RowOutcome> {
  const uuid = jobUserUuid(job.jobId, candidate.email);
  const claim = await getEmailClaim(job.orgUuid, candidate.email);
  if (claim?.state === 'DONE' && claim.userUuid === uuid) {
    const user = await getUser(job.orgUuid, uuid);
    if (!user || user.welcomedAt) return {};
    const password = candidate.password ?? generatePassword();
    if (!candidate.password) await ports.identityProvider.setPassword(uuid, password, { temporary: true });
    return welcome(user, candidate.line, mail, ports, { value: password, temporary: !candidate.password });
  }
  const password = candidate.password ?? generatePassword();
  let user: UserRecord;
  try {
    user = await withBackoff(() =>
      registerUser(
        {
          orgUuid: job.orgUuid,
          name: candidate.name,
          email: candidate.email,
          password,
          temporaryPassword: !candidate.password,
          role: candidate.role,
          permissions: candidate.permissions,
          ...(candidate.company ? { company: candidate.company } : {}),
        },
        ports.identityProvider,
        { uuid },
      ),
    );
  } catch (error) {
    if (error instanceof ConflictError) return { error: bulkError(candidate.email, candidate.line, 'EMAIL_TAKEN') };
    const reason = (error as { name?: string }).name ?? 'Error';
    logger.error('bulk user not created', { orgUuid: job.orgUuid, jobId: job.jobId, line: candidate.line, reason });
    return { error: bulkError(candidate.email, candidate.line, 'IDENTITY_PROVIDER_FAILED') };
  }
  return welcome(user, candidate.line, mail, ports, { value: password, temporary: !candidate.password });
}

/** Sends the welcome e-mail (the mailer paces and retries it); the user is marked welcomed only once SES accepted it. */
async function welcome(
  user: UserRecord,
  line: number,
  mail: MailContext,
  ports: UserPorts,
  password: { value: string; temporary: boolean },
): Promise<RowOutcome> {
  const result = await sendWelcome(user, password, mail, ports.mailer);
  if (!result.sent) return { welcomeFailure: { line, userUuid: user.uuid, reason: result.reason } };
  await markWelcomed(user.orgUuid, user.uuid);
  return {};
}

/**
 * The failed rows, as a CSV to fix and upload again: the original columns plus `Error`, every value
 * neutralised against formula injection. Streams the upload a second time rather than keeping rows.
 */
async function writeFailedRows(job: BulkJob, header: string[], failedLines: Set<number>, errors: BulkError[]): Promise<void> {
  const messageByEmail = new Map(errors.map((error) => [error.email.toLowerCase(), error.message]));
  const lines = [[...header, 'Error'].map(csvCell).join(',')];
  const limits = { ...bulkCreateLimits };
  for await (const row of readCsv(await objectStream(uploadKey(job.orgUuid, job.jobId)), bulkCreateLayout, limits)) {
    if (!failedLines.has(row.line)) continue;
    const message = messageByEmail.get(row.values.Email.toLowerCase()) ?? '';
    lines.push([...header.map((_, i) => row.cells[i] ?? ''), message].map(csvCell).join(','));
  }
  await putObject(failedRowsKey(job.orgUuid, job.jobId), `${lines.join('\r\n')}\r\n`, 'text/csv; charset=utf-8');
}
