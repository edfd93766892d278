import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { unique } from '../support/stack';
import { createViaApi, deleteViaApi, freshOrganization, listAllUsers, member, ownOrganization, refresh, signIn, tokenOf, uniqueEmail, usersRoutes, type UserUpdateBody } from '../support/user-helpers';

/**
 * `PUT /users/{userId}` (docs/api/users.md) as an ADMIN changes a user of an organization of the file's
 * own (name, image, company, role and grants, e-mail, password) and as a user changes itself.
 */

const org = ownOrganization();

describe('as an ADMIN', () => {
  const update = (uuid: string, body: UserUpdateBody) => org.users.update(uuid, body);
  /** An update whose body the OpenAPI document refuses (a field left out, an unknown field or value), sent as written. */
  const rawUpdate = (uuid: string, body: Record<string, unknown>) => org.admin.api.put(org.url(`/${uuid}`), body);
  const read = async (uuid: string) => (await org.users.get(uuid)).body;

  test('changes name, image and company; answers and stores the User', async () => {
    const user = await createViaApi(org, { company: 'Old Co', image: 'https://img.example.test/old.png' });

    const response = await update(user.uuid, { name: 'Renamed', email: user.email, company: 'New Co', image: 'https://img.example.test/new.png' });

    expect(response.status).toBe(200);
    const expected = { ...user, name: 'Renamed', company: 'New Co', image: 'https://img.example.test/new.png' };
    expect(response.body).toEqual(expected);
    expect(await read(user.uuid)).toEqual(expected);
  });

  test('image and company left out stay; role and permissions left out stay', async () => {
    const user = await createViaApi(org, { company: 'Keep Co', image: 'https://img.example.test/keep.png', role: 'EDITOR' });

    const response = await update(user.uuid, { name: 'Only Name', email: user.email });

    expect(response.status).toBe(200);
    expect(await read(user.uuid)).toEqual({ ...user, name: 'Only Name' });
  });

  test.each([null, ''])('image and company set to %j are cleared', async (value) => {
    const user = await createViaApi(org, { company: 'Gone Co', image: 'https://img.example.test/gone.png' });

    const response = await update(user.uuid, { name: user.name, email: user.email, company: value, image: value });

    expect(response.body).toMatchObject({ company: null, image: null });
    expect(await read(user.uuid)).toMatchObject({ company: null, image: null });
  });

  test('the User read back is accepted as a body; its response-only fields are ignored', async () => {
    const user = await createViaApi(org);
    const other = await createViaApi(org);
    const body = {
      ...(await read(user.uuid)),
      name: 'Round Trip',
      uuid: other.uuid,
      orgUUID: crypto.randomUUID(),
      createdAt: '2000-01-01T00:00:00.000Z',
      status: 'DELETED',
    };

    const response = await update(user.uuid, body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...user, name: 'Round Trip' });
    expect(await read(other.uuid)).toEqual(other);
  });

  test('changes role and permissions', async () => {
    const user = await createViaApi(org);

    const response = await update(user.uuid, {
      name: user.name,
      email: user.email,
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: org.envB }],
    });

    expect(response.body).toMatchObject({ role: 'SUPERVISOR', admin: false, permissions: [{ environmentUuid: org.envB }] });
    expect(await read(user.uuid)).toMatchObject({ role: 'SUPERVISOR', permissions: [{ environmentUuid: org.envB }] });
  });

  test('a role change keeps the current permissions when they suit the new role', async () => {
    const user = await createViaApi(org, { role: 'VIEWER' });

    const response = await update(user.uuid, { name: user.name, email: user.email, role: 'EDITOR' });

    expect(response.body).toMatchObject({ role: 'EDITOR', permissions: user.permissions });
  });

  test('admin: true promotes to ADMIN (permissions dropped), who may then list users; a demotion needs grants', async () => {
    const email = uniqueEmail('promoted');
    const user = await createViaApi(org, { email });
    const before = await tokenOf(org.realm, email, TEST_PASSWORD);
    expect((await usersRoutes(org, before.access_token).list()).status).toBe(403);

    const promoted = await update(user.uuid, { name: user.name, email, admin: true });
    const demotedWithout = await update(user.uuid, { name: user.name, email, role: 'VIEWER' });

    expect(promoted.body).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
    expect((await usersRoutes(org, before.access_token).list()).status).toBe(200);
    expectFieldErrors(demotedWithout, ['permissions']);
    const demoted = await update(user.uuid, { name: user.name, email, role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA2 }] });
    expect(demoted.body).toMatchObject({ role: 'VIEWER', admin: false });
    expect((await usersRoutes(org, before.access_token).list()).status).toBe(403);
  });

  test('changes the e-mail: the user signs in with the new one only, and the old one is free for a new user', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const user = await createViaApi(org, { email: oldEmail });

    const response = await update(user.uuid, { name: user.name, email: newEmail });

    expect(response.status).toBe(200);
    expect(response.body.email).toBe(newEmail);
    expect((await signIn(org.realm, newEmail, TEST_PASSWORD)).status).toBe(200);
    expect((await signIn(org.realm, oldEmail, TEST_PASSWORD)).status).toBe(400);
    const reuse = await createViaApi(org, { email: oldEmail, name: 'Reuser' });
    expect(reuse.uuid).not.toBe(user.uuid);
    const listedNew = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(newEmail)}`);
    expect(listedNew.map((u) => u.uuid)).toEqual([user.uuid]);
  });

  test('a change of e-mail case only is allowed and keeps the user signing in', async () => {
    const email = uniqueEmail('case');
    const user = await createViaApi(org, { email });

    const response = await update(user.uuid, { name: user.name, email: email.toUpperCase() });

    expect(response.status).toBe(200);
    expect(response.body.email).toBe(email.toUpperCase());
    expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(200);
  });

  test("another user's e-mail (any case), active or deleted, is 409 EMAIL_TAKEN and changes nothing", async () => {
    const user = await createViaApi(org);
    const holder = await createViaApi(org);
    const deletedHolder = await createViaApi(org);
    await deleteViaApi(org, deletedHolder.uuid);

    const active = await update(user.uuid, { name: 'Changed?', email: holder.email.toUpperCase() });
    const deleted = await update(user.uuid, { name: 'Changed?', email: deletedHolder.email });

    expectError(active, 409, 'EMAIL_TAKEN');
    expectError(deleted, 409, 'EMAIL_TAKEN');
    expect(await read(user.uuid)).toEqual(user);
    expect((await signIn(org.realm, holder.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('a new password signs in, the old one no longer does, and earlier refresh tokens are revoked', async () => {
    const email = uniqueEmail('password');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);
    const newPassword = `New-${unique()}9`;

    const response = await update(user.uuid, { name: user.name, email, password: newPassword, confirmPassword: newPassword });

    expect(response.status).toBe(200);
    expect(response.text).not.toContain(newPassword);
    expect((await signIn(org.realm, email, newPassword)).status).toBe(200);
    expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(400);
    expect((await refresh(org.realm, session.refresh_token)).status).toBe(400);
  });

  test('an update without password keeps the refresh sessions', async () => {
    const email = uniqueEmail('keep-session');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);

    await update(user.uuid, { name: 'Still Signed In', email });

    expect((await refresh(org.realm, session.refresh_token)).status).toBe(200);
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['no name', { name: undefined }, ['name']],
    ['no e-mail', { email: undefined }, ['email']],
    ['an invalid e-mail', { email: 'nope' }, ['email']],
    ['a weak password', { password: 'weak', confirmPassword: 'weak' }, ['password']],
    ['passwords that differ', { password: TEST_PASSWORD, confirmPassword: 'Other-Passw0rd' }, ['confirmPassword']],
    ['an unknown role', { role: 'ROOT' }, ['role']],
    ['an unknown field', { nickname: 'x' }, ['nickname']],
  ])('%s is 422 naming the field', async (_what, overrides, fields) => {
    const user = await createViaApi(org);

    const response = await rawUpdate(user.uuid, { name: user.name, email: user.email, ...overrides });

    expectFieldErrors(response, fields);
    expect(await read(user.uuid)).toEqual(user);
  });

  test('grants are checked like on create', async () => {
    const user = await createViaApi(org);

    const response = await update(user.uuid, { name: user.name, email: user.email, permissions: [{ environmentUuid: org.envB, botUuid: org.botA1 }] });
    const bare = await update(user.uuid, { name: user.name, email: user.email, role: 'EDITOR', permissions: [{ environmentUuid: org.envA }] });

    expectFieldErrors(response, ['permissions.0.botUuid']);
    expectFieldErrors(bare, ['permissions.0.botUuid']);
    expect(await read(user.uuid)).toEqual(user);
  });

  test('a deleted user is 409 USER_DELETED', async () => {
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);

    expectError(await update(user.uuid, { name: 'Ghost', email: user.email }), 409, 'USER_DELETED');
    expect(await read(user.uuid)).toEqual({ ...user, status: 'DELETED' });
  });

  test('an unknown user is 404', async () => {
    expectError(await update(crypto.randomUUID(), { name: 'Nobody', email: uniqueEmail() }), 404, 'NOT_FOUND');
  });

  test('the ADMIN updates its own name but not its own role (403)', async () => {
    const other = await freshOrganization();

    const renamed = await other.users.update(other.admin.uuid, { name: 'Renamed Admin', email: other.admin.email, role: 'ADMIN', admin: true });
    const demoted = await other.users.update(other.admin.uuid, {
      name: 'Renamed Admin',
      email: other.admin.email,
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: other.envA }],
    });

    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed Admin', role: 'ADMIN' });
    expectError(demoted, 403, 'FORBIDDEN');
    expect((await other.users.get(other.admin.uuid)).body).toMatchObject({ name: 'Renamed Admin', role: 'ADMIN' });
  });
});

describe('as the user itself', () => {
  test('updates its own name, company, image and password, and signs in with the new password', async () => {
    const me = await member(org, 'VIEWER');
    const newPassword = `Mine-${unique()}3`;

    const response = await usersRoutes(org, me).update(me.uuid, {
      name: 'Self Made',
      email: me.email,
      company: 'Me Inc',
      image: 'https://img.example.test/me.png',
      password: newPassword,
      confirmPassword: newPassword,
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Self Made', company: 'Me Inc', image: 'https://img.example.test/me.png', role: 'VIEWER' });
    expect((await signIn(org.realm, me.email, newPassword)).status).toBe(200);
    expect((await refresh(org.realm, me.refreshToken)).status).toBe(400);
  });
});
