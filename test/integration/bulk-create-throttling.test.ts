import { join } from 'node:path';
import { QUOTA_USAGE_TARGET, type QuotaUsage } from '../../infra/local/cognito-quotas';
import type { StackInfo } from '../../infra/local/stack';
import { runningLocalStack, useStackEnvironment } from '../../infra/stack-target';
import { jobUserUuid, runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';
import { readErrors } from '../../shared/domain/bulk/bulk-file.repository';
import { TokenBucket } from '../../shared/kernel/retry';
import { csvOf, rowFor, stageJob } from '../support/bulk-helpers';
import { removeAll, spawnStack, stackEnv, stopStack, tempDir, whenReady, type StackProcess } from '../support/stack-process';
import { freshOrganization, identityOf, listAllUsers, tokenOf, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * A bulk job against Cognito's UserCreation quota, on a stack of this file's own whose quota a test can
 * reach (2 a second; the run's shared stack raises its quotas): a call Cognito refuses for its rate
 * waits for the worker's next turn and is tried again, so a valid row never fails for it.
 */

const QUOTAS = { UserCreation: 2 };

const dirs: string[] = [];
let running: StackProcess;
let info: StackInfo;
let org: TestOrg;

/** The calls cognito-local refused for UserCreation's quota so far. */
async function throttledCreations(): Promise<number> {
  const response = await fetch(info.endpoints.cognito, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${QUOTA_USAGE_TARGET}` },
    body: '{}',
  });
  return ((await response.json()) as QuotaUsage).throttled.UserCreation ?? 0;
}

beforeAll(async () => {
  const dataDir = tempDir('bulk-throttling-', dirs);
  running = spawnStack(['--fresh', '--data-dir', dataDir], stackEnv({ PORT: '0', LOCAL_COGNITO_QUOTAS: JSON.stringify(QUOTAS) }));
  info = await whenReady(running, dataDir);
  // The test helpers and this process's product modules (the worker's among them) target this stack.
  process.env.TEST_STACK_JSON = join(dataDir, 'stack.json');
  useStackEnvironment(runningLocalStack(dataDir));
  org = await freshOrganization();
});

afterAll(async () => {
  if (running) await stopStack(running, 'SIGKILL');
  removeAll(dirs);
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
