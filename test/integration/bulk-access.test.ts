import { bulkRoutes, csvOf, expectNothingFor, pollJob, rowFor, uploadCsv } from '../support/bulk-helpers';
import { deleteRequest, grantOf, grantRequest, grantRow, permissionsCsv, revokeRequest, seededOrg, someone } from '../support/bulk-users-helpers';
import { expectError } from '../support/error-body';
import { adminToken } from '../support/stack';
import { deleteViaApi, listAllUsers, member, ownOrganization, readUser, uniqueEmail, usersUrl, type TestOrg } from '../support/user-helpers';

/**
 * Who may run the bulk operations (docs/api/bulk.md): an ADMIN of the organization only. Other roles
 * are refused (403), another organization's ADMIN finds nothing (404), a caller without a live token
 * is unauthenticated (401), and none of them changes anything. `org` is the file's own organization,
 * `other` another one.
 */

const org = ownOrganization();
const other = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('POST /users/bulk-create and the job routes', () => {
  let jobId: string;
  beforeAll(async () => {
    const answer = await uploadCsv(org, csvOf([rowFor(org, 'OWNER', uniqueEmail('matrix-job'))]), { respondAsync: true });
    jobId = (await pollJob(org, answer.headers.get('location')!)).view.jobId;
  });

  /** The other job routes of this organization, as the holder of `token`: an upload URL, a retry, the welcomes again. */
  const postsOf = (token: string) => {
    const as = bulkRoutes(org, token);
    return Promise.all([as.upload(), as.retry(jobId), as.welcomes(jobId)]);
  };

  test.each(['SUPERVISOR', 'EDITOR', 'VIEWER'] as const)('role %s is refused (403) every bulk route, and nothing is created', async (role) => {
    const caller = await member(org, role);
    const email = uniqueEmail(`matrix-${role.toLowerCase()}`);

    const upload = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: caller.token });
    const job = await bulkRoutes(org, caller.token).job(jobId);
    const rows = await bulkRoutes(org, caller.token).failedRows(jobId);
    const others = await postsOf(caller.token);

    expectError(upload, 403, 'FORBIDDEN');
    expectError(job, 403, 'FORBIDDEN');
    expectError(rows, 403, 'FORBIDDEN');
    for (const response of [upload, job, rows, ...others]) expect(expectError(response, 403, 'FORBIDDEN').message).toBe('Only an ADMIN runs bulk operations');
    await expectNothingFor(org, [email]);
  });

  test("another organization's ADMIN finds neither the routes of this organization nor its jobs (404)", async () => {
    const email = uniqueEmail('matrix-other');

    const upload = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: other.admin.token });
    const job = await bulkRoutes(org, other.admin.token).job(jobId);
    const rows = await bulkRoutes(org, other.admin.token).failedRows(jobId);
    const viaOwnOrg = await bulkRoutes(other).job(jobId);
    const others = await postsOf(other.admin.token);

    expectError(upload, 404, 'NOT_FOUND');
    expectError(job, 404, 'NOT_FOUND');
    expectError(rows, 404, 'NOT_FOUND');
    expectError(viaOwnOrg, 404, 'NOT_FOUND');
    for (const response of others) expect(expectError(response, 404, 'NOT_FOUND').message).toBe('The organization was not found');
    await expectNothingFor(org, [email]);
    expect((await listAllUsers(other.admin.api, other, '&status=ALL')).filter((u) => u.email === email)).toEqual([]);
  });

  test('without a token every bulk route is a 401', async () => {
    const email = uniqueEmail('matrix-anonymous');

    expectError(await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: null }), 401, 'UNAUTHENTICATED');
    expectError(await bulkRoutes(org, null).job(jobId), 401, 'UNAUTHENTICATED');
    expectError(await bulkRoutes(org, null).failedRows(jobId), 401, 'UNAUTHENTICATED');
    await expectNothingFor(org, [email]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('bulk delete and the bulk permission routes', () => {
  /** The three operations on a victim of `org`, as a given token; and a check that nothing changed. */
  async function everyOperation(token: string | null, orgUuidInPath = org.orgUuid) {
    const victim = await someone(org, 'VIEWER', ['A1']);
    const target: TestOrg = { ...org, orgUuid: orgUuidInPath, url: (path = '') => usersUrl(orgUuidInPath, path) };
    const responses = [
      await bulkRoutes(target, token).delete([victim.email]),
      await grantRequest(target, permissionsCsv([grantRow(org, victim.email, 'A2')]), { token }),
      await bulkRoutes(target, token).revoke([{ email: victim.email }]),
    ];
    expect(await readUser(org, victim.uuid)).toMatchObject({ status: 'ACTIVE', permissions: [grantOf(org, 'A1')] });
    return responses;
  }

  test.each(['SUPERVISOR', 'EDITOR', 'VIEWER'] as const)('%s: 403 FORBIDDEN on each, and nothing changes', async (role) => {
    const caller = await someone(org, role, role === 'SUPERVISOR' ? ['envA'] : ['A1']);

    for (const response of await everyOperation(caller.token)) {
      expect(expectError(response, 403, 'FORBIDDEN').message).toBe('Only an ADMIN runs bulk operations');
    }
  });

  test("another organization's path is 404 NOT_FOUND on each, for this organization's ADMIN and for the other's", async () => {
    const seededAdmin = (await adminToken(0)).accessToken;

    for (const response of await everyOperation(seededAdmin)) expectError(response, 404, 'NOT_FOUND');
    for (const response of await everyOperation(org.admin.token, seededOrg().uuid)) expectError(response, 404, 'NOT_FOUND');
    for (const response of await everyOperation(seededAdmin)) expect(response.body).toMatchObject({ message: 'The organization was not found' });
  });

  test('a permissions file over 1 MiB from a user who is not an ADMIN is 403, as any request of theirs: who may comes before the file', async () => {
    const viewer = await someone(org, 'VIEWER', ['A1']);
    const tooLarge = `${permissionsCsv([grantRow(org, viewer.email, 'A2')])}${'x'.repeat(1024 * 1024)}\r\n`;

    expectError(await grantRequest(org, tooLarge, { token: viewer.token }), 403, 'FORBIDDEN');
  });

  test('no token is 401 UNAUTHENTICATED on each, before the body is looked at', async () => {
    for (const response of await everyOperation(null)) expectError(response, 401, 'UNAUTHENTICATED');
    expectError(await deleteRequest(org, 'not json', { token: null }), 401, 'UNAUTHENTICATED');
    expectError(await revokeRequest(org, [], { token: null }), 401, 'UNAUTHENTICATED');
    expectError(await grantRequest(org, '', { token: null }), 401, 'UNAUTHENTICATED');
  });

  test("a deleted ADMIN's token is 401 UNAUTHENTICATED on each, and nothing changes", async () => {
    const formerAdmin = await someone(org, 'ADMIN');
    await deleteViaApi(org, formerAdmin.uuid);

    for (const response of await everyOperation(formerAdmin.token)) expectError(response, 401, 'UNAUTHENTICATED');
  });
});
