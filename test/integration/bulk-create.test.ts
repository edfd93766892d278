import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { en } from '../../shared/adapters/mail/locales/en';
import { es } from '../../shared/adapters/mail/locales/es';
import { ja } from '../../shared/adapters/mail/locales/ja';
import { pt } from '../../shared/adapters/mail/locales/pt';
import { getEmailClaim } from '../../shared/domain/users/user.repository';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import {
  BULK_COLUMNS,
  bulkJobUrl,
  codesOf,
  csvOf,
  getBulk,
  mailedPassword,
  pollJob,
  quoteField,
  rowFor,
  stageJob,
  uploadCsv,
  type BulkErrorDto,
  type BulkRow,
  type JobView,
  type NoUserCreatedBody,
} from '../support/bulk-helpers';
import { stack } from '../support/stack';
import {
  deleteViaApi,
  freshOrganization,
  listAllUsers,
  mailsTo,
  member,
  onlyMailTo,
  signIn,
  tokenOf,
  uniqueEmail,
  type Member,
  type TestOrg,
  type UserDto,
  expectTemporaryPassword,
} from '../support/user-helpers';
import { MULTIPART_MAX_BYTES } from '../../shared/app/bulk/bulk.limits';

/**
 * `POST /users/bulk-create` through the local stack's gateway, its worker (started by s3rver's
 * object-created event), the Cognito emulator and the SES emulator; and the job resource
 * `GET /users/bulk-jobs/{jobId}` with its failed rows. What a client sees: answers, users, sign-ins
 * and e-mails.
 */

let org: TestOrg;
let other: TestOrg;
beforeAll(async () => {
  [org, other] = await Promise.all([freshOrganization(), freshOrganization()]);
});

/** Every user of the test organization, any status. */
const allUsers = () => listAllUsers(org.admin.api, org, '&status=ALL');
/** The users of the organization with this e-mail (any case). */
const usersWith = async (email: string) => (await allUsers()).filter((user) => user.email.toLowerCase() === email.toLowerCase());

/** The one user with this e-mail, read back with `GET /users/{uuid}`. */
async function readUser(email: string): Promise<UserDto> {
  const found = await usersWith(email);
  expect(found.map((user) => user.email)).toEqual([email]);
  const response = await org.admin.api.get(org.url(`/${found[0]!.uuid}`));
  expect(response.status).toBe(200);
  return response.body;
}

/** Nothing of this e-mail exists in the organization: no user, no claim, no e-mail sent. */
async function expectNothingFor(emails: string[]): Promise<void> {
  const users = await allUsers();
  expect(users.filter((user) => emails.includes(user.email))).toEqual([]);
  for (const email of emails) {
    expect(await getEmailClaim(org.orgUuid, email)).toBeUndefined();
    expect(await mailsTo(email)).toEqual([]);
  }
}

const rule = (email: string, line: number, errorCode: string) => ({ email, line, errorCode });

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
  let answer: ApiResponse<BulkErrorDto[]>;

  beforeAll(async () => {
    existing = await member(org, 'VIEWER', { name: 'Existing Viewer' });
    deleted = await member(org, 'EDITOR', { name: 'Deleted Editor' });
    await deleteViaApi(org, deleted.uuid);
    const rows: BulkRow[] = [
      /* 2 */ rowFor(org, 'VIEWER', run.viewer, { Password: passwords.viewer, Company: 'Acme, "Intl"' }),
      /* 3 */ rowFor(org, 'EDITOR', run.editor, { EnvironmentUuid: org.envB, EnvironmentName: 'Env B', Bot: org.botB1 }),
      /* 4 */ rowFor(org, 'SUPERVISOR', run.supervisor, { Password: passwords.supervisor }),
      /* 5 */ rowFor(org, 'ADMIN', run.admin, { Name: 'Ada Admin', Password: passwords.admin, Company: '=2+3' }),
      /* 6 */ rowFor(org, 'VIEWER', existing.email.toUpperCase()),
      /* 7 */ rowFor(org, 'EDITOR', deleted.email),
      /* 8 */ rowFor(org, 'VIEWER', run.conflict),
      /* 9 */ rowFor(org, 'EDITOR', run.conflict),
      /* 10 */ rowFor(org, 'VIEWER', run.weak, { Password: 'weakpass' }),
      /* 11 */ rowFor(org, '', run.noRole),
      /* 12 */ rowFor(org, 'OWNER', run.badRole),
      /* 13 */ rowFor(org, 'EDITOR', run.editorNoBot, { Bot: '' }),
      /* 14 */ rowFor(org, 'SUPERVISOR', run.supervisorNoEnv, { EnvironmentName: '' }),
      /* 15 */ rowFor(org, 'VIEWER', run.unknownEnv, { EnvironmentUuid: randomUUID() }),
      /* 16 */ rowFor(org, 'SUPERVISOR', run.inactiveEnv, { EnvironmentUuid: org.inactiveEnv, EnvironmentName: 'Env inactive' }),
      /* 17 */ rowFor(org, 'VIEWER', run.foreignEnv, { EnvironmentUuid: other.envA, EnvironmentName: 'Env A', Bot: other.botA1 }),
      /* 18 */ rowFor(org, 'VIEWER', run.envName, { EnvironmentName: 'Env B' }),
      /* 19 */ rowFor(org, 'EDITOR', run.foreignBot, { Bot: org.botB1 }),
      /* 20 */ rowFor(org, 'VIEWER', run.inactiveBot, { Bot: org.inactiveBot }),
      /* 21 */ rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer' }),
      /* 22 */ rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer', EnvironmentUuid: org.envB, EnvironmentName: 'Env B', Bot: org.botB1 }),
      /* 23 */ rowFor(org, 'VIEWER', run.merged, { Name: 'Merged Viewer', Bot: org.botA2 }),
      /* 24 */ rowFor(org, 'VIEWER', other.admin.email, { Name: 'Member Elsewhere' }),
    ];
    answer = await uploadCsv(org, csvOf(rows));
  });

  test('the answer is 200 with one error per failed user: its e-mail, line and the code of the rule, in line order', () => {
    expect(answer.status).toBe(200);
    expect(codesOf(answer.body)).toEqual([
      rule(existing.email.toUpperCase(), 6, 'EMAIL_TAKEN'),
      rule(deleted.email, 7, 'EMAIL_TAKEN'),
      rule(run.conflict, 9, 'CONFLICTING_ROWS'),
      rule(run.weak, 10, 'PASSWORD_POLICY'),
      rule(run.noRole, 11, 'ROLE_REQUIRED'),
      rule(run.badRole, 12, 'ROLE_INVALID'),
      rule(run.editorNoBot, 13, 'ENVIRONMENT_AND_BOT_REQUIRED'),
      rule(run.supervisorNoEnv, 14, 'ENVIRONMENT_REQUIRED'),
      rule(run.unknownEnv, 15, 'ENVIRONMENT_NOT_FOUND'),
      rule(run.inactiveEnv, 16, 'ENVIRONMENT_NOT_FOUND'),
      rule(run.foreignEnv, 17, 'ENVIRONMENT_NOT_FOUND'),
      rule(run.envName, 18, 'ENVIRONMENT_NAME_MISMATCH'),
      rule(run.foreignBot, 19, 'BOT_NOT_FOUND'),
      rule(run.inactiveBot, 20, 'BOT_NOT_FOUND'),
    ]);
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
    expect(await readUser(run.viewer)).toMatchObject({
      name: `VIEWER ${run.viewer.split('@')[0]}`,
      company: 'Acme, "Intl"',
      role: 'VIEWER',
      admin: false,
      status: 'ACTIVE',
      permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }],
    });
    expect(await readUser(run.editor)).toMatchObject({ role: 'EDITOR', admin: false, permissions: [{ environmentUuid: org.envB, botUuid: org.botB1 }] });
    expect(await readUser(run.supervisor)).toMatchObject({ role: 'SUPERVISOR', admin: false, permissions: [{ environmentUuid: org.envA }] });
    // A formula is a value like any other: stored as the text it is.
    expect(await readUser(run.admin)).toMatchObject({ name: 'Ada Admin', company: '=2+3', role: 'ADMIN', admin: true, permissions: [] });
  });

  test('rows for one user that agree make one user holding every grant', async () => {
    const merged = await readUser(run.merged);

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
    expect(await readUser(other.admin.email)).toMatchObject({ name: 'Member Elsewhere', role: 'VIEWER' });
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
      expect(mail.subject).toBe(en.welcome.subject(org.realm));
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
    await expectNothingFor(failed);
    expect(await readUser(existing.email)).toMatchObject({ name: 'Existing Viewer', role: 'VIEWER', status: 'ACTIVE' });
    expect((await usersWith(deleted.email)).map((user) => [user.name, user.status])).toEqual([['Deleted Editor', 'DELETED']]);
    expect(await mailsTo(existing.email)).toEqual([]);
    expect(await mailsTo(deleted.email)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('the file format', () => {
  test('header in any order, case and spacing, a BOM, CRLF, quoted commas, quotes and line breaks: lines count as the file has them', async () => {
    const good = uniqueEmail('fmt-good');
    const multi = uniqueEmail('fmt-multiline');
    const bad = uniqueEmail('fmt-bad');
    const after = uniqueEmail('fmt-after');
    const file =
      '\ufeff role , EMAIL ,Name,company,PASSWORD,environmentuuid,EnvironmentName,BOT\r\n' +
      `ADMIN,${good},"Smith, ""Jo""","Acme, ""Intl""",Passw0rd-Good,,,\r\n` +
      `ADMIN,${multi},"Two\nLines",,,,,\r\n` +
      '\r\n' +
      `OWNER,${bad},Bad Role,,,,,\r\n` +
      `ADMIN,${after},After,,Passw0rd-After,,,\r\n`;

    const answer = await uploadCsv(org, file);

    expect(answer.status).toBe(200);
    // Name and Company are one line each; the rows after a two-line field and an empty line keep their real line numbers.
    expect(codesOf(answer.body)).toEqual([rule(multi, 3, 'FIELD_TOO_LONG'), rule(bad, 6, 'ROLE_INVALID')]);
    expect(await readUser(good)).toMatchObject({ name: 'Smith, "Jo"', company: 'Acme, "Intl"', role: 'ADMIN' });
    expect(await readUser(after)).toMatchObject({ name: 'After' });
    expect((await tokenOf(org.realm, after, 'Passw0rd-After')).access_token).toEqual(expect.any(String));
    await expectNothingFor([multi, bad]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('e-mail language', () => {
  test.each([
    ['es', es],
    ['ja', ja],
    ['pt', pt],
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
    await expectNothingFor([email]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('dryRun', () => {
  test('checks everything, changes nothing, and answers the errors the real run then answers', async () => {
    const taken = await member(org, 'VIEWER');
    const valid = [uniqueEmail('dry-a'), uniqueEmail('dry-b')];
    const conflict = uniqueEmail('dry-conflict');
    const file = csvOf([
      rowFor(org, 'VIEWER', valid[0]!, { Password: 'Dry-Passw0rd' }),
      rowFor(org, 'VIEWER', taken.email),
      rowFor(org, 'SUPERVISOR', conflict),
      rowFor(org, 'ADMIN', conflict),
      rowFor(org, 'EDITOR', valid[1]!),
      rowFor(org, 'VIEWER', uniqueEmail('dry-inactive'), { Bot: org.inactiveBot }),
    ]);

    const dry = await uploadCsv(org, file, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual([rule(taken.email, 3, 'EMAIL_TAKEN'), rule(conflict, 5, 'CONFLICTING_ROWS'), expect.objectContaining({ line: 7, errorCode: 'BOT_NOT_FOUND' })]);
    await expectNothingFor([...valid, conflict]);
    const job = await getBulk(org, new URL(dry.headers.get('location')!, org.url()).toString());
    expect(job.body).toMatchObject({ status: 'done', dryRun: true, counts: { rows: 6, created: 2, failed: 3 } });

    const real = await uploadCsv(org, file, { dryRun: 'false' });

    expect(real.status).toBe(200);
    expect(real.body).toEqual(dry.body);
    for (const email of valid) expect(await usersWith(email)).toHaveLength(1);
    expect(await mailsTo(valid[0]!)).toHaveLength(1);
  });

  test('a dry run in which no user could be created is the 422 the real run would be, and the real run changes nothing either', async () => {
    const taken = await member(org, 'SUPERVISOR');
    const bad = uniqueEmail('dry-none');
    const file = csvOf([rowFor(org, 'SUPERVISOR', taken.email), rowFor(org, 'VIEWER', bad, { Role: 'GUEST' })]);

    const dry = await uploadCsv<NoUserCreatedBody>(org, file, { dryRun: true });
    const real = await uploadCsv<NoUserCreatedBody>(org, file);

    expectError(dry, 422, 'NO_USER_CREATED');
    expectError(real, 422, 'NO_USER_CREATED');
    expect(codesOf(dry.body.details)).toEqual([rule(taken.email, 2, 'EMAIL_TAKEN'), rule(bad, 3, 'ROLE_INVALID')]);
    expect(dry.body.details).toEqual(real.body.details);
    await expectNothingFor([bad]);
  });

  test('dryRun must be true or false', async () => {
    const email = uniqueEmail('dry-maybe');

    const answer = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { dryRun: 'maybe' });

    expect(expectError(answer, 422, 'VALIDATION_FAILED').details?.map((d) => d.fieldName)).toEqual(['dryRun']);
    await expectNothingFor([email]);
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
    await expectNothingFor(emails);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('files refused whole', () => {
  /** A file whose first row would create a user, then `rest`. */
  const fileWith = (email: string, rest = '') => `${csvOf([rowFor(org, 'ADMIN', email)])}${rest}`;

  test.each([
    ['an empty file', 'EMPTY_FILE', () => ''],
    ['a header without rows', 'EMPTY_FILE', () => `${BULK_COLUMNS.join(',')}\r\n\r\n`],
    ['a binary file', 'NOT_CSV', () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d])],
    ['a file with an unclosed quote after a good row', 'NOT_CSV', (email: string) => fileWith(email, 'x@example.test,"Unclosed,ADMIN\r\n')],
    ['a Latin-1 file', 'NOT_CSV', (email: string) => Buffer.from(fileWith(email, 'y@example.test,Jos\xe9,,,ADMIN,,,\r\n'), 'latin1')],
    ['a file without the Role column', 'MISSING_COLUMNS', (email: string) => `Email,Name,Password\r\n${email},Someone,Passw0rd-1\r\n`],
  ] as const)('%s is a 422 %s and creates nobody', async (_what, errorCode, file) => {
    const email = uniqueEmail('refused');

    const answer = await uploadCsv(org, file(email));

    expectError(answer, 422, errorCode);
    await expectNothingFor([email]);
  });

  test('MISSING_COLUMNS names the columns missing', async () => {
    const answer = await uploadCsv(org, `EMAIL,Company\r\n${uniqueEmail('cols')},Acme\r\n`);

    const body = expectError(answer, 422, 'MISSING_COLUMNS');
    expect(body.message).toMatch(/Name/);
    expect(body.message).toMatch(/Role/);
  });

  test('10,000 rows are read; 10,001 are a 422 TOO_MANY_ROWS before any user is created', async () => {
    const first = uniqueEmail('rows-first');
    const tag = uniqueEmail('rows').split('@')[0];
    // Rows that fail alone (unknown role) cost no store reads: the limit is what is measured.
    const invalid = (count: number) => Array.from({ length: count }, (_, i) => ({ Email: `${tag}-${i}@example.test`, Name: 'Row', Role: 'NOBODY' }));

    const atLimit = await uploadCsv<NoUserCreatedBody>(org, csvOf(invalid(10_000)), { dryRun: true });
    const overLimit = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', first), ...invalid(10_000)]));

    expect(expectError(atLimit, 422, 'NO_USER_CREATED').details).toHaveLength(10_000);
    expectError(overLimit, 422, 'TOO_MANY_ROWS');
    await expectNothingFor([first]);
  });

  test('4 MiB are read (what a 6 MB Lambda event carries once base64-encoded); one byte more is a 413 FILE_TOO_LARGE and creates nobody', async () => {
    const limit = MULTIPART_MAX_BYTES;
    const [fits, tooLarge] = [uniqueEmail('size-fits'), uniqueEmail('size-over')];
    // Empty lines fill the file up: they are skipped, so only the size differs.
    const padded = (email: string, size: number) => {
      const head = fileWith(email);
      return head + '\n'.repeat(size - Buffer.byteLength(head));
    };

    const atLimit = await uploadCsv(org, padded(fits, limit));
    const overLimit = await uploadCsv(org, padded(tooLarge, limit + 1));

    expect({ status: atLimit.status, body: atLimit.body }).toEqual({ status: 200, body: [] });
    expect(await usersWith(fits)).toHaveLength(1);
    expectError(overLimit, 413, 'FILE_TOO_LARGE');
    await expectNothingFor([tooLarge]);
  });

  test('a body that is not multipart is a 415; a form without the file part is a 422 naming it', async () => {
    const email = uniqueEmail('not-multipart');
    const csv = csvOf([rowFor(org, 'ADMIN', email)]);

    const json = await org.admin.api.post(org.url('/bulk-create'), { file: csv });
    const raw = await org.admin.api.post(org.url('/bulk-create'), csv, { 'content-type': 'text/csv' });
    const wrongPart = await uploadCsv(org, csv, { part: 'upload' });

    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(raw, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(expectError(wrongPart, 422, 'VALIDATION_FAILED').details?.map((d) => d.fieldName)).toEqual(['file']);
    await expectNothingFor([email]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('presigned uploads (POST /users/bulk-uploads)', () => {
  test('the client POSTs the form it gets with the file; the upload runs the job, which reports as any other', async () => {
    const email = uniqueEmail('presigned');
    const response = await fetch(org.url('/bulk-uploads'), { method: 'POST', headers: { authorization: `Bearer ${org.admin.token}`, language: 'es' } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { jobId: string; upload: { method: string; url: string; fields: Record<string, string>; expiresAt: string }; job: string };
    expect(response.headers.get('location')).toBe(body.job);
    expect(Date.parse(body.upload.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);

    const form = new FormData();
    for (const [name, value] of Object.entries(body.upload.fields)) form.append(name, value);
    form.append('file', new Blob([csvOf([rowFor(org, 'VIEWER', email)])], { type: 'text/csv' }), 'users.csv');
    const posted = await fetch(body.upload.url, { method: body.upload.method, body: form });
    expect(posted.status).toBe(204);
    const { view } = await pollJob(org, body.job);

    expect(view).toMatchObject({ jobId: body.jobId, status: 'done', counts: { rows: 1, created: 1, failed: 0 }, errors: [] });
    expect(await usersWith(email)).toHaveLength(1);
  });

  test('only an ADMIN of the organization gets an upload URL', async () => {
    const viewer = await member(org, 'VIEWER');
    const forbidden = await fetch(org.url('/bulk-uploads'), { method: 'POST', headers: { authorization: `Bearer ${viewer.token}` } });
    expect(forbidden.status).toBe(403);
    const anonymous = await fetch(org.url('/bulk-uploads'), { method: 'POST' });
    expect(anonymous.status).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('Prefer: respond-async and the job resource', () => {
  test('202 with the Location of the job, which reports its progress and, once done, its counts and errors', async () => {
    const created = [uniqueEmail('async-a'), uniqueEmail('async-b')];
    const failing = uniqueEmail('async-fail');
    const file = csvOf([rowFor(org, 'VIEWER', created[0]!), rowFor(org, 'OWNER', failing), rowFor(org, 'ADMIN', created[1]!)]);

    const accepted = await uploadCsv<JobView>(org, file, { respondAsync: true });

    expect(accepted.status).toBe(202);
    const location = accepted.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/${stack().userSubpath}/org/${org.orgUuid}/users/bulk-jobs/[0-9a-f-]{36}$`));
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toMatchObject({ jobId: location.split('/').pop(), status: 'queued', dryRun: false });
    expect(accepted.body).not.toHaveProperty('errors');

    const { view, seen } = await pollJob(org, location);

    expect(seen.every((status) => ['queued', 'running', 'done'].includes(status))).toBe(true);
    expect(view).toMatchObject({
      jobId: accepted.body.jobId,
      status: 'done',
      dryRun: false,
      counts: { rows: 3, created: 2, failed: 1 },
      progress: { processed: 3, total: 3, percent: 100 },
      createdAt: accepted.body.createdAt,
    });
    expect(Date.parse(view.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view.createdAt));
    expect(codesOf(view.errors!)).toEqual([rule(failing, 3, 'ROLE_INVALID')]);
    for (const email of created) expect(await usersWith(email)).toHaveLength(1);
  });

  test('the failed rows come back as CSV (original columns plus Error, formulas neutralised); fixed, they upload and succeed', async () => {
    const [formula, phone, fine] = [uniqueEmail('rows-formula'), uniqueEmail('rows-phone'), uniqueEmail('rows-fine')];
    const formulaName = '=HYPERLINK("http://evil.test","click")';
    const file = csvOf([
      rowFor(org, 'OWNER', formula, { Name: formulaName }),
      rowFor(org, 'EDITOR', phone, { Name: 'Pat Phone', Company: '+1 555 0100', Bot: '' }),
      rowFor(org, 'ADMIN', fine),
    ]);
    const accepted = await uploadCsv<JobView>(org, file, { respondAsync: true });
    const { view } = await pollJob(org, accepted.headers.get('location')!);
    expect(view.counts).toEqual({ rows: 3, created: 1, failed: 2 });

    const failedRows = await getBulk<undefined>(org, bulkJobUrl(org, view.jobId, '/failed-rows'));

    expect(failedRows.status).toBe(200);
    expect(failedRows.contentType).toMatch(/^text\/csv/);
    expect(failedRows.headers.get('content-disposition')).toMatch(/^attachment/);
    const messageOf = (email: string) => view.errors!.find((error) => error.email === email)!.message;
    expect(failedRows.text).toBe(
      [
        `${BULK_COLUMNS.join(',')},Error`,
        `${formula},${quoteField(`'${formulaName}`)},,,OWNER,,,,${quoteField(messageOf(formula))}`,
        `${phone},Pat Phone,'+1 555 0100,,EDITOR,${org.envA},Env A,,${quoteField(messageOf(phone))}`,
        '',
      ].join('\r\n'),
    );

    // Fix the rows in the file as given back (the Error column stays: unknown columns are ignored).
    const records = parse(failedRows.text, { columns: true }) as Record<string, string>[];
    records[0]!.Role = 'ADMIN';
    records[1]!.Bot = org.botA1;
    const fixed = csvOf(records, { columns: [...BULK_COLUMNS, 'Error'] });
    const again = await uploadCsv(org, fixed);

    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: [] });
    // Stored as the text of the fixed file: nothing of it was ever evaluated.
    expect(await readUser(formula)).toMatchObject({ name: `'${formulaName}`, role: 'ADMIN' });
    expect(await readUser(phone)).toMatchObject({ company: "'+1 555 0100", role: 'EDITOR', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] });
  });

  test('a job with no failed rows gives back only the header; a job not finished has no failed rows yet (404)', async () => {
    const done = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', uniqueEmail('rows-none'))]));
    const doneJob = done.headers.get('location')!.split('/').pop()!;
    const queued = await stageJob(org, csvOf([rowFor(org, 'ADMIN', uniqueEmail('rows-queued'))]));

    const none = await getBulk<undefined>(org, bulkJobUrl(org, doneJob, '/failed-rows'));
    const notYet = await getBulk(org, bulkJobUrl(org, queued.jobId, '/failed-rows'));
    const queuedView = await getBulk(org, bulkJobUrl(org, queued.jobId));

    expect(done.status).toBe(200);
    expect(none.text).toBe(`${BULK_COLUMNS.join(',')},Error\r\n`);
    expectError(notYet, 404, 'NOT_FOUND');
    expect(queuedView.body).toMatchObject({ status: 'queued', progress: { percent: 0 } });
    expect(queuedView.body).not.toHaveProperty('errors');
  });

  test('a file refused whole makes a failed job that names the problem and has no errors or failed rows', async () => {
    const email = uniqueEmail('async-refused');
    const accepted = await uploadCsv<JobView>(org, `Email,Name\r\n${email},No Role\r\n`, { respondAsync: true });

    const { view } = await pollJob(org, accepted.headers.get('location')!);

    expect(accepted.status).toBe(202);
    expect(view).toMatchObject({ status: 'failed', failure: { errorCode: 'MISSING_COLUMNS', message: expect.stringMatching(/Role/) } });
    expect(view).not.toHaveProperty('errors');
    expectError(await getBulk(org, bulkJobUrl(org, view.jobId, '/failed-rows')), 404, 'NOT_FOUND');
    await expectNothingFor([email]);
  });

  test('an unknown job is a 404', async () => {
    expectError(await getBulk(org, bulkJobUrl(org, randomUUID())), 404, 'NOT_FOUND');
    expectError(await getBulk(org, bulkJobUrl(org, randomUUID(), '/failed-rows')), 404, 'NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('who may', () => {
  let jobId: string;
  beforeAll(async () => {
    const answer = await uploadCsv(org, csvOf([rowFor(org, 'OWNER', uniqueEmail('matrix-job'))]), { respondAsync: true });
    jobId = (await pollJob(org, answer.headers.get('location')!)).view.jobId;
  });

  /** The other job routes of this organization, as the holder of `api`: an upload URL, a retry, the welcomes again. */
  const postsOf = (api: Member['api']) =>
    Promise.all([org.url('/bulk-uploads'), bulkJobUrl(org, jobId, '/retry'), bulkJobUrl(org, jobId, '/welcomes')].map((url) => api.post(url, undefined)));

  test.each(['SUPERVISOR', 'EDITOR', 'VIEWER'] as const)('role %s is refused (403) every bulk route, and nothing is created', async (role) => {
    const caller = await member(org, role);
    const email = uniqueEmail(`matrix-${role.toLowerCase()}`);

    const upload = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: caller.token });
    const job = await getBulk(org, bulkJobUrl(org, jobId), caller.token);
    const rows = await getBulk(org, bulkJobUrl(org, jobId, '/failed-rows'), caller.token);
    const others = await postsOf(caller.api);

    expectError(upload, 403, 'FORBIDDEN');
    expectError(job, 403, 'FORBIDDEN');
    expectError(rows, 403, 'FORBIDDEN');
    for (const response of [upload, job, rows, ...others]) expect(expectError(response, 403, 'FORBIDDEN').message).toBe('Only an ADMIN runs bulk operations');
    await expectNothingFor([email]);
  });

  test("another organization's ADMIN finds neither the routes of this organization nor its jobs (404)", async () => {
    const email = uniqueEmail('matrix-other');

    const upload = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: other.admin.token });
    const job = await getBulk(org, bulkJobUrl(org, jobId), other.admin.token);
    const rows = await getBulk(org, bulkJobUrl(org, jobId, '/failed-rows'), other.admin.token);
    const viaOwnOrg = await getBulk(other, bulkJobUrl(other, jobId));
    const others = await postsOf(other.admin.api);

    expectError(upload, 404, 'NOT_FOUND');
    expectError(job, 404, 'NOT_FOUND');
    expectError(rows, 404, 'NOT_FOUND');
    expectError(viaOwnOrg, 404, 'NOT_FOUND');
    for (const response of others) expect(expectError(response, 404, 'NOT_FOUND').message).toBe('The organization was not found');
    await expectNothingFor([email]);
    expect((await listAllUsers(other.admin.api, other, '&status=ALL')).filter((u) => u.email === email)).toEqual([]);
  });

  test('without a token every bulk route is a 401', async () => {
    const email = uniqueEmail('matrix-anonymous');

    expectError(await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { token: null }), 401, 'UNAUTHENTICATED');
    expectError(await getBulk(org, bulkJobUrl(org, jobId), null), 401, 'UNAUTHENTICATED');
    expectError(await getBulk(org, bulkJobUrl(org, jobId, '/failed-rows'), null), 401, 'UNAUTHENTICATED');
    await expectNothingFor([email]);
  });
});
