import { randomUUID } from 'node:crypto';
import { botReach, codesOf, deletedMember, grantOf, grantRequest, grantRow, grantsOfUser, permissionsCsv, seededOrg, someone, sortedGrants, type PermissionRow } from '../support/bulk-users-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { ownOrganization, readUser, uniqueEmail } from '../support/user-helpers';

/**
 * `POST /users/bulk-permissions` (docs/api/bulk.md): each row of a CSV file grants a bot or an
 * environment to a user, on its own; the answer lists the rows that failed with a stable code and
 * their line. Effects are checked the way a client sees them: reading the user and reaching a bot
 * with the user's token. One organization of the file's own.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('POST /users/bulk-permissions', () => {
  test('grants what each row names, keeps what the user had, and the new bots are reachable at once', async () => {
    const [viewer, editor, supervisor] = await Promise.all([
      someone(org, 'VIEWER', ['A1']),
      someone(org, 'EDITOR', ['A1']),
      someone(org, 'SUPERVISOR', ['envA']),
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
    const [supervisor, viewer] = await Promise.all([someone(org, 'SUPERVISOR', ['envA']), someone(org, 'VIEWER', ['A1'])]);

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
      someone(org, 'VIEWER', ['A1']),
      someone(org, 'EDITOR', ['A1']),
      someone(org, 'SUPERVISOR', ['envA']),
      deletedMember(org),
    ]);
    const unknown = uniqueEmail('grant-unknown');
    const seededEnv = seededOrg().environments[0]!;
    const onA = (email: string, bot: string, envName = 'Env A'): PermissionRow => ({ Email: email, EnvironmentUuid: org.envA, EnvironmentName: envName, Bot: bot });
    const rows: [PermissionRow, string | undefined][] = [
      [grantRow(org, unknown, 'A2'), 'USER_NOT_FOUND'],
      [grantRow(org, gone.email, 'A2'), 'USER_NOT_FOUND'],
      [grantRow(org, seededOrg().admin.email, 'A2'), 'USER_NOT_FOUND'],
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
    const viewer = await someone(org, 'VIEWER', ['A1']);
    const valid = permissionsCsv([grantRow(org, viewer.email, 'A2')]);

    expectError(await grantRequest(org, file(valid)), status, errorCode);
    expectError(await grantRequest(org, file(valid), { dryRun: true }), status, errorCode);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  test('a form without a file part is 422; a JSON body is refused; neither grants anything', async () => {
    const viewer = await someone(org, 'VIEWER', ['A1']);
    const valid = permissionsCsv([grantRow(org, viewer.email, 'A2')]);

    expectFieldErrors(await grantRequest(org, valid, { part: 'upload' }), ['file']);
    const json = await org.admin.api.post(org.url('/bulk-permissions'), [grantRow(org, viewer.email, 'A2')]);
    expect([415, 422]).toContain(json.status);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });
});
