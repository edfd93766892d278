import { createHash, randomUUID } from 'node:crypto';
import { withAuditContext } from '../../domain/audit/audit-context';
import { config } from '../../kernel/config';
import { ConflictError, fileProblemOf } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { passwordPolicy } from '../../domain/users/password-policy.port';
import { getMailState } from '../../domain/users/user-mail.repository';
import { pacedIdentityProvider, type IdentityProvider, type UserPorts } from '../users/identity-provider.port';
import { getUser, getUsers, sameEmail, stampCredentials } from '../../domain/users/user.repository';
import { getEmailClaim, getEmailClaims, type EmailClaim } from '../../domain/users/user-email-claims.repository';
import { registerUser, registerUsers, type NewUser } from '../users/user-registration';
import { eachLimited, sleep, TokenBucket, type Pace } from '../../kernel/retry';
import { BulkCreatePlan, bulkError, type BulkError, type Candidate } from './bulk-create.rules';
import { readUpload, saveErrors, saveFailedRows } from '../../domain/bulk/bulk-file.repository';
import { acquireLease, causeOfJob, finishJob, getJob, renewLease, reopenWelcomes, reportTally, startJob } from '../../domain/bulk/bulk-job.repository';
import { LEASE_MS, type BulkJob, type JobTally } from '../../domain/bulk/bulk-job.entities';
import { WelcomeBatcher, type Welcome } from './bulk-create-welcomes';
import { COGNITO_ACCOUNT_RECOVERY_RATE, CREATION_LANES, groupSizeFor, GROUPS_AT_ONCE, atMost, type RowPace } from './bulk-create-pace';
import { csvCell, readCsv } from './csv-file';
import { bulkCreateLayout, bulkCreateLimits } from './bulk.limits';


export interface WorkerOptions {
  /** Users created at once (default 16); their pace is `creationRate`'s. */
  concurrency?: number;
  /** Paces the users' creation; default a bucket at Cognito's UserCreation quota (`COGNITO_USER_CREATION_RATE`, 50/s). */
  creationRate?: Pace;
  /**
   * Paces the rows that also cost a UserAccountRecovery call (`AdminSetUserPassword`: a password the
   * file gives, a new temporary one on a rerun); default a bucket at that quota's default rate.
   */
  recoveryRate?: Pace;
  /** How often a running job's counts are written; default 1 s. */
  reportEveryMs?: number;
  ports?: Pick<UserPorts, 'identityProvider'>;
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

async function runLeased(job: BulkJob, runId: string, lost: () => boolean, options: WorkerOptions): Promise<BulkJob | undefined> {
  const { orgUuid, jobId } = job;
  const plan = new BulkCreatePlan();
  let header: string[] = [];
  try {
    for await (const row of readCsv(await readUpload(orgUuid, jobId), bulkCreateLayout, bulkCreateLimits, (h) => (header = h))) {
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

  // The e-mails' claims, read once: rule 1 (another user has the e-mail) and which users an earlier
  // run of this job began (their claims are this job's).
  let claims = new Map<string, EmailClaim>();
  const { candidates, errors, failedLines } = await plan.resolve(orgUuid, async (emails) => {
    claims = await getEmailClaims(orgUuid, emails);
    const others = [...claims].filter(([email, claim]) => claim.userUuid !== jobUserUuid(jobId, email));
    const holders = new Map((await getUsers(orgUuid, others.map(([, claim]) => claim.userUuid))).map((user) => [user.uuid, user]));
    return new Set(others.filter(([email, claim]) => holders.has(claim.userUuid) && sameEmail(holders.get(claim.userUuid)!.email, email)).map(([email]) => email));
  });
  if (!(await startJob(orgUuid, jobId, runId, candidates.length + errors.length, plan.rows))) return getJob(orgUuid, jobId);
  if (!(await reopenWelcomes(orgUuid, jobId, runId))) return getJob(orgUuid, jobId);

  const tally = new Tally(plan.rows, errors.length);
  // The counts so far reach the job about once a second (one write), never once a row.
  const reporter = every(options.reportEveryMs ?? REPORT_MS, () => reportTally(orgUuid, jobId, runId, tally.snapshot()));
  try {
    if (job.dryRun) {
      tally.created = candidates.length;
    } else {
      // Creation takes its turns from a bucket at Cognito's user-creation quota; the welcome e-mails go
      // to the mail queue, which the `mail` function drains at SES's rate: no user waits for an e-mail.
      const pace: RowPace = {
        creation: options.creationRate ?? new TokenBucket({ ratePerSecond: config().cognitoQuotas.userCreationPerSecond }),
        recovery: options.recoveryRate ?? new TokenBucket({ ratePerSecond: COGNITO_ACCOUNT_RECOVERY_RATE }),
      };
      const welcomes = new WelcomeBatcher(job);
      const identityProvider = atMost(options.ports?.identityProvider ?? pacedIdentityProvider(pace.creation), options.concurrency ?? CREATION_LANES);
      const settle = async (candidate: Candidate, outcome: RowOutcome) => {
        if ('error' in outcome) {
          errors.push(outcome.error);
          candidate.lines.forEach((line) => failedLines.add(line));
          tally.failed += 1;
          return;
        }
        tally.created += 1;
        if (outcome.welcome) await welcomes.add(outcome.welcome, outcome.requeued ?? false);
      };
      // Users no run of this job has begun are registered in groups (their claims, then their records,
      // several to a transaction); those an earlier run began are resumed one by one.
      const [fresh, begun] = [candidates.filter((candidate) => !claims.has(candidate.email)), candidates.filter((candidate) => claims.has(candidate.email))];
      await eachLimited(begun, options.concurrency ?? CREATION_LANES, async (candidate) => {
        if (!lost()) await settle(candidate, await createOne(job, candidate, identityProvider, pace));
      });
      const size = groupSizeFor(pace.creation);
      const groups = Array.from({ length: Math.ceil(fresh.length / size) }, (_, i) => fresh.slice(i * size, (i + 1) * size));
      await eachLimited(groups, GROUPS_AT_ONCE, async (group) => {
        if (lost()) return;
        const outcomes = await createGroup(job, group, identityProvider, pace);
        for (const [i, outcome] of outcomes.entries()) await settle(group[i]!, outcome);
      });
      await welcomes.flush();
    }
  } finally {
    reporter.stop();
  }
  // A run that lost its lease leaves the outcome to the run that took the job over.
  if (lost()) return getJob(orgUuid, jobId);

  errors.sort((a, b) => a.line - b.line);
  await saveErrors(orgUuid, jobId, errors);
  if (failedLines.size > 0) await writeFailedRows(job, header, failedLines, errors);
  const finished = await finishJob(orgUuid, jobId, runId, { status: 'done', counts: { rows: plan.rows, created: tally.created, failed: errors.length } });
  // Counted once per job, by the run that recorded its outcome; a dry run creates nobody.
  if (finished && !job.dryRun) {
    count('BulkRowsCreated', tally.created);
    count('BulkRowsFailed', errors.length);
  }
  return getJob(orgUuid, jobId);
}

/** How often a running job's counts are written. */
const REPORT_MS = 1_000;

/** A run's counts so far. */
class Tally {
  created = 0;

  constructor(
    private readonly rows: number,
    public failed: number,
  ) {}

  snapshot(): JobTally {
    return { counts: { rows: this.rows, created: this.created, failed: this.failed }, processed: this.created + this.failed };
  }
}

/** Runs `write` every `ms` (one at a time, its errors logged and left: the next one writes the counts again) until stopped. */
function every(ms: number, write: () => Promise<unknown>): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    write()
      .catch((error: unknown) => logger.warn('bulk job counts not written', { reason: (error as Error).name }))
      .finally(() => (running = false));
  }, ms);
  return { stop: () => clearInterval(timer) };
}

/** A row's outcome: its error, or the user exists now (with the welcome e-mail it still needs, if any, and whether one failed before). */
type RowOutcome = { error: BulkError } | { welcome?: Welcome; requeued?: boolean };

/**
 * Creates one user, or finds it made by this job's earlier run. The welcome e-mail is queued once: the
 * user's mail item names the attempt queued and how it ended, so a later run (a takeover after a crash,
 * a resend of failed welcomes) queues only those never queued or refused, with a new password when
 * the file gave none, since the first one was never seen.
 */
async function createOne(job: BulkJob, candidate: Candidate, identityProvider: IdentityProvider, pace: RowPace): Promise<RowOutcome> {
  const uuid = jobUserUuid(job.jobId, candidate.email);
  const claim = await getEmailClaim(job.orgUuid, candidate.email);
  if (claim?.state === 'DONE' && claim.userUuid === uuid) {
    const user = await getUser(job.orgUuid, uuid);
    if (!user || user.welcomedAt) return {};
    const mail = await getMailState(job.orgUuid, uuid, 'welcome');
    if (mail?.state === 'QUEUED' || mail?.state === 'SENT') return {};
    const password = candidate.password ?? passwordPolicy.generate();
    if (!candidate.password) {
      await pace.recovery.take();
      await identityProvider.setPassword(uuid, password, { temporary: true });
      // A password set ends whatever session was begun with the one before.
      await stampCredentials(job.orgUuid, uuid);
    }
    return { welcome: { userUuid: uuid, line: candidate.line, password: { value: password, temporary: !candidate.password } }, requeued: mail?.state === 'FAILED' };
  }
  const [outcome] = await createGroup(job, [candidate], identityProvider, pace, { alone: true });
  return outcome!;
}

/**
 * Registers users this job has not begun (`registerUsers`: claims and records written a group at a
 * time), each taking its turn under Cognito's quotas; each user's outcome, in the group's order.
 */
async function createGroup(job: BulkJob, group: Candidate[], identityProvider: IdentityProvider, pace: RowPace, options: { alone?: boolean } = {}): Promise<RowOutcome[]> {
  const inputs = group.map((candidate) => ({
    uuid: jobUserUuid(job.jobId, candidate.email),
    orgUuid: job.orgUuid,
    name: candidate.name,
    email: candidate.email,
    password: candidate.password ?? passwordPolicy.generate(),
    temporaryPassword: !candidate.password,
    role: candidate.role,
    permissions: candidate.permissions,
    ...(candidate.company ? { company: candidate.company } : {}),
  }));
  // Each row takes its turn under UserCreation's quota, and under UserAccountRecovery's when its password is set apart.
  const beforeEach = async (input: NewUser) => {
    await pace.creation.take();
    if (!input.temporaryPassword) await pace.recovery.take();
  };
  const alone = async (input: (typeof inputs)[number]) => {
    await beforeEach(input);
    return registerUser(input, identityProvider, { uuid: input.uuid }).then((user) => ({ user }), (error: unknown) => ({ error }));
  };
  const registrations = options.alone ? [await alone(inputs[0]!)] : await registerUsers(inputs, identityProvider, { beforeEach });
  return registrations.map((registration, i): RowOutcome => {
    const [candidate, input] = [group[i]!, inputs[i]!];
    if ('user' in registration) return { welcome: { userUuid: input.uuid, line: candidate.line, password: { value: input.password, temporary: !candidate.password } } };
    const { error } = registration;
    if (error instanceof ConflictError) return { error: bulkError(candidate.email, candidate.line, 'EMAIL_TAKEN') };
    const reason = (error as { name?: string }).name ?? 'Error';
    logger.error('bulk user not created', { orgUuid: job.orgUuid, jobId: job.jobId, line: candidate.line, reason });
    return { error: bulkError(candidate.email, candidate.line, 'IDENTITY_PROVIDER_FAILED') };
  });
}

/**
 * The failed rows, as a CSV to fix and upload again: the original columns plus `Error`, every value
 * neutralised against formula injection. Streams the upload a second time rather than keeping rows.
 */
async function writeFailedRows(job: BulkJob, header: string[], failedLines: Set<number>, errors: BulkError[]): Promise<void> {
  const messageByEmail = new Map(errors.map((error) => [error.email.toLowerCase(), error.message]));
  const lines = [[...header, 'Error'].map(csvCell).join(',')];
  const limits = { ...bulkCreateLimits };
  for await (const row of readCsv(await readUpload(job.orgUuid, job.jobId), bulkCreateLayout, limits)) {
    if (!failedLines.has(row.line)) continue;
    const message = messageByEmail.get(row.values.Email.toLowerCase()) ?? '';
    lines.push([...header.map((_, i) => row.cells[i] ?? ''), message].map(csvCell).join(','));
  }
  await saveFailedRows(job.orgUuid, job.jobId, `${lines.join('\r\n')}\r\n`);
}
