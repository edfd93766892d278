import type { Role } from '../../shared/domain/users/user.entities';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import {
  createBody,
  createViaApi,
  deleteViaApi,
  freshOrganization,
  member,
  readUser,
  signIn,
  uniqueEmail,
  usersApi,
  type Member,
  type TestOrg,
  type UserDto,
  type UsersApi,
} from '../support/user-helpers';

/**
 * Who may call which users route. Organization `home` has an ADMIN (its first) and one member per
 * role; organization `away` has its own ADMIN and a VIEWER. Non-admins administer nobody but read and
 * update themselves; another organization, in the path or as the addressed user's, is a 404.
 */

let home: TestOrg;
let away: TestOrg;
const callers = {} as Record<Role, Member>;
let awayViewer: Member;

beforeAll(async () => {
  [home, away] = await Promise.all([freshOrganization(), freshOrganization()]);
  const [admin, supervisor, editor, viewer, otherViewer] = await Promise.all([
    member(home, 'ADMIN'),
    member(home, 'SUPERVISOR'),
    member(home, 'EDITOR'),
    member(home, 'VIEWER'),
    member(away, 'VIEWER'),
  ]);
  Object.assign(callers, { ADMIN: admin, SUPERVISOR: supervisor, EDITOR: editor, VIEWER: viewer });
  awayViewer = otherViewer;
});

/** Calls every users route once as `client` against organization `org` and answers each status. */
async function exercise(client: UsersApi, org: TestOrg, self: Member) {
  const [target, victim, deleted] = await Promise.all([createViaApi(org), createViaApi(org), createViaApi(org)]);
  await deleteViaApi(org, deleted.uuid);
  const newEmail = uniqueEmail('by-caller');
  const responses: Record<string, ApiResponse<unknown>> = {
    list: await client.get(org.url()),
    quicksearch: await client.get(org.url('/quicksearch?name=a')),
    create: await client.post(org.url(), createBody(org, { email: newEmail })),
    getOther: await client.get(org.url(`/${target.uuid}`)),
    getSelf: await client.get(org.url(`/${self.uuid}`)),
    updateOther: await client.put(org.url(`/${target.uuid}`), { name: 'Changed by caller', email: target.email }),
    updateSelf: await client.put(org.url(`/${self.uuid}`), { name: `${self.role} renamed`, email: self.email }),
    delete: await client.delete(org.url(`/${victim.uuid}`)),
    activate: await client.put(org.url('/activate'), { email: deleted.email }),
  };
  return { responses, target, victim, deleted, newEmail };
}

const statuses = (responses: Record<string, ApiResponse<unknown>>) =>
  Object.fromEntries(Object.entries(responses).map(([route, response]) => [route, response.status]));

/** The status of each route `exercise` calls, when the caller may call it (a delete answers 204). */
const SUCCESS: Record<string, number> = {
  list: 200,
  quicksearch: 200,
  create: 200,
  getOther: 200,
  getSelf: 200,
  updateOther: 200,
  updateSelf: 200,
  delete: 204,
  activate: 200,
};

/** The statuses for a caller who may call only the `allowed` routes: every other one is a 403. */
const allowedOnly = (allowed: string[]) => Object.fromEntries(Object.entries(SUCCESS).map(([route, status]) => [route, allowed.includes(route) ? status : 403]));

test('an ADMIN may call every route', async () => {
  const caller = callers.ADMIN;

  const { responses, target, victim, deleted, newEmail } = await exercise(caller.api, home, caller);

  expect(statuses(responses)).toEqual(SUCCESS);
  expect(responses.create!.body).toMatchObject({ email: newEmail, status: 'ACTIVE' });
  expect(await readUser(home, target.uuid)).toMatchObject({ name: 'Changed by caller' });
  expect(await readUser(home, victim.uuid)).toMatchObject({ status: 'DELETED' });
  expect(await readUser(home, deleted.uuid)).toMatchObject({ status: 'ACTIVE' });
});

test.each<Role>(['SUPERVISOR', 'EDITOR', 'VIEWER'])('a non-admin (%s) reads and updates itself only; every admin route is 403 and changes nothing', async (role) => {
  const caller = callers[role];

  const { responses, target, victim, deleted, newEmail } = await exercise(caller.api, home, caller);

  expect(statuses(responses)).toEqual(allowedOnly(['getSelf', 'updateSelf']));
  for (const response of Object.values(responses)) {
    if (response.status === 403) expectError(response, 403, 'FORBIDDEN');
  }
  expect(responses.getSelf!.body).toMatchObject({ uuid: caller.uuid, role, email: caller.email });
  expect(responses.updateSelf!.body).toMatchObject({ uuid: caller.uuid, role, name: `${role} renamed` });
  expect(await readUser(home, target.uuid)).toEqual(target);
  expect(await readUser(home, victim.uuid)).toMatchObject({ status: 'ACTIVE' });
  expect(await readUser(home, deleted.uuid)).toMatchObject({ status: 'DELETED' });
  // The e-mail the forbidden create named is still free.
  await createViaApi(home, { email: newEmail });
});

describe('a non-admin on itself', () => {
  let me: Member;
  beforeEach(async () => {
    me = await member(home, 'EDITOR');
  });
  const self = () => home.url(`/${me.uuid}`);

  test('may send its role and permissions unchanged', async () => {
    const response = await me.api.put(self(), {
      name: 'Same Access',
      email: me.email,
      role: 'EDITOR',
      admin: false,
      permissions: [{ environmentUuid: home.envA, botUuid: home.botA1 }],
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Same Access', role: 'EDITOR' });
  });

  test.each<[string, (o: TestOrg) => Record<string, unknown>]>([
    ['its role', () => ({ role: 'VIEWER' })],
    ['its role to ADMIN through the admin flag', () => ({ admin: true })],
    ['its permissions', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botA2 }] })],
    ['its e-mail', () => ({ email: uniqueEmail('self-change') })],
  ])('may not change %s (403, nothing changes)', async (_what, change) => {
    const before = await readUser(home, me.uuid);

    const response = await me.api.put(self(), { name: 'Attempt', email: me.email, ...change(home) });

    expectError(response, 403, 'FORBIDDEN');
    expect(await readUser(home, me.uuid)).toEqual(before);
  });
});

test('an ADMIN may change its own e-mail and then signs in with it', async () => {
  const admin = await member(home, 'ADMIN');
  const email = uniqueEmail('admin-self');

  const response = await admin.api.put(home.url(`/${admin.uuid}`), { name: admin.name, email });

  expect(response.status).toBe(200);
  expect((await signIn(home.realm, email, TEST_PASSWORD)).status).toBe(200);
  expect((await signIn(home.realm, admin.email, TEST_PASSWORD)).status).toBe(400);
});

/** A user of `org`, and another one it has deleted: what every route can address. */
async function liveAndDeleted(org: TestOrg): Promise<[UserDto, UserDto]> {
  const [user, deleted] = await Promise.all([createViaApi(org), createViaApi(org)]);
  await deleteViaApi(org, deleted.uuid);
  return [user, deleted];
}

/** Every route of `org`'s path as calls of `client`, addressing `user` and the deleted `deleted`. */
const routes = (client: UsersApi, org: TestOrg, user: { uuid: string; email: string }, deleted: { email: string }) => ({
  list: () => client.get(org.url()),
  quicksearch: () => client.get(org.url('/quicksearch?name=a')),
  create: () => client.post(org.url(), createBody(org)),
  get: () => client.get(org.url(`/${user.uuid}`)),
  update: () => client.put(org.url(`/${user.uuid}`), { name: 'Changed by a stranger', email: user.email }),
  delete: () => client.delete(org.url(`/${user.uuid}`)),
  activate: () => client.put(org.url('/activate'), { email: deleted.email }),
});

// ---------------------------------------------------------------------------------------------------
describe('another organization', () => {
  let homeUser: UserDto;
  let homeDeleted: UserDto;
  beforeAll(async () => {
    [homeUser, homeDeleted] = await liveAndDeleted(home);
  });

  test.each(['ADMIN', 'VIEWER'])("a token of another organization's %s on this organization's path is 404 on every route", async (role) => {
    const client = role === 'ADMIN' ? away.admin.api : awayViewer.api;

    for (const [route, call] of Object.entries(routes(client, home, homeUser, homeDeleted))) {
      const response = await call();
      expect({ route, status: response.status }).toEqual({ route, status: 404 });
      expectError(response, 404, 'NOT_FOUND');
    }
    expect(await readUser(home, homeUser.uuid)).toEqual(homeUser);
    expect(await readUser(home, homeDeleted.uuid)).toMatchObject({ status: 'DELETED' });
  });

  test("a user of another organization addressed under the caller's organization is 404 and is left alone", async () => {
    const [awayUser, awayDeleted] = await liveAndDeleted(away);
    const all = routes(home.admin.api, home, awayUser, awayDeleted);

    for (const route of ['get', 'update', 'delete', 'activate'] as const) {
      const response = await all[route]();
      expect({ route, status: response.status }).toEqual({ route, status: 404 });
      expectError(response, 404, 'NOT_FOUND');
    }
    expect(await readUser(away, awayUser.uuid)).toEqual(awayUser);
    expect(await readUser(away, awayDeleted.uuid)).toMatchObject({ status: 'DELETED' });
  });

  test("a user of another organization reading itself under this organization's path is 404", async () => {
    const response = await awayViewer.api.get(home.url(`/${awayViewer.uuid}`));

    expectError(response, 404, 'NOT_FOUND');
  });

  test('listings and quicksearches never show another organization\u2019s users', async () => {
    const name = `Only Away ${Date.now()}`;
    await createViaApi(away, { name });

    const quick = await home.admin.api.get<string[]>(home.url(`/quicksearch?name=${encodeURIComponent(name)}`));
    const list = await home.admin.api.get<{ totalElements: number }>(home.url(`?searchTerms=${encodeURIComponent(name)}&status=ALL`));

    expect(quick.body).toEqual([]);
    expect(list.body.totalElements).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('authentication', () => {
  let target: UserDto;
  let deleted: UserDto;
  beforeAll(async () => {
    [target, deleted] = await liveAndDeleted(home);
  });

  test.each<[string, () => Promise<UsersApi>]>([
    ['no token', async () => usersApi(undefined)],
    ['a malformed token', async () => usersApi('not.a.jwt')],
    [
      "a deleted user's token",
      async () => {
        const gone = await member(home, 'ADMIN');
        await deleteViaApi(home, gone.uuid);
        return gone.api;
      },
    ],
  ])('%s is 401 on every route, and nothing changes', async (_what, client) => {
    for (const [route, call] of Object.entries(routes(await client(), home, target, deleted))) {
      const response = await call();
      expect({ route, status: response.status }).toEqual({ route, status: 401 });
      expectError(response, 401, 'UNAUTHENTICATED');
    }
    expect(await readUser(home, target.uuid)).toEqual(target);
    expect(await readUser(home, deleted.uuid)).toMatchObject({ status: 'DELETED' });
  });
});
