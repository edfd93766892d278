import { jobUserUuid, runBulkCreateJob } from '../../shared/app/bulk/bulk-create.worker';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import type { BulkJob } from '../../shared/domain/bulk/bulk-job.repository';
import { readUserCount } from '../../shared/domain/users/user-index.repository';
import { putNewUser } from '../../shared/domain/users/user.repository';
import { claimEmails } from '../../shared/domain/users/user-email-claims.repository';
import { csvOf, expectCreatedOnce, rowFor, stageJob } from '../support/bulk-helpers';
import { freshOrganization, mailsTo, signIn, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The bulk worker registers the users no run of its job has begun in groups: their e-mails claimed in
 * one transaction, their records written several to a transaction. These tests make a group meet what
 * it can meet (a record written meanwhile, a run that stopped halfway through a group) and check that
 * each user is still created once, whole, against the real store and Cognito emulator.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const PASSWORD = 'Batch-Passw0rd';

/** Each e-mail is exactly one listed user, with the job's uuid, its claim done, its account, and one welcome; the organization's count moved by exactly their number. */
async function expectEachOnce(job: BulkJob, emails: string[], countBefore: number): Promise<void> {
  for (const user of await expectCreatedOnce(org, job, emails)) {
    expect(await mailsTo(user.email)).toHaveLength(1);
    expect((await signIn(org.realm, user.email, PASSWORD)).status).toBe(200);
  }
  expect((await readUserCount(org.orgUuid, { consistent: true })).ACTIVE).toBe(countBefore + emails.length);
}

test('a record written meanwhile fails the transaction it shares with other users: each of them is then written alone, and every user exists once', async () => {
  const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`batch-conflict-${i}`));
  const job = await stageJob(org, csvOf(emails.map((email) => rowFor(org, 'VIEWER', email, { Password: PASSWORD }))));
  const before = (await readUserCount(org.orgUuid, { consistent: true })).ACTIVE ?? 0;
  // Another attempt writes the record of one user of the group between its account and the group's write.
  const raced = emails[6]!;
  const provider: IdentityProvider = {
    ...cognitoIdentityProvider,
    createUser: async (input) => {
      await cognitoIdentityProvider.createUser(input);
      if (input.email !== raced) return;
      const now = new Date().toISOString();
      const written = await putNewUser({
        uuid: input.username, orgUuid: org.orgUuid, name: `VIEWER ${raced.split('@')[0]}`, email: raced, role: 'VIEWER',
        permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }], status: 'ACTIVE', createdAt: now, updatedAt: now,
      });
      expect(written).toBe(true);
    },
  };

  const run = await runBulkCreateJob(org.orgUuid, job.jobId, { ports: { identityProvider: provider } });

  expect(run).toMatchObject({ status: 'done', counts: { rows: 12, created: 12, failed: 0 } });
  await expectEachOnce(job, emails, before);
});

test('a run that stopped halfway through a group (every claim made, some accounts created, no record written) is completed by the rerun: every user once', async () => {
  const emails = Array.from({ length: 6 }, (_, i) => uniqueEmail(`batch-crash-${i}`));
  const job = await stageJob(org, csvOf(emails.map((email) => rowFor(org, 'VIEWER', email, { Password: PASSWORD }))));
  const before = (await readUserCount(org.orgUuid, { consistent: true })).ACTIVE ?? 0;
  // What the stopped run left: the group's claims, in one transaction, and the accounts of its first two users.
  expect(await claimEmails(org.orgUuid, emails.map((email) => ({ email, userUuid: jobUserUuid(job.jobId, email) })), new Date().toISOString())).toBe(true);
  for (const email of emails.slice(0, 2)) await cognitoIdentityProvider.createUser({ username: jobUserUuid(job.jobId, email), email, password: 'Stopped-Passw0rd' });

  const rerun = await runBulkCreateJob(org.orgUuid, job.jobId);

  expect(rerun).toMatchObject({ status: 'done', counts: { rows: 6, created: 6, failed: 0 } });
  await expectEachOnce(job, emails, before);
  for (const email of emails.slice(0, 2)) expect((await signIn(org.realm, email, 'Stopped-Passw0rd')).status).toBe(400);
});
