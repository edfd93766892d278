import { randomUUID } from 'node:crypto';
import { authorizeOrgAdmin } from '../../shared/app/access/org-access';
import { bulkDelete } from '../../shared/app/bulk/bulk-users.service';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import {
  botReach,
  codesOf,
  deleteRequest,
  grantOf,
  grantRequest,
  grantRow,
  grantsOfUser,
  permissionsCsv,
  revokeRequest,
  sortedGrants,
  type GrantPlace,
  type PermissionRow,
} from '../support/bulk-users-helpers';
import { adminToken, stack } from '../support/stack';
import {
  adminSet,
  callerOf,
  deleteViaApi,
  freshOrganization,
  identityOf,
  listAllUsers,
  mailsTo,
  member,
  readUser,
  refresh,
  signIn,
  uniqueEmail,
  type Member,
  type TestOrg,
} from '../support/user-helpers';

/**
 * Bulk deletion and the bulk permission routes (docs/api/bulk.md): each item is handled on its own
 * and the answer lists the ones that failed, with a stable code and the item's index (JSON lists) or
 * line (CSV files). Effects are checked the way a client sees them: reading the user, signing in, and
 * reaching a bot with the user's token. `org` is the file's own organization; the ADMIN-set tests
 * take one each, since they assert on the whole set.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

/** A signed-in user with a role, granted `places` (or the role's usual grant: bot A1, or environment A for a SUPERVISOR). */
const someone = (role: Member['role'], places?: GrantPlace[], on: TestOrg = org) =>
  member(on, role, places ? { permissions: places.map((p) => grantOf(on, p)) } : {});

/** A user of `org` deleted through the single delete. */
async function deletedUser(): Promise<Member> {
  const user = await someone('VIEWER');
  await deleteViaApi(org, user.uuid);
  return user;
}

const selfStatus = async (who: Member, on: TestOrg = org) => (await who.api.get(on.url(`/${who.uuid}`))).status;
const signInStatus = async (who: Member, on: TestOrg = org) => (await signIn(on.realm, who.email, TEST_PASSWORD)).status;
const seeded = () => stack().orgs[0]!;

// ---------------------------------------------------------------------------------------------------
describe('DELETE /users/bulk-delete', () => {
  test('deletes each listed user as DELETE /users/{id} does: record kept as DELETED, identity provider disabled, sessions and tokens refused', async () => {
    const [viewer, supervisor, bystander] = await Promise.all([someone('VIEWER'), someone('SUPERVISOR'), someone('EDITOR')]);
    const before = await Promise.all([readUser(org, viewer.uuid), readUser(org, supervisor.uuid)]);
    expect(await selfStatus(viewer)).toBe(200);

    // Any case: e-mails are matched as the single operations match them.
    const response = await deleteRequest(org, [viewer.email, supervisor.email.toUpperCase()]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(await Promise.all([readUser(org, viewer.uuid), readUser(org, supervisor.uuid)])).toEqual(before.map((u) => ({ ...u, status: 'DELETED' })));
    for (const gone of [viewer, supervisor]) {
      expect(await identityOf(gone.uuid)).toMatchObject({ enabled: false });
      expectError(await gone.api.get(org.url(`/${gone.uuid}`)), 401, 'UNAUTHENTICATED');
      expect((await refresh(org.realm, gone.refreshToken)).status).toBe(400);
      expect(await signInStatus(gone)).toBe(400);
      expect(await mailsTo(gone.email)).toEqual([]);
    }
    const deleted = await listAllUsers(org.admin.api, org, `&status=DELETED&searchTerms=${encodeURIComponent(viewer.email)}`);
    expect(deleted.map((u) => u.uuid)).toEqual([viewer.uuid]);
    expect(await readUser(org, bystander.uuid)).toMatchObject({ status: 'ACTIVE' });
    expect(await selfStatus(bystander)).toBe(200);
  });

  test('reports each failure with its e-mail, code and 0-based index, in list order, and deletes the rest', async () => {
    const [a, b, gone] = await Promise.all([someone('VIEWER'), someone('EDITOR'), deletedUser()]);
    const unknown = uniqueEmail('unknown');

    const response = await deleteRequest(org, [
      a.email,
      unknown,
      gone.email,
      org.admin.email,
      seeded().admin.email,
      b.email,
      a.email.toUpperCase(),
    ]);

    expect(response.status).toBe(200);
    expect(codesOf(response.body)).toEqual([
      { email: unknown, errorCode: 'USER_NOT_FOUND', index: 1 },
      { email: gone.email, errorCode: 'USER_DELETED', index: 2 },
      { email: org.admin.email, errorCode: 'SELF_DELETE', index: 3 },
      // Another organization's user is not this organization's.
      { email: seeded().admin.email, errorCode: 'USER_NOT_FOUND', index: 4 },
      // Named twice: the second time it is already deleted.
      { email: a.email.toUpperCase(), errorCode: 'USER_DELETED', index: 6 },
    ]);
    expect((await readUser(org, a.uuid)).status).toBe('DELETED');
    expect((await readUser(org, b.uuid)).status).toBe('DELETED');
    expect(await readUser(org, org.admin.uuid)).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await selfStatus(org.admin)).toBe(200);
    await expect(adminToken(0)).resolves.toMatchObject({ accessToken: expect.any(String) });
  });

  test('dryRun=true answers what the real run answers and changes nothing; dryRun=false deletes', async () => {
    const [a, gone] = await Promise.all([someone('EDITOR'), deletedUser()]);
    const unknown = uniqueEmail('dry-unknown');
    const list = [a.email, unknown, gone.email, org.admin.email, a.email];
    const before = await readUser(org, a.uuid);

    const dry = await deleteRequest(org, list, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual([
      { email: unknown, errorCode: 'USER_NOT_FOUND', index: 1 },
      { email: gone.email, errorCode: 'USER_DELETED', index: 2 },
      { email: org.admin.email, errorCode: 'SELF_DELETE', index: 3 },
      { email: a.email, errorCode: 'USER_DELETED', index: 4 },
    ]);
    expect(await readUser(org, a.uuid)).toEqual(before);
    expect(await identityOf(a.uuid)).toMatchObject({ enabled: true });
    expect(await selfStatus(a)).toBe(200);
    expect(await signInStatus(a)).toBe(200);

    const real = await deleteRequest(org, list, { dryRun: false });

    expect(real.status).toBe(200);
    expect(real.body).toEqual(dry.body);
    expect((await readUser(org, a.uuid)).status).toBe('DELETED');
    expect(await signInStatus(a)).toBe(400);
  });

  test.each([
    ['an empty list', [], ['(body)']],
    ['a blank e-mail', ['VALID', '   '], ['1']],
    ['an e-mail over 254 characters', ['VALID', `${'x'.repeat(250)}@example.test`], ['1']],
    ['a list of 1001 e-mails', 'MANY', ['(body)']],
    ['something else than strings', ['VALID', 7, { email: 'x@example.test' }], ['1', '2']],
    ['an object instead of a list', { emails: ['VALID'] }, ['(body)']],
  ])('%s is 422 and deletes nobody', async (_what, body, fields) => {
    const victim = await someone('VIEWER');
    const named = (value: unknown) => (value === 'VALID' ? victim.email : value);
    const payload = body === 'MANY' ? [victim.email, ...Array.from({ length: 1000 }, (_, i) => `many-${i}@example.test`)] : Array.isArray(body) ? body.map(named) : body;

    expectFieldErrors(await deleteRequest(org, payload), fields);
    expectFieldErrors(await deleteRequest(org, payload, { dryRun: true }), fields);

    expect((await readUser(org, victim.uuid)).status).toBe('ACTIVE');
  });

  test('a body that is not JSON is 400 MALFORMED_JSON; dryRun other than true or false is 422', async () => {
    const victim = await someone('VIEWER');

    expectError(await deleteRequest(org, `["${victim.email}"`), 400, 'MALFORMED_JSON');
    expectFieldErrors(await deleteRequest(org, [victim.email], { dryRun: 'yes' }), ['dryRun']);

    expect((await readUser(org, victim.uuid)).status).toBe('ACTIVE');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('bulk-delete and the last ADMIN', () => {
  test('ADMIN A deletes ADMIN B; B then can delete nobody, and A, unable to delete itself, stays the last ADMIN', async () => {
    const own = await freshOrganization();
    const a = own.admin;
    const b = await member(own, 'ADMIN');
    expect(await adminSet(own.orgUuid)).toEqual([a.uuid, b.uuid].sort());

    const first = await deleteRequest(own, [b.email]);

    expect(first.status).toBe(200);
    expect(first.body).toEqual([]);
    expect(await adminSet(own.orgUuid)).toEqual([a.uuid]);
    expect(await identityOf(b.uuid)).toMatchObject({ enabled: false });
    expect(await signInStatus(b, own)).toBe(400);
    // B's token died with B: it cannot take A with it.
    expectError(await deleteRequest(own, [a.email], { token: b.token }), 401, 'UNAUTHENTICATED');

    // A, now the last ADMIN, names itself and B: it is never deleted, so the organization keeps it.
    const second = await deleteRequest(own, [a.email, b.email]);

    expect(second.status).toBe(200);
    expect(codesOf(second.body)).toEqual([
      { email: a.email, errorCode: 'SELF_DELETE', index: 0 },
      { email: b.email, errorCode: 'USER_DELETED', index: 1 },
    ]);
    expect(await readUser(own, a.uuid)).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await adminSet(own.orgUuid)).toEqual([a.uuid]);
    expect((await a.api.get(own.url())).status).toBe(200);
  });

  test('a list naming every ADMIN deletes every other one and keeps the caller (dry run first: nothing changes)', async () => {
    const own = await freshOrganization();
    const [b, c, viewer] = await Promise.all([member(own, 'ADMIN'), member(own, 'ADMIN'), member(own, 'VIEWER')]);
    const everyone = [b.email, own.admin.email, c.email, viewer.email];
    const expected = [{ email: own.admin.email, errorCode: 'SELF_DELETE', index: 1 }];

    const dry = await deleteRequest(own, everyone, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid, b.uuid, c.uuid].sort());
    expect(await Promise.all([b, c, viewer].map((m) => selfStatus(m, own)))).toEqual([200, 200, 200]);

    const real = await deleteRequest(own, everyone);

    expect(real.status).toBe(200);
    expect(codesOf(real.body)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid]);
    for (const gone of [b, c, viewer]) expect((await readUser(own, gone.uuid)).status).toBe('DELETED');
    expect(await readUser(own, own.admin.uuid)).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
  });

  // Through HTTP the caller is always an active ADMIN that cannot delete itself, so it always remains:
  // LAST_ADMIN needs a caller authenticated just before it stopped being an ADMIN. That interleaving is
  // made deterministic here by reading the caller first, then letting the other ADMIN act.
  test('LAST_ADMIN: a caller deleted meanwhile deletes ADMINs in list order until one is left (dry run agrees)', async () => {
    const own = await freshOrganization();
    const [second, third] = await Promise.all([member(own, 'ADMIN'), member(own, 'ADMIN')]);
    const staleFirst = await authorizeOrgAdmin(await callerOf(own.admin.token), own.orgUuid);
    expect((await deleteRequest(own, [own.admin.email], { token: second.token })).body).toEqual([]);
    const expected = [{ email: third.email, errorCode: 'LAST_ADMIN', index: 1 }];

    const dry = await bulkDelete(staleFirst, [second.email, third.email], true);

    expect(codesOf(dry)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid, third.uuid].sort());

    const real = await bulkDelete(staleFirst, [second.email, third.email], false);

    expect(codesOf(real)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([third.uuid]);
    expect((await third.api.get(own.url(`/${second.uuid}`))).body).toMatchObject({ status: 'DELETED' });
    expect((await third.api.get(own.url(`/${third.uuid}`))).body).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await identityOf(third.uuid)).toMatchObject({ enabled: true });
    expect(await signInStatus(third, own)).toBe(200);
  });

  test('two ADMINs bulk-deleting each other at once: one succeeds, and one ADMIN stays active', async () => {
    const rounds = await Promise.all([0, 1].map(async () => {
      const own = await freshOrganization();
      return { own, first: own.admin, second: await member(own, 'ADMIN') };
    }));

    await Promise.all(
      rounds.map(async ({ own, first, second }) => {
        const [a, b] = await Promise.all([
          deleteRequest(own, [second.email], { token: first.token }),
          deleteRequest(own, [first.email], { token: second.token }),
        ]);

        const won = [a, b].filter((r) => r.status === 200 && r.body.length === 0);
        expect(won).toHaveLength(1);
        const loser = won[0] === a ? b : a;
        // The loser hit the guard, or was already deleted when its request was authenticated.
        if (loser.status === 200) expect(codesOf(loser.body)).toEqual([{ email: expect.any(String), errorCode: 'LAST_ADMIN', index: 0 }]);
        else expectError(loser, 401, 'UNAUTHENTICATED');
        const survivor = won[0] === a ? first : second;
        expect(await adminSet(own.orgUuid)).toEqual([survivor.uuid]);
        expect((await survivor.api.get(own.url(`/${survivor.uuid}`))).body).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------
describe('POST /users/bulk-permissions', () => {
  test('grants what each row names, keeps what the user had, and the new bots are reachable at once', async () => {
    const [viewer, editor, supervisor] = await Promise.all([
      someone('VIEWER', ['A1']),
      someone('EDITOR', ['A1']),
      someone('SUPERVISOR', ['envA']),
    ]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });
    expect(await botReach(org, editor)).toEqual({ A1: 200, A2: 403, B1: 403 });
    expect(await botReach(org, supervisor)).toEqual({ A1: 200, A2: 200, B1: 403 });
    // Columns are found by name, in any order and case.
    const csv = permissionsCsv(
      [grantRow(org, viewer.email, 'A2'), grantRow(org, editor.email, 'B1'), grantRow(org, supervisor.email, 'envB'), grantRow(org, editor.email.toUpperCase(), 'A2')],
      ['Bot', 'Email', 'EnvironmentName', 'EnvironmentUuid'],
    ).replace(/^[^\r]*/, ' bot , EMAIL,environmentname,EnvironmentUUID');

    const response = await grantRequest(org, csv);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'A2')]));
    expect(await grantsOfUser(org, editor.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'A2'), grantOf(org, 'B1')]));
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual(sortedGrants([grantOf(org, 'envA'), grantOf(org, 'envB')]));
    expect(await readUser(org, editor.uuid)).toMatchObject({ role: 'EDITOR', status: 'ACTIVE' });
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 200, B1: 403 });
    expect(await botReach(org, editor)).toEqual({ A1: 200, A2: 200, B1: 200 });
    expect(await botReach(org, supervisor)).toEqual({ A1: 200, A2: 200, B1: 200 });
  });

  test('the Bot column may be left out (SUPERVISORs get whole environments); a grant already held or listed twice is kept once', async () => {
    const [supervisor, viewer] = await Promise.all([someone('SUPERVISOR', ['envA']), someone('VIEWER', ['A1'])]);

    const noBotColumn = await grantRequest(
      org,
      permissionsCsv([grantRow(org, supervisor.email, 'envA'), grantRow(org, supervisor.email, 'envB'), grantRow(org, supervisor.email, 'envB')], ['Email', 'EnvironmentUuid', 'EnvironmentName']),
    );
    const again = await grantRequest(org, permissionsCsv([grantRow(org, viewer.email, 'A1'), grantRow(org, viewer.email, 'A1')]));

    expect([noBotColumn.status, noBotColumn.body]).toEqual([200, []]);
    expect([again.status, again.body]).toEqual([200, []]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual(sortedGrants([grantOf(org, 'envA'), grantOf(org, 'envB')]));
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  /** A file with one row per error code (and its variants) and valid rows among them; the expected errors by line. */
  async function mixedFile() {
    const [viewer, editor, supervisor, gone] = await Promise.all([
      someone('VIEWER', ['A1']),
      someone('EDITOR', ['A1']),
      someone('SUPERVISOR', ['envA']),
      deletedUser(),
    ]);
    const unknown = uniqueEmail('grant-unknown');
    const seededEnv = seeded().environments[0]!;
    const onA = (email: string, bot: string, envName = 'Env A'): PermissionRow => ({ Email: email, EnvironmentUuid: org.envA, EnvironmentName: envName, Bot: bot });
    const rows: [PermissionRow, string | undefined][] = [
      [grantRow(org, unknown, 'A2'), 'USER_NOT_FOUND'],
      [grantRow(org, gone.email, 'A2'), 'USER_NOT_FOUND'],
      [grantRow(org, seeded().admin.email, 'A2'), 'USER_NOT_FOUND'],
      [grantRow(org, org.admin.email, 'A2'), 'ADMIN_HAS_ALL'],
      [{ ...grantRow(org, viewer.email, 'A2'), EnvironmentUuid: '' }, 'ENVIRONMENT_REQUIRED'],
      [{ ...grantRow(org, supervisor.email, 'envB'), EnvironmentName: '' }, 'ENVIRONMENT_REQUIRED'],
      [grantRow(org, viewer.email, 'envA'), 'BOT_REQUIRED'],
      [grantRow(org, editor.email, 'envB'), 'BOT_REQUIRED'],
      [{ ...grantRow(org, viewer.email, 'A2'), EnvironmentUuid: randomUUID() }, 'ENVIRONMENT_NOT_FOUND'],
      [{ Email: viewer.email, EnvironmentUuid: org.inactiveEnv, EnvironmentName: 'Env inactive', Bot: org.botA2 }, 'ENVIRONMENT_NOT_FOUND'],
      [{ Email: supervisor.email, EnvironmentUuid: org.inactiveEnv, EnvironmentName: 'Env inactive' }, 'ENVIRONMENT_NOT_FOUND'],
      [{ ...grantRow(org, viewer.email, 'A2'), EnvironmentUuid: 'env-a' }, 'ENVIRONMENT_NOT_FOUND'],
      [{ Email: supervisor.email, EnvironmentUuid: seededEnv.uuid, EnvironmentName: seededEnv.name }, 'ENVIRONMENT_NOT_FOUND'],
      [onA(viewer.email, org.botA2, 'Env B'), 'ENVIRONMENT_NAME_MISMATCH'],
      [onA(viewer.email, randomUUID()), 'BOT_NOT_FOUND'],
      [onA(viewer.email, org.inactiveBot), 'BOT_NOT_FOUND'],
      [onA(editor.email, org.botB1), 'BOT_NOT_FOUND'],
      [onA(viewer.email, 'bot-a2'), 'BOT_NOT_FOUND'],
      // Valid: granted whatever the user's other rows say. The environment name is matched in any case.
      [onA(viewer.email, org.botA2, ' env a '), undefined],
      [grantRow(org, supervisor.email.toUpperCase(), 'B1'), undefined],
    ];
    const csv = permissionsCsv(rows.map(([row]) => row));
    const errors = rows.flatMap(([row, errorCode], i) => (errorCode ? [{ email: row.Email, errorCode, line: i + 2 }] : []));
    return { viewer, editor, supervisor, gone, csv, errors };
  }

  test('reports every row that breaks a rule with its line and code, and grants the other rows', async () => {
    const { viewer, editor, supervisor, gone, csv, errors } = await mixedFile();
    const goneBefore = await readUser(org, gone.uuid);

    const response = await grantRequest(org, csv);

    expect(response.status).toBe(200);
    expect(codesOf(response.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'A2')]));
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual(sortedGrants([grantOf(org, 'envA'), grantOf(org, 'B1')]));
    expect(await grantsOfUser(org, editor.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await readUser(org, gone.uuid)).toEqual(goneBefore);
    expect(await readUser(org, org.admin.uuid)).toMatchObject({ role: 'ADMIN', permissions: [] });
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 200, B1: 403 });
    expect(await botReach(org, supervisor)).toEqual({ A1: 200, A2: 200, B1: 200 });
  });

  test('dryRun=true answers what the real run answers and grants nothing', async () => {
    const { viewer, supervisor, csv, errors } = await mixedFile();

    const dry = await grantRequest(org, csv, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'envA')]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });

    const real = await grantRequest(org, csv, { dryRun: 'false' });

    expect(real.body).toEqual(dry.body);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'A2')]));
  });

  const header = 'Email,EnvironmentUuid,EnvironmentName,Bot\r\n';
  test.each<[string, number, string, (valid: string) => string | Buffer]>([
    ['an empty file', 422, 'EMPTY_FILE', () => ''],
    ['a header without rows', 422, 'EMPTY_FILE', () => `${header}\r\n,,,\r\n`],
    ['a binary file', 422, 'NOT_CSV', (valid) => Buffer.concat([Buffer.from(valid), Buffer.from([0x00, 0xff, 0xfe, 0x00, 0x01])])],
    ['an unclosed quote', 422, 'NOT_CSV', (valid) => `${valid}"x@example.test,${randomUUID()},Env A,\r\n`],
    ['a missing EnvironmentName column', 422, 'MISSING_COLUMNS', (valid) => valid.replace('EnvironmentName', 'EnvName')],
    // The valid first row must not be granted before the limit is found.
    ['5,001 rows', 422, 'TOO_MANY_ROWS', (valid) => valid + valid.split('\r\n')[1]!.concat('\r\n').repeat(5000)],
    ['a file over 1 MiB', 413, 'FILE_TOO_LARGE', (valid) => `${valid}${'x'.repeat(1024 * 1024)}\r\n`],
  ])('%s is %i %s and grants nothing (dry run alike)', async (_what, status, errorCode, file) => {
    const viewer = await someone('VIEWER', ['A1']);
    const valid = permissionsCsv([grantRow(org, viewer.email, 'A2')]);

    expectError(await grantRequest(org, file(valid)), status, errorCode);
    expectError(await grantRequest(org, file(valid), { dryRun: true }), status, errorCode);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  test('a form without a file part is 422; a JSON body is refused; neither grants anything', async () => {
    const viewer = await someone('VIEWER', ['A1']);
    const valid = permissionsCsv([grantRow(org, viewer.email, 'A2')]);

    expectFieldErrors(await grantRequest(org, valid, { part: 'upload' }), ['file']);
    const json = await org.admin.api.post(org.url('/bulk-permissions'), [grantRow(org, viewer.email, 'A2')]);
    expect([415, 422]).toContain(json.status);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('DELETE /users/bulk-permissions', () => {
  test('environmentUuid and bot revoke that bot: the token loses it at once and keeps the others', async () => {
    const viewer = await someone('VIEWER', ['A1', 'A2']);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 200, B1: 403 });

    // UUIDs in any case.
    const response = await revokeRequest(org, [{ email: viewer.email, environmentUuid: org.envA.toUpperCase(), bot: org.botA2.toUpperCase() }]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });
    expect(await readUser(org, viewer.uuid)).toMatchObject({ role: 'VIEWER', status: 'ACTIVE' });
  });

  test('environmentUuid alone revokes every grant in that environment, bot grants and the environment-wide one', async () => {
    const [editor, supervisor] = await Promise.all([someone('EDITOR', ['A1', 'A2', 'B1']), someone('SUPERVISOR', ['envA', 'A1', 'B1'])]);

    const response = await revokeRequest(org, [
      { email: editor.email, environmentUuid: org.envA },
      { email: supervisor.email, environmentUuid: org.envA },
    ]);

    expect([response.status, response.body]).toEqual([200, []]);
    expect(await grantsOfUser(org, editor.uuid)).toEqual([grantOf(org, 'B1')]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'B1')]);
    expect(await botReach(org, editor)).toEqual({ A1: 403, A2: 403, B1: 200 });
    expect(await botReach(org, supervisor)).toEqual({ A1: 403, A2: 403, B1: 200 });
  });

  test('email alone revokes every grant: the user stays, signs in, and reaches no bot', async () => {
    const editor = await someone('EDITOR', ['A1', 'B1']);

    const response = await revokeRequest(org, [{ email: editor.email }]);

    expect([response.status, response.body]).toEqual([200, []]);
    expect(await readUser(org, editor.uuid)).toMatchObject({ role: 'EDITOR', status: 'ACTIVE', permissions: [] });
    expect(await botReach(org, editor)).toEqual({ A1: 403, A2: 403, B1: 403 });
    expect(await selfStatus(editor)).toBe(200);
    expect(await signInStatus(editor)).toBe(200);
    // "Every grant" of a user that has none is done already: no error.
    expect((await revokeRequest(org, [{ email: editor.email }])).body).toEqual([]);
  });

  /** A list with one item per error code (and its variants) and valid items among them; the expected errors. */
  async function mixedList() {
    const [viewer, supervisor, gone] = await Promise.all([someone('VIEWER', ['A1', 'B1']), someone('SUPERVISOR', ['envA']), deletedUser()]);
    const unknown = uniqueEmail('revoke-unknown');
    const items: [{ email: string; environmentUuid?: string; bot?: string }, string | undefined][] = [
      [{ email: unknown }, 'USER_NOT_FOUND'],
      [{ email: gone.email, environmentUuid: org.envA, bot: org.botA1 }, 'USER_NOT_FOUND'],
      [{ email: seeded().admin.email }, 'USER_NOT_FOUND'],
      [{ email: org.admin.email }, 'ADMIN_HAS_ALL'],
      [{ email: viewer.email, environmentUuid: org.envA, bot: org.botA2 }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email, environmentUuid: org.inactiveEnv }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email, environmentUuid: randomUUID(), bot: org.botB1 }, 'GRANT_NOT_FOUND'],
      // An environment-wide grant is not a grant of each of its bots.
      [{ email: supervisor.email, environmentUuid: org.envA, bot: org.botA1 }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email.toUpperCase(), environmentUuid: org.envB, bot: org.botB1 }, undefined],
      [{ email: supervisor.email, environmentUuid: org.envB }, 'GRANT_NOT_FOUND'],
    ];
    const errors = items.flatMap(([item, errorCode], index) => (errorCode ? [{ email: item.email, errorCode, index }] : []));
    return { viewer, supervisor, gone, items: items.map(([item]) => item), errors };
  }

  test('reports every item that cannot be revoked with its index and code, and revokes the others', async () => {
    const { viewer, supervisor, gone, items, errors } = await mixedList();
    const goneBefore = await readUser(org, gone.uuid);

    const response = await revokeRequest(org, items);

    expect(response.status).toBe(200);
    expect(codesOf(response.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'envA')]);
    expect(await readUser(org, gone.uuid)).toEqual(goneBefore);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });
  });

  test('dryRun=true answers what the real run answers and revokes nothing', async () => {
    const { viewer, supervisor, items, errors } = await mixedList();

    const dry = await revokeRequest(org, items, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'B1')]));
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'envA')]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 200 });

    const real = await revokeRequest(org, items, { dryRun: false });

    expect(real.body).toEqual(dry.body);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  // A dry run judges each item against what the earlier items of the list would have revoked, so a
  // grant revoked twice (or a bot grant after its whole environment) fails in both runs alike.
  test('a dry run answers what the real run answers for a list that revokes one grant twice', async () => {
    const editor = await someone('EDITOR', ['A1', 'A2', 'B1']);
    const items = [
      { email: editor.email, environmentUuid: org.envB, bot: org.botB1 },
      { email: editor.email, environmentUuid: org.envB, bot: org.botB1 },
      { email: editor.email, environmentUuid: org.envA },
      { email: editor.email, environmentUuid: org.envA, bot: org.botA1 },
    ];

    const dry = await revokeRequest(org, items, { dryRun: true });
    const real = await revokeRequest(org, items);

    expect(codesOf(real.body)).toEqual([
      { email: editor.email, errorCode: 'GRANT_NOT_FOUND', index: 1 },
      { email: editor.email, errorCode: 'GRANT_NOT_FOUND', index: 3 },
    ]);
    expect(dry.body).toEqual(real.body);
  });

  test.each([
    ['bot without environmentUuid', [{ email: 'VALID', bot: 'BOT' }], ['0.environmentUuid']],
    ['an environmentUuid that is no uuid', [{ email: 'VALID', environmentUuid: 'env-a' }], ['0.environmentUuid']],
    ['a bot that is no uuid', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'bot-a1' }], ['0.bot']],
    ['an item without email', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'BOT' }, { environmentUuid: 'ENV' }], ['1.email']],
    ['a blank email', [{ email: '  ' }], ['0.email']],
    ['a field of no item', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'BOT', botUuid: 'BOT' }], ['0.botUuid']],
    ['an empty list', [], ['(body)']],
    ['a list of 1001 items', 'MANY', ['(body)']],
    ['an object instead of a list', { email: 'VALID' }, ['(body)']],
  ])('%s is 422 and revokes nothing', async (_what, body, fields) => {
    const viewer = await someone('VIEWER', ['A1']);
    const values: Record<string, string> = { VALID: viewer.email, ENV: org.envA, BOT: org.botA1 };
    const fill = (item: unknown) => Object.fromEntries(Object.entries(item as object).map(([k, v]) => [k, values[v as string] ?? v]));
    const payload = body === 'MANY' ? Array.from({ length: 1001 }, () => ({ email: viewer.email })) : Array.isArray(body) ? body.map(fill) : fill(body);

    expectFieldErrors(await revokeRequest(org, payload), fields);
    expectFieldErrors(await revokeRequest(org, payload, { dryRun: true }), fields);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  test('a body that is not JSON is 400 MALFORMED_JSON', async () => {
    expectError(await revokeRequest(org, '[{"email": '), 400, 'MALFORMED_JSON');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('who may run the bulk operations', () => {
  /** The three operations on a victim of `org`, as a given token; and a check that nothing changed. */
  async function everyOperation(token: string | null, orgUuidInPath = org.orgUuid) {
    const victim = await someone('VIEWER', ['A1']);
    const target: TestOrg = { ...org, url: (path = '') => org.url(path).replace(org.orgUuid, orgUuidInPath) };
    const responses = [
      await deleteRequest(target, [victim.email], { token }),
      await grantRequest(target, permissionsCsv([grantRow(org, victim.email, 'A2')]), { token }),
      await revokeRequest(target, [{ email: victim.email }], { token }),
    ];
    expect(await readUser(org, victim.uuid)).toMatchObject({ status: 'ACTIVE', permissions: [grantOf(org, 'A1')] });
    return responses;
  }

  test.each(['SUPERVISOR', 'EDITOR', 'VIEWER'] as const)('%s: 403 FORBIDDEN on each, and nothing changes', async (role) => {
    const caller = await someone(role, role === 'SUPERVISOR' ? ['envA'] : ['A1']);

    for (const response of await everyOperation(caller.token)) {
      expect(expectError(response, 403, 'FORBIDDEN').message).toBe('Only an ADMIN runs bulk operations');
    }
  });

  test("another organization's path is 404 NOT_FOUND on each, for this organization's ADMIN and for the other's", async () => {
    const seededAdmin = (await adminToken(0)).accessToken;

    for (const response of await everyOperation(seededAdmin)) expectError(response, 404, 'NOT_FOUND');
    for (const response of await everyOperation(org.admin.token, seeded().uuid)) expectError(response, 404, 'NOT_FOUND');
    for (const response of await everyOperation(seededAdmin)) expect(response.body).toMatchObject({ message: 'The organization was not found' });
  });

  test('a permissions file over 1 MiB from a user who is not an ADMIN is 403, as any request of theirs: who may comes before the file', async () => {
    const viewer = await someone('VIEWER', ['A1']);
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
    const other = await someone('ADMIN');
    await deleteViaApi(org, other.uuid);

    for (const response of await everyOperation(other.token)) expectError(response, 401, 'UNAUTHENTICATED');
  });
});
