import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { unique } from '../support/stack';
import { createViaApi, deleteViaApi, listAllUsers, mailsTo, ownOrganization, signIn, tokenOf, uniqueEmail, usersRoutes, type TestOrg } from '../support/user-helpers';

/**
 * `PUT /users/activate` (docs/api/users.md) as an ADMIN restores a deleted user of an organization of
 * the file's own, named by e-mail, and mails it in the language asked for.
 */

const org = ownOrganization();

const activate: TestOrg['users']['activate'] = (body, header) => org.users.activate(body, header);
/** An activation whose body or language the OpenAPI document refuses (a field left out, another case), sent as written. */
const rawActivate = (body: Record<string, unknown>, headers?: Record<string, string>) => org.admin.api.put(org.url('/activate'), body, headers);

async function deletedUser(overrides: Record<string, unknown> = {}) {
  const email = uniqueEmail('activate');
  const user = await createViaApi(org, { email, name: 'Dora Deleted', ...overrides });
  await deleteViaApi(org, user.uuid);
  return user;
}

test('restores a deleted user, who signs in again with the old password; mails it in English', async () => {
  const user = await deletedUser();

  const response = await activate({ email: user.email });

  expect(response.status).toBe(200);
  expect(response.body).toEqual({ ...user, status: 'ACTIVE' });
  expect((await org.users.get(user.uuid)).body.status).toBe('ACTIVE');
  const token = await tokenOf(org.realm, user.email, TEST_PASSWORD);
  expect((await usersRoutes(org, token.access_token).get(user.uuid)).status).toBe(200);
  const mails = await mailsTo(user.email);
  expect(mails).toHaveLength(2);
  const [welcome, reactivation] = mails as [(typeof mails)[0], (typeof mails)[0]];
  expect(reactivation.subject).not.toBe(welcome.subject);
  expect(reactivation.subject).toContain(org.realm);
  expect(reactivation.body.html).toContain('<html lang="en">');
  expect(reactivation.body.text).toContain('Hello Dora Deleted');
  expect(reactivation.body.text).toContain(user.email);
  expect(reactivation.body.text).not.toContain(TEST_PASSWORD);
  const active = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(user.email)}`);
  expect(active.map((u) => u.uuid)).toEqual([user.uuid]);
});

test('with a new password and language pt: the new password signs in, the old does not, the Portuguese e-mail carries it', async () => {
  const user = await deletedUser();
  const password = `Back-${unique()}7`;

  const response = await rawActivate({ email: user.email, password, confirmPassword: password }, { language: 'PT' });

  expect(response.status).toBe(200);
  expect((await signIn(org.realm, user.email, password)).status).toBe(200);
  expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
  const reactivation = (await mailsTo(user.email))[1]!;
  expect(reactivation.body.html).toContain('<html lang="pt">');
  expect(reactivation.body.text).toContain('Dora Deleted');
  expect(reactivation.body.text).toContain(user.email);
  expect(reactivation.body.text).toContain(password);
});

test('applies the other fields given, and finds the user by e-mail in any case', async () => {
  const user = await deletedUser({ company: 'Before Co' });

  const response = await activate({
    email: user.email.toUpperCase(),
    name: 'Dora Back',
    company: 'After Co',
    role: 'SUPERVISOR',
    permissions: [{ environmentUuid: org.envB }],
  });

  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    ...user,
    name: 'Dora Back',
    company: 'After Co',
    role: 'SUPERVISOR',
    permissions: [{ environmentUuid: org.envB }],
    status: 'ACTIVE',
  });
});

test('an unknown e-mail is 404', async () => {
  expectError(await activate({ email: uniqueEmail('unknown') }), 404, 'NOT_FOUND');
});

test('an active user is 409 USER_ACTIVE and gets no e-mail', async () => {
  const user = await createViaApi(org);

  expectError(await activate({ email: user.email }), 409, 'USER_ACTIVE');
  expect(await mailsTo(user.email)).toHaveLength(1);
});

test.each<[string, (o: TestOrg) => Record<string, unknown>, Record<string, string>, string[]]>([
  ['no e-mail', () => ({ email: undefined }), {}, ['email']],
  ['a weak password', () => ({ password: 'abc', confirmPassword: 'abc' }), {}, ['password']],
  ['passwords that differ', () => ({ password: TEST_PASSWORD, confirmPassword: 'x' }), {}, ['confirmPassword']],
  ['an unknown language', () => ({}), { language: 'de' }, ['language']],
  ['a bot of another environment', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botB1 }] }), {}, ['permissions.0.botUuid']],
  ['an unknown field', () => ({ nickname: 'x' }), {}, ['nickname']],
])('%s is 422, and the user stays deleted without an e-mail', async (_what, overrides, headers, fields) => {
  const user = await deletedUser();

  const response = await rawActivate({ email: user.email, ...overrides(org) }, headers);

  expectFieldErrors(response, fields);
  expect((await org.users.get(user.uuid)).body.status).toBe('DELETED');
  expect(await mailsTo(user.email)).toHaveLength(1);
  expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
});

test('a reactivated user can be deleted and reactivated again', async () => {
  const user = await deletedUser();
  expect((await activate({ email: user.email })).status).toBe(200);

  await deleteViaApi(org, user.uuid);
  const again = await activate({ email: user.email }, { language: 'es' });

  expect(again.status).toBe(200);
  const mails = await mailsTo(user.email);
  expect(mails).toHaveLength(3);
  expect(mails[2]!.body.html).toContain('<html lang="es">');
  expect(mails[2]!.body.text).toContain('Hola, Dora Deleted');
});
