import { authorizeOrgAdmin } from '../../shared/app/access/org-access';
import { indexUsers } from '../../shared/app/operator/operator.service';
import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, getItem, putItem, updateItem } from '../../shared/adapters/store/table';
import { indexWrites } from '../../shared/domain/users/user-index.repository';
import { getUser, type StoredUser } from '../../shared/domain/users/user.repository';
import { getEmailClaim } from '../../shared/domain/users/user-email-claims.repository';
import { activateUser, createUser, deleteUser, updateUser } from '../../shared/app/users/user-lifecycle';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { unique } from '../support/stack';
import {
  adminSet,
  callerOf,
  createBody,
  createViaApi,
  deleteViaApi,
  failingIdentityProvider,
  freshOrganization,
  grantsFor,
  identityOf,
  listAllUsers,
  mailContext,
  mailsTo,
  member,
  readUser,
  recordingMailer,
  refresh,
  signIn,
  tokenOf,
  uniqueEmail,
  usersApi,
  type Member,
  type TestOrg,
  type UserDto,
} from '../support/user-helpers';

/**
 * What stays true when the identity provider fails half-way, and when requests race: the user record,
 * the directory the listings read, the e-mail claims and the ADMIN set agree with each other and with
 * the identity provider. Failures are injected through the service functions' `deps`; races go
 * through HTTP.
 */

let org: TestOrg;
/** The scope an ADMIN's request of `on` is authorized with. */
const adminScope = async (on: TestOrg) => authorizeOrgAdmin(await callerOf(on.admin.token), on.orgUuid);
beforeAll(async () => {
  org = await freshOrganization();
});

const signInStatus = async (email: string, password: string, on: TestOrg = org) => (await signIn(on.realm, email, password)).status;
/** The listing's users whose name, e-mail or company contain `term`, any status. */
const listed = (term: string, on: TestOrg = org) => listAllUsers(on.admin.api, on, `&status=ALL&searchTerms=${encodeURIComponent(term)}`);

// ---------------------------------------------------------------------------------------------------
describe('the identity provider fails', () => {
  /** A service call's deps whose identity provider fails at `operation` (and a mailer that records what it would send). */
  const failingAt = (operation: Parameters<typeof failingIdentityProvider>[0], mailer = recordingMailer()) => ({
    identityProvider: failingIdentityProvider(operation),
    mailer,
  });
  /** The call fails with the identity provider's failure. */
  const failsWithProvider = (call: Promise<unknown>) => expect(call).rejects.toThrow('identity provider unavailable');

  test('on create: nothing is stored, claimed, listed or mailed, and a retry succeeds', async () => {
    const email = uniqueEmail('create-fails');
    const mailer = recordingMailer();
    const input = { name: 'Failed Create', email, role: 'VIEWER' as const, permissions: grantsFor(org, 'VIEWER'), password: TEST_PASSWORD };

    await failsWithProvider(createUser(await adminScope(org), input, mailContext(), failingAt('createUser', mailer)));

    expect(await getEmailClaim(org.orgUuid, email)).toBeUndefined();
    expect(await listed(email)).toEqual([]);
    expect(mailer.sent).toEqual([]);
    expect(await mailsTo(email)).toEqual([]);
    const retried = await createViaApi(org, { email, name: 'Failed Create' });
    expect(await listed(email)).toEqual([retried]);
    expect(await signInStatus(email, TEST_PASSWORD)).toBe(200);
  });

  test('on an e-mail change (updateEmail): the old e-mail is still held and signs in, the new one is free', async () => {
    const oldEmail = uniqueEmail('keep');
    const newEmail = uniqueEmail('wanted');
    const user = await createViaApi(org, { email: oldEmail });

    await failsWithProvider(updateUser(await adminScope(org), user.uuid, { name: 'Not Renamed', email: newEmail }, failingAt('updateEmail')));

    expect(await readUser(org, user.uuid)).toEqual(user);
    expect(await getEmailClaim(org.orgUuid, oldEmail)).toMatchObject({ userUuid: user.uuid, state: 'DONE' });
    expect(await getEmailClaim(org.orgUuid, newEmail)).toBeUndefined();
    expect(await listed(oldEmail)).toEqual([user]);
    expect(await identityOf(user.uuid)).toMatchObject({ email: oldEmail, enabled: true });
    expect(await signInStatus(oldEmail, TEST_PASSWORD)).toBe(200);
    expect(await signInStatus(newEmail, TEST_PASSWORD)).toBe(400);
    // The new e-mail is free: the same change through the API now succeeds.
    const retried = await org.admin.api.put(org.url(`/${user.uuid}`), { name: user.name, email: newEmail });
    expect(retried.status).toBe(200);
    expect(await identityOf(user.uuid)).toMatchObject({ email: newEmail });
    expect(await signInStatus(newEmail, TEST_PASSWORD)).toBe(200);
    expect(await getEmailClaim(org.orgUuid, oldEmail)).toBeUndefined();
  });

  test('while an ADMIN is demoted: it stays an ADMIN and in the ADMIN set', async () => {
    const target = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });
    const admins = await adminSet(org.orgUuid);
    expect(admins).toContain(target.uuid);

    await failsWithProvider(
      updateUser(
        await adminScope(org),
        target.uuid,
        { name: target.name, email: uniqueEmail('demoted'), role: 'VIEWER', permissions: grantsFor(org, 'VIEWER') },
        failingAt('updateEmail'),
      ),
    );

    expect(await readUser(org, target.uuid)).toEqual(target);
    expect(await adminSet(org.orgUuid)).toEqual(admins);
  });

  test('on a password change (setPassword): nothing changes, the old password and sessions still work', async () => {
    const email = uniqueEmail('password-fails');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);
    const newPassword = `Never-${unique()}1`;

    await failsWithProvider(updateUser(await adminScope(org), user.uuid, { name: 'Not Renamed', email, password: newPassword }, failingAt('setPassword')));

    expect(await readUser(org, user.uuid)).toEqual(user);
    expect(await listed(email)).toEqual([user]);
    expect(await getEmailClaim(org.orgUuid, email)).toMatchObject({ userUuid: user.uuid, state: 'DONE' });
    expect(await signInStatus(email, TEST_PASSWORD)).toBe(200);
    expect(await signInStatus(email, newPassword)).toBe(400);
    expect((await refresh(org.realm, session.refresh_token)).status).toBe(200);
  });

  // An e-mail change with a new password: the e-mail goes to the identity provider first and is put
  // back when setting the password fails, so the store and the identity provider agree.
  test('on a password change together with an e-mail change: the identity provider keeps the old e-mail too', async () => {
    const oldEmail = uniqueEmail('both-old');
    const newEmail = uniqueEmail('both-new');
    const user = await createViaApi(org, { email: oldEmail });

    await failsWithProvider(
      updateUser(
        await adminScope(org),
        user.uuid,
        { name: user.name, email: newEmail, password: `Never-${unique()}1` },
        failingAt('setPassword'),
      ),
    );

    // What the store says (these hold today) ...
    expect(await readUser(org, user.uuid)).toEqual(user);
    expect(await getEmailClaim(org.orgUuid, oldEmail)).toMatchObject({ userUuid: user.uuid, state: 'DONE' });
    expect(await getEmailClaim(org.orgUuid, newEmail)).toBeUndefined();
    // ... and what the identity provider says (fails today: it has `newEmail`).
    expect(await identityOf(user.uuid)).toMatchObject({ email: oldEmail });
  });

  test('on delete (disable): the user stays ACTIVE, signed in and in the ADMIN set; a later delete works', async () => {
    const own = await freshOrganization();
    const second = await member(own, 'ADMIN');
    const session = await tokenOf(own.realm, second.email, TEST_PASSWORD);
    const before = await readUser(own, second.uuid);

    await failsWithProvider(deleteUser(await adminScope(own), second.uuid, failingAt('disable')));

    expect(await readUser(own, second.uuid)).toEqual(before);
    expect(await listed(second.email, own)).toEqual([before]);
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid, second.uuid].sort());
    expect(await identityOf(second.uuid)).toMatchObject({ enabled: true });
    expect((await second.api.get(own.url())).status).toBe(200);
    expect((await refresh(own.realm, session.refresh_token)).status).toBe(200);
    // Still counted as an ADMIN: it may delete the first ADMIN, which the last-ADMIN guard allows only then.
    expect((await second.api.delete(own.url(`/${own.admin.uuid}`))).status).toBe(204);
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid]);
    expectError(await second.api.delete(own.url(`/${second.uuid}`)), 409, 'SELF_DELETE');
  });

  test('on delete of a non-admin (disable): a later delete through the API works', async () => {
    const user = await createViaApi(org);

    await failsWithProvider(deleteUser(await adminScope(org), user.uuid, failingAt('disable')));

    expect(await readUser(org, user.uuid)).toEqual(user);
    expect(await signInStatus(user.email, TEST_PASSWORD)).toBe(200);
    expect((await org.admin.api.delete(org.url(`/${user.uuid}`))).status).toBe(204);
    expect(await identityOf(user.uuid)).toMatchObject({ enabled: false });
    expect(await signInStatus(user.email, TEST_PASSWORD)).toBe(400);
  });

  test('on activate (enable): the user stays DELETED (and out of the ADMIN set), cannot sign in, gets no e-mail; a later activation works', async () => {
    const user = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });
    await deleteViaApi(org, user.uuid);
    const admins = await adminSet(org.orgUuid);
    expect(admins).not.toContain(user.uuid);
    const mailer = recordingMailer();

    await failsWithProvider(activateUser(await adminScope(org), { email: user.email, name: 'Not Back' }, mailContext(), failingAt('enable', mailer)));

    const deleted = { ...user, status: 'DELETED' };
    expect(await readUser(org, user.uuid)).toEqual(deleted);
    expect(await listed(user.email)).toEqual([deleted]);
    expect(await identityOf(user.uuid)).toMatchObject({ enabled: false });
    expect(await signInStatus(user.email, TEST_PASSWORD)).toBe(400);
    expect(mailer.sent).toEqual([]);
    expect(await mailsTo(user.email)).toHaveLength(1);
    expect(await adminSet(org.orgUuid)).toEqual(admins);
    const retried = await org.admin.api.put(org.url('/activate'), { email: user.email });
    expect(retried.status).toBe(200);
    expect(await signInStatus(user.email, TEST_PASSWORD)).toBe(200);
    expect(await adminSet(org.orgUuid)).toContain(user.uuid);
  });

  // Activate enables first and sets the new password last: when enabling fails the password is untouched,
  // so a later reactivation without a password rightly says it has not changed.
  test('on activate with a new password (enable fails): the old password is kept', async () => {
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);
    const password = `Lost-${unique()}1`;

    await failsWithProvider(activateUser(await adminScope(org), { email: user.email, password }, mailContext(), failingAt('enable')));
    expect((await org.admin.api.put(org.url('/activate'), { email: user.email })).status).toBe(200);

    expect(await signInStatus(user.email, TEST_PASSWORD)).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('the ADMIN set follows deletes and reactivations', () => {
  test('a deleted ADMIN leaves the set; reactivated, it is counted again', async () => {
    const own = await freshOrganization();
    const second = await member(own, 'ADMIN');

    await deleteViaApi(own, second.uuid);
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid]);
    expect((await own.admin.api.put(own.url('/activate'), { email: second.email })).status).toBe(200);

    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid, second.uuid].sort());
    const again = await tokenOf(own.realm, second.email, TEST_PASSWORD);
    expect((await usersApi(again.access_token).delete(own.url(`/${own.admin.uuid}`))).status).toBe(204);
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid]);
  });

  test('a promotion enters the set and a demotion leaves it', async () => {
    const own = await freshOrganization();
    const user = await createViaApi(own);

    await own.admin.api.put(own.url(`/${user.uuid}`), { name: user.name, email: user.email, admin: true });
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid, user.uuid].sort());
    await own.admin.api.put(own.url(`/${user.uuid}`), { name: user.name, email: user.email, role: 'VIEWER', permissions: grantsFor(own, 'VIEWER') });

    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('the last ADMIN guard', () => {
  // A request authenticated just before its caller lost ADMIN (the interleaving the races below hope
  // to hit), made deterministic: the caller is read, then the other ADMIN acts, then the call runs.
  test('a delete that would leave no active ADMIN is 409 LAST_ADMIN and changes nothing', async () => {
    const own = await freshOrganization();
    const second = await member(own, 'ADMIN');
    const staleFirst = await authorizeOrgAdmin(await callerOf(own.admin.token), own.orgUuid);
    expect((await second.api.delete(own.url(`/${own.admin.uuid}`))).status).toBe(204);

    await expect(deleteUser(staleFirst, second.uuid)).rejects.toMatchObject({ code: 'LAST_ADMIN' });

    expect((await second.api.get(own.url(`/${second.uuid}`))).body).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid]);
    expect(await identityOf(second.uuid)).toMatchObject({ enabled: true });
    expect(await signInStatus(second.email, TEST_PASSWORD, own)).toBe(200);
  });

  test('a demotion that would leave no ADMIN is 409 LAST_ADMIN and changes nothing', async () => {
    const own = await freshOrganization();
    const second = await member(own, 'ADMIN');
    const staleFirst = await authorizeOrgAdmin(await callerOf(own.admin.token), own.orgUuid);
    const demotion = { role: 'VIEWER' as const, permissions: grantsFor(own, 'VIEWER') };
    expect((await second.api.put(own.url(`/${own.admin.uuid}`), { name: own.admin.name, email: own.admin.email, ...demotion })).status).toBe(200);
    const newEmail = uniqueEmail('last-admin');

    await expect(
      updateUser(staleFirst, second.uuid, { name: 'Demoted?', email: newEmail, ...demotion }),
    ).rejects.toMatchObject({ code: 'LAST_ADMIN' });

    expect((await second.api.get(own.url(`/${second.uuid}`))).body).toMatchObject({ name: second.name, email: second.email, role: 'ADMIN' });
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid]);
    // The e-mail the demotion would have taken was given back.
    expect(await getEmailClaim(own.orgUuid, newEmail)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------
describe('races', () => {
  test('concurrent creates of one e-mail: exactly one 200, the rest 409 EMAIL_TAKEN, one user, one e-mail', async () => {
    const email = uniqueEmail('race');

    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => org.admin.api.post(org.url(), createBody(org, { email, name: `Racer ${i}` }))),
    );

    const created = responses.filter((r) => r.status === 200);
    expect(created).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 409, 'EMAIL_TAKEN');
    const [winner] = created as [ApiResponse<UserDto>];
    expect(await listed(email)).toEqual([winner.body]);
    expect(await getEmailClaim(org.orgUuid, email)).toMatchObject({ userUuid: winner.body.uuid, state: 'DONE' });
    expect(await mailsTo(email)).toHaveLength(1);
    expect(await signInStatus(email, TEST_PASSWORD)).toBe(200);
  });

  /** An organization whose only ADMINs are its first and `second`. */
  async function twoAdmins(): Promise<{ own: TestOrg; first: Member; second: Member }> {
    const own = await freshOrganization();
    const second = await member(own, 'ADMIN');
    return { own, first: own.admin, second };
  }

  /** After a race, exactly one of the two is an active ADMIN, the set names it, and it administers users. */
  async function expectOneAdminLeft(own: TestOrg, pair: Member[]): Promise<Member> {
    const views = await Promise.all(pair.map((m) => m.api.get(own.url(`/${m.uuid}`))));
    const survivors = pair.filter((_, i) => views[i]!.status === 200 && views[i]!.body.status === 'ACTIVE' && views[i]!.body.role === 'ADMIN');
    expect(survivors).toHaveLength(1);
    const survivor = survivors[0]!;
    expect(await adminSet(own.orgUuid)).toEqual([survivor.uuid]);
    expect((await survivor.api.get(own.url())).status).toBe(200);
    return survivor;
  }

  test('two ADMINs deleting each other at once: exactly one 204, and one ADMIN stays active', async () => {
    const rounds = await Promise.all([twoAdmins(), twoAdmins(), twoAdmins()]);

    await Promise.all(
      rounds.map(async ({ own, first, second }) => {
        const [a, b] = await Promise.all([
          first.api.delete(own.url(`/${second.uuid}`)),
          second.api.delete(own.url(`/${first.uuid}`)),
        ]);

        const outcomes = [a.status, b.status].sort();
        expect(outcomes.filter((status) => status === 204)).toHaveLength(1);
        // The loser either hit the guard or was already deleted when its request was authenticated.
        expect([401, 409]).toContain(outcomes.find((status) => status !== 204));
        const loser = a.status === 204 ? b : a;
        if (loser.status === 409) expectError(loser, 409, 'LAST_ADMIN');
        const survivor = await expectOneAdminLeft(own, [first, second]);
        expect(survivor).toBe(a.status === 204 ? first : second);
      }),
    );
  });

  test('two ADMINs demoting each other at once: exactly one 200, and one ADMIN stays', async () => {
    const rounds = await Promise.all([twoAdmins(), twoAdmins(), twoAdmins()]);

    await Promise.all(
      rounds.map(async ({ own, first, second }) => {
        const demote = (by: Member, target: Member) =>
          by.api.put(own.url(`/${target.uuid}`), { name: target.name, email: target.email, role: 'VIEWER', permissions: grantsFor(own, 'VIEWER') });

        const [a, b] = await Promise.all([demote(first, second), demote(second, first)]);

        expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
        const loser = a.status === 200 ? b : a;
        // The guard, or a caller who was no longer an ADMIN when its request was authenticated.
        expect([403, 409]).toContain(loser.status);
        if (loser.status === 409) expectError(loser, 409, 'LAST_ADMIN');
        await expectOneAdminLeft(own, [first, second]);
      }),
    );
  });

  test('two users changed to the same new e-mail at once: exactly one wins, the other keeps its own', async () => {
    const [one, two] = await Promise.all([createViaApi(org), createViaApi(org)]);
    const wanted = uniqueEmail('contested');

    const responses = await Promise.all(
      [one, two].map((user) => org.admin.api.put(org.url(`/${user.uuid}`), { name: user.name, email: wanted })),
    );

    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    const winnerIndex = responses.findIndex((r) => r.status === 200);
    expectError(responses[1 - winnerIndex]!, 409, 'EMAIL_TAKEN');
    const winner = [one, two][winnerIndex]!;
    const loser = [one, two][1 - winnerIndex]!;
    expect(await readUser(org, winner.uuid)).toEqual({ ...winner, email: wanted });
    expect(await readUser(org, loser.uuid)).toEqual(loser);
    expect(await getEmailClaim(org.orgUuid, wanted)).toMatchObject({ userUuid: winner.uuid, state: 'DONE' });
    expect(await getEmailClaim(org.orgUuid, loser.email)).toMatchObject({ userUuid: loser.uuid });
    expect(await getEmailClaim(org.orgUuid, winner.email)).toBeUndefined();
    expect((await listed(wanted)).map((u) => u.uuid)).toEqual([winner.uuid]);
    const token = await tokenOf(org.realm, wanted, TEST_PASSWORD);
    expect((await usersApi(token.access_token).get(org.url(`/${winner.uuid}`))).status).toBe(200);
    expect(await signInStatus(loser.email, TEST_PASSWORD)).toBe(200);
    expect(await identityOf(loser.uuid)).toMatchObject({ email: loser.email });
    expect(await identityOf(winner.uuid)).toMatchObject({ email: wanted });
  });

  test('concurrent updates of one user: each 200 or 409 VERSION_CONFLICT, and record and listing agree', async () => {
    const user = await createViaApi(org);
    const names = ['Racer A', 'Racer B', 'Racer C', 'Racer D'];

    const responses = await Promise.all(names.map((name) => org.admin.api.put(org.url(`/${user.uuid}`), { name, email: user.email })));

    const won = names.filter((_, i) => responses[i]!.status === 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 409, 'VERSION_CONFLICT');
    const stored = await readUser(org, user.uuid);
    expect(won).toContain(stored.name);
    expect(await listed(user.email)).toEqual([stored]);
  });

  test('a create racing an e-mail change to the same e-mail: exactly one gets it', async () => {
    const user = await createViaApi(org);
    const wanted = uniqueEmail('create-vs-change');

    const [created, changed] = await Promise.all([
      org.admin.api.post(org.url(), createBody(org, { email: wanted })),
      org.admin.api.put(org.url(`/${user.uuid}`), { name: user.name, email: wanted }),
    ]);

    expect([created.status, changed.status].sort()).toEqual([200, 409]);
    const holder = created.status === 200 ? created.body.uuid : user.uuid;
    expect((await listed(wanted)).map((u) => u.uuid)).toEqual([holder]);
    expect(await getEmailClaim(org.orgUuid, wanted)).toMatchObject({ userUuid: holder, state: 'DONE' });
  });
});

describe('quicksearch', () => {
  test("a container's name list catches up with creates, renames and deletes", async () => {
    const org = await freshOrganization();
    const quick = async (name: string) => (await org.admin.api.get<string[]>(org.url(`/quicksearch?name=${encodeURIComponent(name)}&limit=50`))).body;
    const renamed = await createViaApi(org, { name: 'Quincy Original' });
    const deleted = await createViaApi(org, { name: 'Quincy Leaving' });
    expect(await quick('quincy')).toEqual(['Quincy Leaving', 'Quincy Original']);

    await createViaApi(org, { name: 'Quincy Newcomer' });
    expect((await org.admin.api.put(org.url(`/${renamed.uuid}`), { ...renamed, name: 'Quincy Renamed' })).status).toBe(200);
    expect((await org.admin.api.delete(org.url(`/${deleted.uuid}`))).status).toBe(204);

    expect(await quick('quincy')).toEqual(['Quincy Newcomer', 'Quincy Renamed']);
  });
});

describe("the users index's limits", () => {
  test('a user as long and wordy as the schema allows is created, renamed, listed, counted and found', async () => {
    const org = await freshOrganization();
    // 100 one-character words of digits (each zero-padded in the sort key), a 200-character company of
    // 40 words, a 254-character e-mail of 60 words: the most index items and the longest sort keys.
    const name = (seed: number) => Array.from({ length: 100 }, (_, i) => String((i * 7 + seed) % 10)).join(' ');
    const company = Array.from({ length: 40 }, (_, i) => `w${String(i).padStart(2, '0')}`).join(' ');
    const local = Array.from({ length: 60 }, (_, i) => `p${i % 10}`).join('.').slice(0, 180);
    const email = `${local}@${'d'.repeat(254 - local.length - 6)}.test`.slice(0, 254);
    const created = await createViaApi(org, { name: name(1), company, email });
    expect(created.email).toBe(email);

    const renamed = await org.admin.api.put(org.url(`/${created.uuid}`), { ...created, name: name(2), company: `${company.slice(0, 190)} zz` });
    expect(renamed.status).toBe(200);

    const byName = await org.admin.api.get<{ content: { uuid: string }[]; totalElements: number }>(org.url('?orderBy=name&direction=ASC&linesPerPage=100'));
    expect(byName.body.content.map((user) => user.uuid)).toContain(created.uuid);
    expect(byName.body.totalElements).toBe(2);
    const found = await org.admin.api.get<{ content: { uuid: string }[] }>(org.url('?searchTerms=w00%20w01'));
    expect(found.body.content.map((user) => user.uuid)).toEqual([created.uuid]);
  });
});

describe('building the users index on a live organization (npm run org -- index-users)', () => {
  /** Takes a user back to before the users index: its listing entries, postings and counted status gone. */
  async function unindex(orgUuid: string, userUuid: string): Promise<void> {
    const user = (await getUser(orgUuid, userUuid)) as StoredUser;
    for (const write of indexWrites(user, undefined)) {
      const item = write.Put?.Item;
      if (item) await deleteItem({ Key: { PK: item.PK as string, SK: item.SK as string } });
    }
    await updateItem({ Key: keys.userKey(orgUuid, userUuid), UpdateExpression: 'REMOVE countedStatus' });
  }

  const listedUuids = async (org: TestOrg, query: string) => (await listAllUsers(org.admin.api, org, query)).map((user) => user.uuid).sort();
  const total = async (org: TestOrg, query: string) =>
    (await org.admin.api.get<{ totalElements: number }>(org.url(`?linesPerPage=1${query}`))).body.totalElements;

  test('users created, renamed and deleted while it runs are all listed, found and counted right afterwards', async () => {
    const org = await freshOrganization();
    const legacy: UserDto[] = [];
    for (let group = 0; group < 4; group++) {
      legacy.push(...(await Promise.all(Array.from({ length: 6 }, (_, i) => createViaApi(org, { name: `Legacy ${group * 6 + i} Person` })))));
    }
    // As before the index: none of these users is in it, the count knows only the ADMIN, the old shards are there.
    await Promise.all(legacy.map((user) => unindex(org.orgUuid, user.uuid)));
    await deleteItem({ Key: keys.userCount(org.orgUuid) });
    await unindex(org.orgUuid, org.admin.uuid);
    await putItem({ PK: `ORG#${org.orgUuid}`, SK: 'USERDIR#07', type: 'USERDIR', entries: {} });
    expect(await listedUuids(org, '&status=ALL')).toEqual([]);

    const migration = indexUsers(org.orgUuid);
    const during = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => createViaApi(org, { name: `During ${i} Person` })),
      ...legacy.slice(0, 6).map((user, i) => org.admin.api.put(org.url(`/${user.uuid}`), { ...user, name: `Renamed ${i} Zed` })),
      ...legacy.slice(6, 12).map((user) => org.admin.api.delete(org.url(`/${user.uuid}`))),
    ]);
    const report = await migration;

    expect(during.filter((answer) => 'status' in answer && typeof answer.status === 'number').every((answer) => (answer as ApiResponse).status < 300)).toBe(true);
    expect(report.users).toBeGreaterThanOrEqual(25);
    const active = [org.admin.uuid, ...legacy.slice(0, 6).map((u) => u.uuid), ...legacy.slice(12).map((u) => u.uuid), ...during.slice(0, 6).map((u) => (u as UserDto).uuid)].sort();
    const deleted = legacy.slice(6, 12).map((u) => u.uuid).sort();
    expect(await listedUuids(org, '&status=ACTIVE')).toEqual(active);
    expect(await listedUuids(org, '&status=DELETED')).toEqual(deleted);
    expect(await total(org, '&status=ALL')).toBe(active.length + deleted.length);
    expect(await total(org, '&status=ACTIVE')).toBe(active.length);
    expect(await total(org, '&status=DELETED')).toBe(deleted.length);
    // Renames are found by their new names only; the old names find nobody.
    expect(await total(org, '&searchTerms=zed&status=ALL')).toBe(6);
    expect(await total(org, '&searchTerms=legacy%200&status=ACTIVE')).toBe(0);
    expect((await org.admin.api.get<string[]>(org.url('/quicksearch?name=renamedzed&limit=50'))).body).toHaveLength(6);
    expect(await getItem(keys.userDirectoryShard(org.orgUuid, 7))).toBeUndefined();
    // A second run finds everything in place.
    const again = await indexUsers(org.orgUuid);
    expect(again).toMatchObject({ users: active.length + deleted.length, indexed: active.length + deleted.length, retried: 0, admins: 1 });
    expect(await total(org, '&status=ALL')).toBe(active.length + deleted.length);
    // About 6 s alone; over 60 s on a loaded CI machine (25 identity-provider sign-ups).
  }, 180_000);
});
