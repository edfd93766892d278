import { errorMessage } from '../../shared/kernel/errors';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Event } from 'aws-lambda';
import { handler as bulkWorkerHandler } from '../../functions/bulk-worker/handler';
import { jobUserUuid, runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';
import { readErrors, uploadKey } from '../../shared/domain/bulk/bulk-file.repository';
import { failJob, getJob, requeueWelcomes, type BulkJob } from '../../shared/domain/bulk/bulk-job.repository';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/adapters/clients/s3';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { keys } from '../../shared/adapters/store/keys';
import { putItem, updateItem } from '../../shared/adapters/store/table';
import { getUser, markWelcomed } from '../../shared/domain/users/user.repository';
import { claimEmail, getEmailClaim } from '../../shared/domain/users/user-email-claims.repository';
import { getMailState } from '../../shared/domain/users/user-mail.repository';
import { TokenBucket } from '../../shared/kernel/retry';
import { registerUser } from '../../shared/app/users/user-registration';
import type { Permission, Role } from '../../shared/domain/users/user.entities';
import { bulkJobUrl, codesOf, csvOf, expectCreatedOnce, getBulk, listedWith, mailedPassword, rowFor, stageJob, uploadCsv, type BulkRow, type JobView } from '../support/bulk-helpers';
import { stack } from '../support/stack';
import {
  freshOrganization,
  identityOf,
  mailQueueSettled,
  mailsTo,
  signIn,
  tokenOf,
  uniqueEmail,
  type TestOrg,
  expectTemporaryPassword,
} from '../support/user-helpers';

/**
 * The bulk-create worker run by the test itself (`runBulkCreateJob`) on jobs staged so that the local
 * stack's own worker leaves them alone (see `stageJob`): reruns, concurrent runs, a crash halfway, an
 * identity provider failing on some rows, throttling and bounded concurrency, against the real
 * store and Cognito emulator.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

/** Nothing of these e-mails: no user record, no claim, not listed, no sign-in. */
async function expectNothingFor(job: BulkJob, emails: string[], password: string): Promise<void> {
  expect(await listedWith(org, emails)).toEqual([]);
  for (const email of emails) {
    expect(await getEmailClaim(org.orgUuid, email)).toBeUndefined();
    expect(await getUser(org.orgUuid, jobUserUuid(job.jobId, email))).toBeUndefined();
    expect((await signIn(org.realm, email, password)).status).toBe(400);
  }
}

/** The password the one welcome e-mail an address received gives (the test fails unless there is exactly one). */
async function mailedTo(email: string): Promise<string> {
  const mails = await mailsTo(email);
  expect(mails).toHaveLength(1);
  return mailedPassword(mails[0]!, 'en')!;
}

/** Fails the next `times` SES sends to `address` on SES's side (the local stack's seam: infra/local/ses-outages.ts). */
async function sesOutage(address: string, times: number): Promise<void> {
  const response = await fetch(`${stack().endpoints.ses}/_local/outages?address=${encodeURIComponent(address)}&times=${times}`, { method: 'POST' });
  expect(response.status).toBe(204);
}
const jobView = async (jobId: string) => (await getBulk<JobView>(org, bulkJobUrl(org, jobId))).body;
const PASSWORD = 'Bulk-Passw0rd';

// ---------------------------------------------------------------------------------------------------
test('a staged upload is left alone by the stack: its job stays queued until the test runs it', async () => {
  const email = uniqueEmail('staged');
  const job = await stageJob(org, csvOf([rowFor(org, 'ADMIN', email)]));

  await sleep(500);

  expect((await getJob(org.orgUuid, job.jobId))?.status).toBe('queued');
  expect(await listedWith(org, [email])).toEqual([]);
});

test('the bulk-worker handler runs the job its S3 key names and ignores keys outside the upload layout', async () => {
  const email = uniqueEmail('handler');
  const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', email, { Password: PASSWORD })]));
  const record = (key: string) => ({ eventName: 'ObjectCreated:Put', s3: { object: { key: encodeURIComponent(key) } } });

  await bulkWorkerHandler({ Records: [record(`results/${org.orgUuid}/${job.jobId}/errors.json`), record(uploadKey(org.orgUuid, job.jobId))] } as unknown as S3Event);

  expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ status: 'done', counts: { rows: 1, created: 1, failed: 0 } });
  await expectCreatedOnce(org, job, [email]);
  expect(await mailsTo(email)).toHaveLength(1);
});

// ---------------------------------------------------------------------------------------------------
describe('a job run twice, one run after the other', () => {
  test('the second run creates nobody, sends nothing and reports the same result', async () => {
    const emails = [uniqueEmail('seq-a'), uniqueEmail('seq-b')];
    const bad = uniqueEmail('seq-bad');
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', emails[0]!, { Password: PASSWORD }), rowFor(org, 'OWNER', bad), rowFor(org, 'EDITOR', emails[1]!)]));

    const firstRun = await runBulkCreateJob(org.orgUuid, job.jobId);
    const errorsAfterFirst = await readErrors(org.orgUuid, job.jobId);
    await mailQueueSettled();
    const secondRun = await runBulkCreateJob(org.orgUuid, job.jobId);

    expect(firstRun).toMatchObject({ status: 'done', counts: { rows: 3, created: 2, failed: 1 } });
    // The welcomes the first run queued may leave between the two reads: the tally moves, its total does not.
    const { welcomes: welcomesFirst, updatedAt: _first, ...first } = firstRun!;
    const { welcomes: welcomesSecond, updatedAt: _second, ...second } = secondRun!;
    expect(second).toEqual(first);
    const total = (welcomes: typeof welcomesFirst) => (welcomes ? welcomes.pending + welcomes.sent + welcomes.failed : 0);
    expect(total(welcomesSecond)).toBe(total(welcomesFirst));
    expect(codesOf(errorsAfterFirst)).toEqual([{ email: bad, line: 3, errorCode: 'ROLE_INVALID' }]);
    expect(await readErrors(org.orgUuid, job.jobId)).toEqual(errorsAfterFirst);
    await expectCreatedOnce(org, job, emails);
    // One welcome each, from the first run: the second queued none.
    for (const email of emails) expect(await mailsTo(email)).toHaveLength(1);
    expect(await mailsTo(bad)).toEqual([]);
    expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ welcomes: { sent: 2, pending: 0, failed: 0 } });
  });
});

// ---------------------------------------------------------------------------------------------------
describe('a job run twice at once (S3 and Lambda deliver at least once)', () => {
  const withPassword = [uniqueEmail('twice-pw-a'), uniqueEmail('twice-pw-b'), uniqueEmail('twice-pw-c')];
  const generated = [uniqueEmail('twice-gen-a'), uniqueEmail('twice-gen-b'), uniqueEmail('twice-gen-c')];
  const [badRole, badBot] = [uniqueEmail('twice-bad-role'), uniqueEmail('twice-bad-bot')];
  let job: BulkJob;
  let runs: (BulkJob | undefined)[];

  beforeAll(async () => {
    const rows: BulkRow[] = [
      ...withPassword.map((email) => rowFor(org, 'VIEWER', email, { Password: PASSWORD })),
      rowFor(org, 'GUEST', badRole),
      ...generated.map((email) => rowFor(org, 'SUPERVISOR', email)),
      rowFor(org, 'EDITOR', badBot, { Bot: org.inactiveBot }),
    ];
    job = await stageJob(org, csvOf(rows));
    runs = await Promise.all(
      [1, 2].map(() => runBulkCreateJob(org.orgUuid, job.jobId, { concurrency: 3 })),
    );
  });

  test('each user is created once, and both runs report the same counts and errors', async () => {
    for (const run of runs) expect(run).toMatchObject({ status: 'done', counts: { rows: 8, created: 6, failed: 2 } });
    await expectCreatedOnce(org, job, [...withPassword, ...generated]);
    const view = await jobView(job.jobId);
    expect(view).toMatchObject({ status: 'done', counts: { rows: 8, created: 6, failed: 2 }, progress: { percent: 100 } });
    expect(codesOf(view.errors!)).toEqual([
      { email: badRole, line: 5, errorCode: 'ROLE_INVALID' },
      { email: badBot, line: 9, errorCode: 'BOT_NOT_FOUND' },
    ]);
    for (const email of withPassword) expect((await tokenOf(org.realm, email, PASSWORD)).access_token).toEqual(expect.any(String));
  });

  // The two runs take turns (the job's lease): the second waits for the first and finds the job done.
  test('each user gets exactly one welcome e-mail, and the password it gives is the one that signs in', async () => {
    for (const email of [...withPassword, ...generated]) {
      const password = await mailedTo(email);
      if (withPassword.includes(email)) expect((await signIn(org.realm, email, password)).status).toBe(200);
      else await expectTemporaryPassword(org.realm, email, password);
    }
    expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ welcomes: { sent: 6, pending: 0, failed: 0 } });
  });
});

// ---------------------------------------------------------------------------------------------------
describe('a crash halfway', () => {
  const viewer = (email: string, password: string) => ({
    orgUuid: org.orgUuid,
    name: `VIEWER ${email.split('@')[0]}`,
    email,
    password,
    role: 'VIEWER' as Role,
    permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] as Permission[],
  });

  type Stage = 'claim' | 'identity' | 'record' | 'registered' | 'welcomed';

  /** What a run that stopped leaves of a user: every step up to `until` done, with the job's uuid. */
  async function leftBy(job: BulkJob, email: string, until: Stage, password = PASSWORD) {
    const uuid = jobUserUuid(job.jobId, email);
    if (until === 'claim' || until === 'identity') {
      await claimEmail(org.orgUuid, email, uuid, new Date().toISOString());
      if (until === 'identity') await cognitoIdentityProvider.createUser({ username: uuid, email, password: 'Crashed-Passw0rd' });
      return;
    }
    await registerUser(viewer(email, password), cognitoIdentityProvider, { uuid });
    // Stopped after the user was written but before its claim was marked done: the claim is still pending.
    if (until === 'record') await putItem({ ...keys.emailClaim(org.orgUuid, email), type: 'EMAIL', userUuid: uuid, state: 'PENDING', claimedAt: new Date().toISOString() });
    if (until === 'welcomed') await markWelcomed(org.orgUuid, uuid);
  }

  /** The job as the stopped run left it: running, under that run's lease until `leaseUntil` (epoch ms). */
  async function stoppedRun(job: BulkJob, rows: number, leaseUntil: number): Promise<void> {
    const updated = await updateItem({
      Key: keys.bulkJob(org.orgUuid, job.jobId),
      UpdateExpression: 'SET #status = :running, lease = :lease, progress = :progress, counts.#rows = :rows',
      ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows' },
      ExpressionAttributeValues: { ':running': 'running', ':lease': { runId: randomUUID(), until: leaseUntil }, ':progress': { processed: 1, total: rows }, ':rows': rows },
    });
    expect(updated).toBe(true);
  }

  test('a rerun waits out the stopped run\'s lease, then completes the job: every user once, signed in with its password, mailed once', async () => {
    const [welcomed, record, identity, claim, untouched] = ['welcomed', 'record', 'identity', 'claim', 'untouched'].map((tag) => uniqueEmail(`crash-${tag}`));
    const bad = uniqueEmail('crash-bad');
    const job = await stageJob(
      org,
      csvOf([
        rowFor(org, 'VIEWER', welcomed!, { Password: PASSWORD }),
        rowFor(org, 'VIEWER', record!),
        rowFor(org, 'VIEWER', identity!, { Password: PASSWORD }),
        rowFor(org, 'OWNER', bad),
        rowFor(org, 'VIEWER', claim!, { Password: PASSWORD }),
        rowFor(org, 'VIEWER', untouched!),
      ]),
    );
    // The stopped run had finished (and mailed) one user and stopped in the middle of three others.
    await leftBy(job, welcomed!, 'welcomed');
    await leftBy(job, record!, 'record', 'Crashed-Passw0rd1');
    await leftBy(job, identity!, 'identity');
    await leftBy(job, claim!, 'claim');
    const leaseUntil = Date.now() + 1_500;
    await stoppedRun(job, 6, leaseUntil);

    const rerun = await runBulkCreateJob(org.orgUuid, job.jobId);

    expect(Date.now()).toBeGreaterThanOrEqual(leaseUntil);
    expect(rerun).toMatchObject({ status: 'done', counts: { rows: 6, created: 5, failed: 1 }, progress: { processed: 6, total: 6 } });
    expect(rerun).not.toHaveProperty('lease');
    expect(codesOf(await readErrors(org.orgUuid, job.jobId))).toEqual([{ email: bad, line: 5, errorCode: 'ROLE_INVALID' }]);
    await expectCreatedOnce(org, job, [welcomed!, record!, identity!, claim!, untouched!]);
    // The welcomed user was mailed by the stopped run; the others by the rerun, once each.
    expect(await mailsTo(welcomed!)).toEqual([]);
    for (const email of [identity!, claim!]) expect(await mailedTo(email)).toBe(PASSWORD);
    for (const email of [welcomed!, identity!, claim!]) expect((await tokenOf(org.realm, email, PASSWORD)).access_token).toEqual(expect.any(String));
    for (const email of [record!, untouched!]) await expectTemporaryPassword(org.realm, email, await mailedTo(email));
    expect((await signIn(org.realm, identity!, 'Crashed-Passw0rd')).status).toBe(400);
    expect((await signIn(org.realm, record!, 'Crashed-Passw0rd1')).status).toBe(400);
  });

  test('users created but not yet mailed when the run stopped are mailed by the rerun, with a password that signs in', async () => {
    const [generated, given] = [uniqueEmail('crash-unmailed-gen'), uniqueEmail('crash-unmailed-given')];
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', generated), rowFor(org, 'VIEWER', given, { Password: PASSWORD })]));
    // The generated password of the stopped run was never mailed: nobody knows it.
    await leftBy(job, generated, 'registered', 'Unknown-Passw0rd1');
    await leftBy(job, given, 'registered', PASSWORD);
    await stoppedRun(job, 2, Date.now() - 1);

    const rerun = await runBulkCreateJob(org.orgUuid, job.jobId);

    expect(rerun).toMatchObject({ status: 'done', counts: { rows: 2, created: 2, failed: 0 } });
    const mailed = await mailedTo(generated);
    expect(mailed).not.toBe('Unknown-Passw0rd1');
    await expectTemporaryPassword(org.realm, generated, mailed);
    expect(await mailedTo(given)).toBe(PASSWORD);
    expect((await signIn(org.realm, given, PASSWORD)).status).toBe(200);
    await expectCreatedOnce(org, job, [generated, given]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('the identity provider', () => {
  type Failure = { name: string; times: number; after?: boolean };

  /**
   * Cognito, except that `createUser` fails for some e-mails (an error of `name`) until `times` calls
   * have failed: before it does anything, or (`after`) once the account exists with its password.
   */
  function failingFor(failures: Map<string, Failure>) {
    const calls = new Map<string, number>();
    const provider: IdentityProvider = {
      ...cognitoIdentityProvider,
      createUser: async (input) => {
        const n = (calls.get(input.email) ?? 0) + 1;
        calls.set(input.email, n);
        const failure = failures.get(input.email);
        if (!failure || n > failure.times) return cognitoIdentityProvider.createUser(input);
        if (failure.after) await cognitoIdentityProvider.createUser(input);
        throw Object.assign(new Error('identity provider unavailable'), { name: failure.name });
      },
    };
    return { provider, calls };
  }

  test('failing on some rows: those fail with IDENTITY_PROVIDER_FAILED, the others succeed, nothing is half-created, and the failed rows upload again', async () => {
    const [ok1, failed1, ok2, failed2] = ['ok-1', 'failed-1', 'ok-2', 'failed-2'].map((tag) => uniqueEmail(`idp-${tag}`));
    const bad = uniqueEmail('idp-bad');
    const job = await stageJob(
      org,
      csvOf([
        rowFor(org, 'VIEWER', ok1!, { Password: PASSWORD }),
        rowFor(org, 'VIEWER', failed1!, { Password: PASSWORD }),
        rowFor(org, 'SUPERVISOR', ok2!),
        rowFor(org, 'EDITOR', failed2!, { Password: PASSWORD }),
        rowFor(org, 'VIEWER', bad, { Password: 'no' }),
      ]),
    );
    // One fails before Cognito has an account, the other once the account exists (password set).
    const down: Failure = { name: 'ServiceUnavailableException', times: Infinity };
    const { provider, calls } = failingFor(new Map([[failed1!, down], [failed2!, { ...down, after: true }]]));

    const run = await runBulkCreateJob(org.orgUuid, job.jobId, { ports: { identityProvider: provider } });

    expect(run).toMatchObject({ status: 'done', counts: { rows: 5, created: 2, failed: 3 } });
    const errors = await readErrors(org.orgUuid, job.jobId);
    expect(errors).toEqual([
      { email: failed1, line: 3, errorCode: 'IDENTITY_PROVIDER_FAILED', message: errorMessage('IDENTITY_PROVIDER_FAILED', 'row') },
      { email: failed2, line: 5, errorCode: 'IDENTITY_PROVIDER_FAILED', message: errorMessage('IDENTITY_PROVIDER_FAILED', 'row') },
      expect.objectContaining({ email: bad, line: 6, errorCode: 'PASSWORD_POLICY' }),
    ]);
    // An error that is not throttling is not retried.
    expect([calls.get(failed1!), calls.get(failed2!)]).toEqual([1, 1]);
    await expectCreatedOnce(org, job, [ok1!, ok2!]);
    for (const email of [ok1!, ok2!]) expect(await mailsTo(email)).toHaveLength(1);
    for (const email of [failed1!, failed2!]) expect(await mailsTo(email)).toEqual([]);
    await expectNothingFor(job, [failed1!, failed2!], PASSWORD);
    await expect(identityOf(jobUserUuid(job.jobId, failed1!))).rejects.toThrow();

    // The failed rows, fetched and uploaded as they are, now create the two users.
    const failedRows = await getBulk<undefined>(org, bulkJobUrl(org, job.jobId, '/failed-rows'));
    expect(failedRows.text.split('\r\n').filter(Boolean)).toHaveLength(4);
    const again = await uploadCsv(org, failedRows.text);
    expect(again.status).toBe(200);
    expect(codesOf(again.body)).toEqual([{ email: bad, line: 4, errorCode: 'PASSWORD_POLICY' }]);
    expect((await listedWith(org, [failed1!, failed2!])).map((user) => user.email).sort()).toEqual([failed1!, failed2!].sort());
    expect((await tokenOf(org.realm, failed1!, PASSWORD)).access_token).toEqual(expect.any(String));
  });

  test("a refusal for Cognito's rate that reaches the worker (its client's retries spent) fails that row after one call: the worker paces, and retries nothing around the client", async () => {
    const [throttled, plain] = [uniqueEmail('throttled'), uniqueEmail('not-throttled')];
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', throttled, { Password: PASSWORD }), rowFor(org, 'VIEWER', plain, { Password: PASSWORD })]));
    const { provider, calls } = failingFor(new Map([[throttled, { name: 'TooManyRequestsException', times: 2 }]]));

    const run = await runBulkCreateJob(org.orgUuid, job.jobId, { ports: { identityProvider: provider } });

    expect(run).toMatchObject({ status: 'done', counts: { rows: 2, created: 1, failed: 1 } });
    expect(calls.get(throttled)).toBe(1);
    expect(calls.get(plain)).toBe(1);
    expect(await readErrors(org.orgUuid, job.jobId)).toEqual([
      { email: throttled, line: 2, errorCode: 'IDENTITY_PROVIDER_FAILED', message: errorMessage('IDENTITY_PROVIDER_FAILED', 'row') },
    ]);
    await expectCreatedOnce(org, job, [plain]);
    await expectNothingFor(job, [throttled], PASSWORD);
  });

  test("each row takes its turn under UserCreation's quota, and a row whose password is set (given in the file) under UserAccountRecovery's too", async () => {
    const [given, generated] = [uniqueEmail('paced-given'), uniqueEmail('paced-generated')];
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', given, { Password: PASSWORD }), rowFor(org, 'VIEWER', generated)]));
    const turns = { creation: 0, recovery: 0 };
    const counting = (quota: keyof typeof turns) => ({ take: async () => void (turns[quota] += 1) });

    const run = await runBulkCreateJob(org.orgUuid, job.jobId, { creationRate: counting('creation'), recoveryRate: counting('recovery') });

    expect(run).toMatchObject({ status: 'done', counts: { rows: 2, created: 2, failed: 0 } });
    expect(turns).toEqual({ creation: 2, recovery: 1 });
  });

  test('at most `concurrency` users are registered at once', async () => {
    const emails = Array.from({ length: 6 }, (_, i) => uniqueEmail(`bounded-${i}`));
    const job = await stageJob(org, csvOf(emails.map((email) => rowFor(org, 'VIEWER', email, { Password: PASSWORD }))));
    let inFlight = 0;
    let peak = 0;
    // The first registration waits (up to 5 s) for a second one to start, so that a loaded machine, on
    // which one row can finish before the next begins, still shows whether two run at once.
    let secondStarted = () => {};
    const twoInFlight = new Promise<void>((resolve) => (secondStarted = resolve));
    const provider: IdentityProvider = {
      ...cognitoIdentityProvider,
      createUser: async (input) => {
        peak = Math.max(peak, ++inFlight);
        if (inFlight >= 2) secondStarted();
        try {
          await Promise.race([twoInFlight, sleep(5_000, undefined, { ref: false })]);
          await sleep(60);
          await cognitoIdentityProvider.createUser(input);
        } finally {
          inFlight -= 1;
        }
      },
    };

    const run = await runBulkCreateJob(org.orgUuid, job.jobId, { concurrency: 2, ports: { identityProvider: provider } });

    expect(run?.counts).toEqual({ rows: 6, created: 6, failed: 0 });
    expect(peak).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('a welcome e-mail SES does not accept', () => {
  test('the queue sends it again; refused on every receive, the user is created but not welcomed, the job lists it, and a resend welcomes it with a new password', async () => {
    const [refused, accepted] = [uniqueEmail('welcome-refused'), uniqueEmail('welcome-accepted')];
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', refused), rowFor(org, 'EDITOR', accepted)]));
    // SES fails on its side for this recipient on every attempt (the SDK's own three on each receive).
    await sesOutage(refused, 1_000);

    const run = await runBulkCreateJob(org.orgUuid, job.jobId);

    // Done once every row is settled: the users exist; their welcomes are still in the queue.
    expect(run).toMatchObject({ status: 'done', counts: { rows: 2, created: 2, failed: 0 } });
    await mailQueueSettled();
    await sesOutage(refused, 0);
    const refusedUuid = jobUserUuid(job.jobId, refused);
    expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({
      welcomes: { sent: 1, pending: 0, failed: 1 },
      welcomeFailures: [{ line: 2, userUuid: refusedUuid, reason: 'InternalFailure' }],
    });
    expect(await mailsTo(refused)).toEqual([]);
    expect(await mailsTo(accepted)).toHaveLength(1);
    expect((await getUser(org.orgUuid, refusedUuid))?.welcomedAt).toBeUndefined();
    expect((await getUser(org.orgUuid, jobUserUuid(job.jobId, accepted)))?.welcomedAt).toEqual(expect.any(String));
    expect(await getMailState(org.orgUuid, refusedUuid, 'welcome')).toMatchObject({ state: 'FAILED', reason: 'InternalFailure' });
    // Resent once, not twice.
    expect(await requeueWelcomes(org.orgUuid, job.jobId)).toBe(true);
    expect(await requeueWelcomes(org.orgUuid, job.jobId)).toBe(false);

    const resent = await runBulkCreateJob(org.orgUuid, job.jobId);

    expect(resent).toMatchObject({ status: 'done', counts: { rows: 2, created: 2, failed: 0 }, welcomeFailures: [] });
    const password = await mailedTo(refused);
    expect(await mailsTo(accepted)).toHaveLength(1);
    expect((await getUser(org.orgUuid, refusedUuid))?.welcomedAt).toEqual(expect.any(String));
    expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ welcomes: { sent: 2, pending: 0, failed: 0 }, welcomeFailures: [] });
    await expectTemporaryPassword(org.realm, refused, password);
  });

  test('an outage shorter than the receives: the queue delivers the welcome again and it is sent once', async () => {
    const email = uniqueEmail('welcome-outage');
    const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', email, { Password: PASSWORD })]));
    // The three attempts of the first receive fail; the second receive succeeds.
    await sesOutage(email, 3);

    await runBulkCreateJob(org.orgUuid, job.jobId);

    expect(await mailedTo(email)).toBe(PASSWORD);
    expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ welcomes: { sent: 1, pending: 0, failed: 0 } });
  });
});

describe('a job in progress', () => {
  test('reports its counts while it runs, before it is done, and never backwards; its welcomes are counted as the mail function sends them', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`live-${i}`));
    const job = await stageJob(org, csvOf(emails.map((email) => rowFor(org, 'VIEWER', email, { Password: PASSWORD }))));
    // Four users a second: the run takes about three seconds.
    const creationRate = new TokenBucket({ ratePerSecond: 4, burst: 1 });
    const seen: BulkJob[] = [];
    let finished = false;

    const running = runBulkCreateJob(org.orgUuid, job.jobId, { creationRate, reportEveryMs: 200 }).finally(() => (finished = true));
    while (!finished) {
      const current = await getJob(org.orgUuid, job.jobId);
      if (current?.status === 'running') seen.push(current);
      await sleep(100);
    }
    const run = await running;

    const partial = seen.filter((current) => current.counts.created > 0 && current.counts.created < emails.length);
    expect(partial.length).toBeGreaterThan(0);
    for (const current of partial) expect(current).toMatchObject({ status: 'running', counts: { rows: 12, failed: 0 } });
    const created = seen.map((current) => current.counts.created);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    expect(run).toMatchObject({ status: 'done', counts: { rows: 12, created: 12, failed: 0 } });
    await mailQueueSettled();
    expect(await jobView(job.jobId)).toMatchObject({ status: 'done', welcomes: { sent: 12, pending: 0, failed: 0 } });
  });
});

test("retrying a job whose upload is gone is a 409, and the job stays failed and retryable", async () => {
  const job = await stageJob(org, csvOf([rowFor(org, 'VIEWER', uniqueEmail('gone'))]));
  await failJob(org.orgUuid, job.jobId, 'The import failed 3 times; retry the job to run it again');
  // As the bucket's lifecycle would: the upload expired.
  await s3Client().send(new DeleteObjectCommand({ Bucket: process.env.BULK_BUCKET_NAME!, Key: uploadKey(org.orgUuid, job.jobId) }));

  const response = await org.admin.api.post(bulkJobUrl(org, job.jobId, '/retry'), undefined);

  expect(response.status).toBe(409);
  expect(response.body).toMatchObject({ errorCode: 'CONFLICT', message: expect.stringContaining('no longer kept') });
  expect(await getJob(org.orgUuid, job.jobId)).toMatchObject({ status: 'failed', failure: { retryable: true } });
});

test('a job id without a job is ignored', async () => {
  expect(await runBulkCreateJob(org.orgUuid, randomUUID())).toBeUndefined();
});
