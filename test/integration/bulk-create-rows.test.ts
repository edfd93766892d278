import { randomUUID } from 'node:crypto';
import { messagesOf } from '../../shared/kernel/messages/messages-of';
import { codesOf, csvOf, expectNothingFor, mailedPassword, rowFor, rule, uploadCsv, type BulkErrorDto, type BulkRow, type NoUserCreatedBody } from '../support/bulk-helpers';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { deleteViaApi, expectTemporaryPassword, listAllUsers, mailsTo, member, onlyMailTo, ownOrganization, signIn, tokenOf, uniqueEmail, usersWithEmail, userWithEmail, type Member } from '../support/user-helpers';

/**
 * `POST /users/bulk-create` (docs/api/bulk.md) row by row, through the local stack's gateway, its
 * worker, the Cognito emulator and the SES emulator: the rules each row is held to, the users the
 * valid rows create, their sign-ins and their welcome e-mails in each language.
 */

const org = ownOrganization();
const other = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('the rules, row by row', () => {
  let existing: Member;
  let deleted: Member;
  const run = {
    viewer: uniqueEmail('bk-viewer'),
    editor: uniqueEmail('bk-editor'),
    supervisor: uniqueEmail('bk-supervisor'),
    admin: uniqueEmail('bk-admin'),
    conflict: uniqueEmail('bk-conflict'),
    weak: uniqueEmail('bk-weak'),
    noRole: uniqueEmail('bk-norole'),
    badRole: uniqueEmail('bk-badrole'),
    editorNoBot: uniqueEmail('bk-editor-nobot'),
    supervisorNoEnv: uniqueEmail('bk-sup-noenv'),
    unknownEnv: uniqueEmail('bk-unknown-env'),
    inactiveEnv: uniqueEmail('bk-inactive-env'),
    foreignEnv: uniqueEmail('bk-foreign-env'),
    envName: uniqueEmail('bk-env-name'),
    foreignBot: uniqueEmail('bk-foreign-bot'),
    inactiveBot: uniqueEmail('bk-inactive-bot'),
    merged: uniqueEmail('bk-merged'),
  };
  const passwords = { viewer: 'Viewer-Passw0rd', supervisor: 'Superv1sor!', admin: 'Adm1n-Passw0rd' };
  let failures: ReturnType<typeof rule>[];
  let answer: ApiResponse<BulkErrorDto[]>;

  beforeAll(async () => {
    existing = await member(org, 'VIEWER', { name: 'Existing Viewer' });
    deleted = await member(org, 'EDITOR', { name: 'Deleted Editor' });
    await deleteViaApi(org, deleted.uuid);
    // Each row with the code of the error its user gets, if any (line = index + 2: the header is line 1).
    const rows: [BulkRow, string?][] = [
      /* 2 */ [rowFor(org, 'VIEWER', run.viewer, { Password: passwords.viewer, Company: 'Acme, "Intl"' })],
      /* 3 */ [rowFor(org, 'EDITOR', run.editor, { EnvironmentUuid: org.envB, EnvironmentName: 'Env B', Bot: org.botB1 })],
      /* 4 */ [rowFor(org, 'SUPERVISOR', run.supervisor, { Password: passwords.supervisor })],
      /* 5 */ [rowFor(org, 'ADMIN', run.admin, { Name: 'Ada Admin', Password: passwords.admin, Company: '=2+3' })],
      /* 6 */ [rowFor(org, 'VIEWER', existing.email.toUpperCase()), 'EMAIL_TAKEN'],
      /* 7 */ [rowFor(org, 'EDITOR', deleted.email), 'EMAIL_TAKEN'],
      /* 8 */ [rowFor(org, 'VIEWER', run.conflict)],
      /* 9 */ [rowFor(org, 'EDITOR', run.conflict), 'CONFLICTING_ROWS'],
      /* 10 */ [rowFor(org, 'VIEWER', run.weak, { Password: 'weakpass' }), 'PASSWORD_POLICY'],
      /* 11 */ [rowFor(org, '', run.noRole), 'ROLE_REQUIRED'],
      /* 12 */ [rowFor(org, 'OWNER', run.badRole), 'ROLE_INVALID'],
      /* 13 */ [rowFor(org, 'EDITOR', run.editorNoBot, { Bot: '' }), 'ENVIRONMENT_AND_BOT_REQUIRED'],
      /* 14 */ [rowFor(org, 'SUPERVISOR', run.supervisorNoEnv, { EnvironmentName: '' }), 'ENVIRONMENT_REQUIRED'],
      /* 15 */ [rowFor(org, 'VIEWER', run.unknownEnv, { EnvironmentUuid: randomUUID() }), 'ENVIRONMENT_NOT_FOUND'],
      /* 16 */ [rowFor(org, 'SUPERVISOR', run.inactiveEnv, { EnvironmentUuid: org.inactiveEnv, EnvironmentName: 'Env inactive' }), 'ENVIRONMENT_NOT_FOUND'],
      /* 17 */ [rowFor(org, 'VIEWER', run.foreignEnv, { EnvironmentUuid: other.envA, EnvironmentName: 'Env A', Bot: other.botA1 }), 'ENVIRONMENT_NOT_FOUND'],
      /* 18 */ [rowFor(org, 'VIEWER', run.envName, { EnvironmentName: 'Env B' }), 'ENVIRONMENT_NAME_MISMATCH'],
      /* 19 */ [rowFor(org, 'EDITOR', run.foreignBot, { Bot: org.botB1 }), 'BOT_NOT_FOUND'],
      /* 20 */ [rowFor(org, 'VIEWER', run.inactiveBot, { Bot: org.inactiveBot }), 'BOT_NOT_FOUND'],
      /* 21 */ [rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer' })],
      /* 22 */ [rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer', EnvironmentUuid: org.envB, EnvironmentName: 'Env B', Bot: org.botB1 })],
      /* 23 */ [rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer', Bot: org.botA2 })],
      /* 24 */ [rowFor(org, 'VIEWER', other.admin.email, { Name: 'Member Elsewhere' })],
    ];
    failures = rows.flatMap(([row, errorCode], i) => (errorCode ? [rule(row.Email!, i + 2, errorCode)] : []));
    answer = await uploadCsv(org, csvOf(rows.map(([row]) => row)));
  });

  test('the answer is 200 with one error per failed user: its e-mail, line and the code of the rule, in line order', () => {
    expect(answer.status).toBe(200);
    expect(codesOf(answer.body)).toEqual(failures);
    for (const error of answer.body) expect(Object.keys(error).sort()).toEqual(['email', 'errorCode', 'line', 'message']);
  });

  test('each message names the rule broken', () => {
    const messageOf = (line: number) => answer.body.find((error) => error.line === line)?.message;

    expect(messageOf(6)).toMatch(/^Rule 1:/);
    expect(messageOf(9)).toMatch(/^Rules 1 and 2:.*line 8/);
    expect(messageOf(10)).toMatch(/^Rule 3:/);
    expect(messageOf(11)).toMatch(/^Rule 4:/);
    expect(messageOf(12)).toMatch(/^Rule 4:/);
    expect(messageOf(13)).toMatch(/^Rule 5:/);
    expect(messageOf(14)).toMatch(/^Rule 6:/);
    for (const line of [15, 16, 17, 18, 19, 20]) expect(messageOf(line)).toMatch(/^Rule 7:/);
  });

  test('the valid rows created their users with role, permissions and values as the file gives them', async () => {
    expect(await userWithEmail(org, run.viewer)).toMatchObject({
      name: `VIEWER ${run.viewer.split('@')[0]}`,
      company: 'Acme, "Intl"',
      role: 'VIEWER',
      admin: false,
      status: 'ACTIVE',
      permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }],
    });
    expect(await userWithEmail(org, run.editor)).toMatchObject({ role: 'EDITOR', admin: false, permissions: [{ environmentUuid: org.envB, botUuid: org.botB1 }] });
    expect(await userWithEmail(org, run.supervisor)).toMatchObject({ role: 'SUPERVISOR', admin: false, permissions: [{ environmentUuid: org.envA }] });
    // A formula is a value like any other: stored as the text it is.
    expect(await userWithEmail(org, run.admin)).toMatchObject({ name: 'Ada Admin', company: '=2+3', role: 'ADMIN', admin: true, permissions: [] });
  });

  test('rows for one user that agree make one user holding every grant', async () => {
    const merged = await userWithEmail(org, run.merged);

    expect(merged).toMatchObject({ name: 'Merged Viewer', role: 'VIEWER' });
    expect(merged.permissions).toEqual(
      expect.arrayContaining([
        { environmentUuid: org.envA, botUuid: org.botA1 },
        { environmentUuid: org.envB, botUuid: org.botB1 },
        { environmentUuid: org.envA, botUuid: org.botA2 },
      ]),
    );
    expect(merged.permissions).toHaveLength(3);
  });

  test('an e-mail used in another organization is no obstacle (e-mails are unique per organization)', async () => {
    expect(await userWithEmail(org, other.admin.email)).toMatchObject({ name: 'Member Elsewhere', role: 'VIEWER' });
    expect((await listAllUsers(other.admin.api, other, '&status=ALL')).filter((u) => u.email === other.admin.email)).toHaveLength(1);
  });

  test('created users sign in with the password of the file; one without gets a generated, temporary one by e-mail', async () => {
    expect((await tokenOf(org.realm, run.viewer, passwords.viewer)).access_token).toEqual(expect.any(String));
    expect((await tokenOf(org.realm, run.supervisor, passwords.supervisor)).access_token).toEqual(expect.any(String));
    expect((await tokenOf(org.realm, run.admin, passwords.admin)).access_token).toEqual(expect.any(String));
    expect((await signIn(org.realm, run.viewer, 'Wrong-Passw0rd')).status).toBe(400);

    const generated = mailedPassword(await onlyMailTo(run.editor), 'en');
    expect(generated).toHaveLength(16);
    await expectTemporaryPassword(org.realm, run.editor, generated!);
  });

  test('each created user gets exactly one welcome e-mail (English by default) with its password', async () => {
    for (const [email, password] of [
      [run.viewer, passwords.viewer],
      [run.supervisor, passwords.supervisor],
      [run.admin, passwords.admin],
    ] as const) {
      const mail = await onlyMailTo(email);
      expect(mail.subject).toBe(messagesOf('en').mail.welcome.subject(org.realm));
      expect(mailedPassword(mail, 'en')).toBe(password);
    }
    expect(await mailsTo(run.merged)).toHaveLength(1);
    expect(await mailsTo(other.admin.email)).toHaveLength(1);
  });

  test('the failed rows created nobody and mailed nobody; the users already there are untouched', async () => {
    const failed = [
      run.conflict,
      run.weak,
      run.noRole,
      run.badRole,
      run.editorNoBot,
      run.supervisorNoEnv,
      run.unknownEnv,
      run.inactiveEnv,
      run.foreignEnv,
      run.envName,
      run.foreignBot,
      run.inactiveBot,
    ];
    await expectNothingFor(org, failed);
    expect(await userWithEmail(org, existing.email)).toMatchObject({ name: 'Existing Viewer', role: 'VIEWER', status: 'ACTIVE' });
    expect((await usersWithEmail(org, deleted.email)).map((user) => [user.name, user.status])).toEqual([['Deleted Editor', 'DELETED']]);
    expect(await mailsTo(existing.email)).toEqual([]);
    expect(await mailsTo(deleted.email)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('when no user is created', () => {
  test('422 NO_USER_CREATED with the error list as details, each entry named by its e-mail', async () => {
    const emails = [uniqueEmail('none-a'), uniqueEmail('none-b')];
    const file = csvOf([rowFor(org, 'VIEWER', emails[0]!, { Bot: '' }), rowFor(org, 'ADMIN', emails[1]!, { Password: 'short' })]);

    const answer = await uploadCsv<NoUserCreatedBody>(org, file);

    const body = expectError(answer, 422, 'NO_USER_CREATED') as NoUserCreatedBody;
    expect(body.details).toEqual([
      { fieldName: emails[0], email: emails[0], line: 2, errorCode: 'ENVIRONMENT_AND_BOT_REQUIRED', message: expect.stringMatching(/^Rule 5:/) },
      { fieldName: emails[1], email: emails[1], line: 3, errorCode: 'PASSWORD_POLICY', message: expect.stringMatching(/^Rule 3:/) },
    ]);
    await expectNothingFor(org, emails);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('e-mail language', () => {
  test.each([
    ['es', messagesOf('es').mail],
    ['ja', messagesOf('ja').mail],
    ['pt', messagesOf('pt').mail],
  ] as const)('the language header %s writes every welcome e-mail in that language', async (language, copy) => {
    const given = uniqueEmail(`lang-${language}-given`);
    const generated = uniqueEmail(`lang-${language}-generated`);
    const file = csvOf([rowFor(org, 'VIEWER', given, { Password: 'Given-Passw0rd' }), rowFor(org, 'SUPERVISOR', generated)]);

    const answer = await uploadCsv(org, file, { language: language.toUpperCase() });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([]);
    const [givenMail, generatedMail] = await Promise.all([onlyMailTo(given), onlyMailTo(generated)]);
    expect(givenMail.subject).toBe(copy.welcome.subject(org.realm));
    expect(givenMail.body.html).toContain(`<html lang="${language}">`);
    expect(mailedPassword(givenMail, language)).toBe('Given-Passw0rd');
    expect(generatedMail.subject).toBe(copy.welcome.subject(org.realm));
    const password = mailedPassword(generatedMail, language);
    expect(password).toHaveLength(16);
    await expectTemporaryPassword(org.realm, generated, password!);
  });

  test('a language that is not one of the four is a 422 naming the header, and nothing is created', async () => {
    const email = uniqueEmail('lang-fr');

    const answer = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { language: 'fr' });

    const body = expectError(answer, 422, 'VALIDATION_FAILED');
    expect(body.details?.map((detail) => detail.fieldName)).toEqual(['language']);
    await expectNothingFor(org, [email]);
  });
});
