import { readQuotaUsage } from '../../infra/local/cognito-quotas';
import type { StackInfo } from '../../infra/local/stack';
import { jobUserUuid, runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';
import { readErrors } from '../../shared/domain/bulk/bulk-file.repository';
import { TokenBucket } from '../../shared/kernel/retry';
import { csvOf, rowFor, stageJob } from '../support/bulk-helpers';
import { ownStacks, targetOwnStack } from '../support/stack-process';
import { freshOrganization, identityOf, listAllUsers, tokenOf, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * A bulk job against Cognito's UserCreation quota, on a stack of this file's own whose quota a test can
 * reach (2 a second; the run's shared stack raises its quotas): a call Cognito refuses for its rate
 * waits for the worker's next turn and is tried again, so a valid row never fails for it.
 */

const QUOTAS = { UserCreation: 2 };

const own = ownStacks();
let info: StackInfo;
let org: TestOrg;

/** The calls cognito-local refused for UserCreation's quota so far. */
const throttledCreations = async () => (await readQuotaUsage(info.endpoints.cognito)).throttled.UserCreation ?? 0;

beforeAll(async () => {
  // The test helpers and this process's product modules (the worker's among them) target this stack.
  info = await targetOwnStack('bulk-throttling-', { LOCAL_COGNITO_QUOTAS: JSON.stringify(QUOTAS) }, own);
  org = await freshOrganization();
});

test('a worker pacing faster than the quota has its refused calls tried again on its later turns: every valid row is created, none fails for throttling', async () => {
  const emails = Array.from({ length: 16 }, (_, i) => uniqueEmail(`bulk-throttled-${i}`));
  const job = await stageJob(org, csvOf(emails.map((email) => rowFor(org, 'VIEWER', email, { Password: 'Throttle-Passw0rd' }))));
  const refusedBefore = await throttledCreations();

  // Ten a second, all at once at first, against Cognito's two: most first calls are refused.
  const run = await runBulkCreateJob(org.orgUuid, job.jobId, { creationRate: new TokenBucket({ ratePerSecond: 10 }) });

  expect(await throttledCreations()).toBeGreaterThan(refusedBefore);
  expect(run).toMatchObject({ status: 'done', counts: { rows: 16, created: 16, failed: 0 } });
  expect(await readErrors(org.orgUuid, job.jobId)).toEqual([]);
  const listed = (await listAllUsers(org.admin.api, org)).filter((user) => emails.includes(user.email));
  expect(listed.map((user) => user.email).sort()).toEqual([...emails].sort());
  for (const email of emails) {
    expect(await identityOf(jobUserUuid(job.jobId, email))).toEqual({ email, enabled: true });
    expect((await tokenOf(org.realm, email, 'Throttle-Passw0rd')).access_token).toEqual(expect.any(String));
  }
});
