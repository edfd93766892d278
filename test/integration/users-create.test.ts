import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { UUID } from '../support/http-client';
import { unique } from '../support/stack';
import { createBody, createViaApi, deleteViaApi, expectTemporaryPassword, freshOrganization, listAllUsers, mailsTo, newUser, onlyMailTo, ownOrganization, readUser, signIn, tokenOf, uniqueEmail, usersRoutes, type TestOrg } from '../support/user-helpers';

/**
 * `POST /users` (docs/api/users.md) as an ADMIN creates users in an organization of the file's own:
 * the User answered, the welcome e-mail in each language, the roles and grants, and the bodies refused.
 */

const org = ownOrganization();

const signInStatus = async (email: string, password: string) => (await signIn(org.realm, email, password)).status;

test('creates a user that can sign in, answers the User, and GET reads it back', async () => {
  const email = uniqueEmail('created');
  const body = newUser(org, {
    name: '  Carla Created ',
    email,
    image: 'https://images.example.test/carla.png',
    company: 'Initech',
    role: 'EDITOR',
    permissions: [
      { environmentUuid: org.envA, botUuid: org.botA1 },
      { environmentUuid: org.envB, botUuid: org.botB1 },
    ],
  });

  const response = await org.users.create(body);

  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    uuid: expect.stringMatching(UUID),
    orgUUID: org.orgUuid,
    name: 'Carla Created',
    email,
    image: 'https://images.example.test/carla.png',
    company: 'Initech',
    admin: false,
    role: 'EDITOR',
    permissions: [
      { environmentUuid: org.envA, botUuid: org.botA1 },
      { environmentUuid: org.envB, botUuid: org.botB1 },
    ],
    status: 'ACTIVE',
    createdAt: expect.any(String),
  });
  expect(Math.abs(Date.parse(response.body.createdAt) - Date.now())).toBeLessThan(60_000);
  const read = await org.users.get(response.body.uuid);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(response.body);
  expect(await signInStatus(email, TEST_PASSWORD)).toBe(200);
  expect(await signInStatus(email, 'Wrong-Passw0rd')).toBe(400);
});

test('the welcome e-mail (English by default) names the user, the organization, the sign-in e-mail and the given password', async () => {
  const email = uniqueEmail('welcome-en');
  const password = `Given-${unique()}1`;

  await createViaApi(org, { name: 'Wendy Welcome', email, password, confirmPassword: password });

  const mail = await onlyMailTo(email);
  expect(mail.subject).toContain(org.realm);
  expect(mail.subject).toMatch(/account/i);
  expect(mail.body.text).toContain('Hello Wendy Welcome');
  expect(mail.body.text).toContain(email);
  expect(mail.body.text).toContain(password);
  expect(mail.body.html).toContain('<html lang="en">');
  expect(mail.body.html).toContain(email);
  expect(mail.body.html).toContain(password);
});

test('the language header chooses the e-mail language (any case); each language has its own subject', async () => {
  const run = unique();
  const emails = { en: `lang-en-${run}@example.test`, es: `lang-es-${run}@example.test`, ja: `lang-ja-${run}@example.test`, pt: `lang-pt-${run}@example.test` };

  await createViaApi(org, { name: 'Lena English', email: emails.en }, { language: 'en' });
  await createViaApi(org, { name: 'Lucía Española', email: emails.es }, { language: 'ES' });
  await createViaApi(org, { name: 'Rei Nihon', email: emails.ja }, { language: 'ja' });
  await createViaApi(org, { name: 'Luís Português', email: emails.pt }, { language: ' pt ' });

  const [en, es, ja, pt] = await Promise.all([emails.en, emails.es, emails.ja, emails.pt].map(onlyMailTo));
  expect(new Set([en!.subject, es!.subject, ja!.subject, pt!.subject]).size).toBe(4);
  for (const mail of [en!, es!, ja!, pt!]) expect(mail.subject).toContain(org.realm);
  expect(es!.subject).toMatch(/cuenta/);
  expect(es!.body.text).toContain('Hola, Lucía Española');
  expect(es!.body.text).toContain(emails.es);
  expect(es!.body.html).toContain('<html lang="es">');
  expect(ja!.body.text).toContain('Rei Nihon');
  expect(ja!.body.html).toContain('<html lang="ja">');
  expect(pt!.body.text).toContain('Luís Português');
  expect(pt!.body.html).toContain('<html lang="pt">');
});

test('without a password, a 16-character temporary one meeting the policy is generated and mailed', async () => {
  const email = uniqueEmail('generated');

  const created = await createViaApi(org, { email, password: undefined, confirmPassword: undefined });

  const mail = await onlyMailTo(email);
  const password = /Temporary password: (\S+)/.exec(mail.body.text ?? '')?.[1];
  expect(password).toHaveLength(16);
  expect(password).toMatch(/\p{Lu}/u);
  expect(password).toMatch(/\p{Ll}/u);
  expect(password).toMatch(/[^\p{L}]/u);
  expect(mail.body.html).toContain(password!);
  // It is the user's password, good only for choosing one of its own on the account page.
  await expectTemporaryPassword(org.realm, email, password!);
  expect((await readUser(org, created.uuid)).email).toBe(email);
});

test('admin: true without a role makes an ADMIN with no permissions, who administers users', async () => {
  const email = uniqueEmail('new-admin');

  const created = await createViaApi(org, { email, role: undefined, admin: true, permissions: undefined });

  expect(created).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
  const token = await tokenOf(org.realm, email, TEST_PASSWORD);
  expect((await usersRoutes(org, token.access_token).list()).status).toBe(200);
});

test('role ADMIN with admin: true is an ADMIN', async () => {
  const created = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });

  expect(created).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
});

test('a SUPERVISOR may be granted a whole environment or one bot', async () => {
  const created = await createViaApi(org, {
    role: 'SUPERVISOR',
    admin: false,
    permissions: [{ environmentUuid: org.envA }, { environmentUuid: org.envB, botUuid: org.botB1 }],
  });

  expect(created).toMatchObject({
    role: 'SUPERVISOR',
    admin: false,
    permissions: [{ environmentUuid: org.envA }, { environmentUuid: org.envB, botUuid: org.botB1 }],
  });
});

test('an empty company or image is stored as none', async () => {
  const created = await createViaApi(org, { company: '', image: '  ' });

  expect(created).toMatchObject({ company: null, image: null });
});

test('a 6-character password with a special character instead of a digit meets the policy', async () => {
  const email = uniqueEmail('special');

  await createViaApi(org, { email, password: 'Abcde!', confirmPassword: 'Abcde!' });

  expect(await signInStatus(email, 'Abcde!')).toBe(200);
});

// Sent raw, as written: the OpenAPI document itself refuses some of these bodies (unknown fields and
// values, required fields left out); only the organization can judge the others.

const invalidBodies: [string, (o: TestOrg) => Record<string, unknown>, string[]][] = [
  ['no name', () => ({ name: undefined }), ['name']],
  ['a blank name', () => ({ name: '   ' }), ['name']],
  ['no e-mail', () => ({ email: undefined }), ['email']],
  ['an invalid e-mail', () => ({ email: 'not-an-email' }), ['email']],
  ['an unknown field', () => ({ nickname: 'x' }), ['nickname']],
  ['an unknown role', () => ({ role: 'OWNER' }), ['role']],
  ['no role and no admin flag', () => ({ role: undefined }), ['role']],
  ['admin: false and no role', () => ({ role: undefined, admin: false }), ['role']],
  ['role ADMIN with admin: false', () => ({ role: 'ADMIN', admin: false, permissions: [] }), ['admin']],
  ['role VIEWER with admin: true', () => ({ admin: true }), ['admin']],
  ['an ADMIN with permissions', (o) => ({ role: 'ADMIN', permissions: [{ environmentUuid: o.envA }] }), ['permissions']],
  ['a SUPERVISOR without permissions', () => ({ role: 'SUPERVISOR', permissions: [] }), ['permissions']],
  ['a SUPERVISOR with no permissions field', () => ({ role: 'SUPERVISOR', permissions: undefined }), ['permissions']],
  ['an EDITOR without permissions', () => ({ role: 'EDITOR', permissions: [] }), ['permissions']],
  ['a VIEWER with no permissions field', () => ({ permissions: undefined }), ['permissions']],
  ['an EDITOR granted a whole environment', (o) => ({ role: 'EDITOR', permissions: [{ environmentUuid: o.envA }] }), ['permissions.0.botUuid']],
  [
    'a VIEWER whose second grant names no bot',
    (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botA1 }, { environmentUuid: o.envB }] }),
    ['permissions.1.botUuid'],
  ],
  ['an unknown environment', (o) => ({ permissions: [{ environmentUuid: crypto.randomUUID(), botUuid: o.botA1 }] }), ['permissions.0.environmentUuid']],
  ['an inactive environment', (o) => ({ role: 'SUPERVISOR', permissions: [{ environmentUuid: o.inactiveEnv }] }), ['permissions.0.environmentUuid']],
  ['an unknown bot', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: crypto.randomUUID() }] }), ['permissions.0.botUuid']],
  ['an inactive bot', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.inactiveBot }] }), ['permissions.0.botUuid']],
  ['a bot of another environment', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botB1 }] }), ['permissions.0.botUuid']],
  ['an environment that is not a uuid', () => ({ role: 'SUPERVISOR', permissions: [{ environmentUuid: 'env-1' }] }), ['permissions.0.environmentUuid']],
  ['a password shorter than 6', () => ({ password: 'Ab1!x', confirmPassword: 'Ab1!x' }), ['password']],
  ['a password without upper case', () => ({ password: 'abcdef1', confirmPassword: 'abcdef1' }), ['password']],
  ['a password without lower case', () => ({ password: 'ABCDEF1', confirmPassword: 'ABCDEF1' }), ['password']],
  ['a password of letters only', () => ({ password: 'Abcdefgh', confirmPassword: 'Abcdefgh' }), ['password']],
  ['a confirmPassword that differs', () => ({ confirmPassword: 'Other-Passw0rd' }), ['confirmPassword']],
  ['a password without confirmPassword', () => ({ confirmPassword: undefined }), ['confirmPassword']],
  ['a confirmPassword without password', () => ({ password: undefined }), ['password']],
];
test.each(invalidBodies)('%s is 422 naming the field, and creates nothing', async (_what, overrides, fields) => {
  const email = uniqueEmail('invalid');
  const body = createBody(org, { email, ...overrides(org) });

  const response = await org.admin.api.post(org.url(), body);

  expectFieldErrors(response, fields);
  expect(await mailsTo(email)).toEqual([]);
  if (typeof body.email === 'string' && body.email === email) {
    // The e-mail was not taken: a valid create with it succeeds.
    await createViaApi(org, { email });
  }
});

test('a grant the template requires is reported as FIELD_REQUIRED, a bad reference as FIELD_INVALID', async () => {
  const required = await org.users.create(newUser(org, { role: 'EDITOR', permissions: [{ environmentUuid: org.envA }] }));
  const invalid = await org.users.create(newUser(org, { permissions: [{ environmentUuid: org.envA, botUuid: org.botB1 }] }));

  expect(expectFieldErrors(required, ['permissions.0.botUuid'])[0]!.errorCode).toBe('FIELD_REQUIRED');
  expect(expectFieldErrors(invalid, ['permissions.0.botUuid'])[0]!.errorCode).toBe('FIELD_INVALID');
});

test('an environment of another organization is not accepted', async () => {
  const other = await freshOrganization();

  const response = await org.users.create(newUser(org, { permissions: [{ environmentUuid: other.envA, botUuid: other.botA1 }] }));

  expectFieldErrors(response, ['permissions.0.environmentUuid']);
});

test.each(['fr', 'english', 'e n'])('language %j is 422 naming the header, and creates and mails nothing', async (language) => {
  const email = uniqueEmail('bad-language');

  const response = await org.admin.api.post(org.url(), createBody(org, { email }), { language });

  expectFieldErrors(response, ['language']);
  expect(await mailsTo(email)).toEqual([]);
  await createViaApi(org, { email });
});

test('an e-mail already in use is 409 EMAIL_TAKEN whatever its case, and nothing is mailed', async () => {
  const email = uniqueEmail('Taken');
  const first = await createViaApi(org, { email });

  const again = await org.users.create(newUser(org, { email, name: 'Second' }));
  const upper = await org.users.create(newUser(org, { email: email.toUpperCase(), name: 'Third' }));

  expectError(again, 409, 'EMAIL_TAKEN');
  expectError(upper, 409, 'EMAIL_TAKEN');
  expect(await mailsTo(email)).toHaveLength(1);
  const found = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}&status=ALL`);
  expect(found.map((user) => user.uuid)).toEqual([first.uuid]);
});

test("a deleted user's e-mail stays taken", async () => {
  const email = uniqueEmail('deleted-taken');
  const first = await createViaApi(org, { email });
  await deleteViaApi(org, first.uuid);

  const response = await org.users.create(newUser(org, { email }));

  expectError(response, 409, 'EMAIL_TAKEN');
});

test('a body that is not JSON is 400 MALFORMED_JSON', async () => {
  expectError(await org.admin.api.post(org.url(), '{"name": "Broken",'), 400, 'MALFORMED_JSON');
});
