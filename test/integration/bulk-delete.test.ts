import { authorizeOrgAdmin } from '../../shared/app/access/org-access';
import { bulkDelete } from '../../shared/app/bulk/bulk-users.service';
import { bulkRoutes } from '../support/bulk-helpers';
import { codesOf, deletedMember, deleteRequest, seededOrg, signInStatus, someone } from '../support/bulk-users-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { adminToken } from '../support/stack';
import { adminSet, callerOf, freshOrganization, identityOf, listAllUsers, mailsTo, member, ownOrganization, readUser, refresh, selfReadStatus, uniqueEmail, usersRoutes } from '../support/user-helpers';

/**
 * `DELETE /users/bulk-delete` (docs/api/bulk.md): each e-mail is deleted as `DELETE /users/{userId}`
 * deletes, and the answer lists the ones that failed with a stable code and their index; the ADMINs
 * delete one another down to the last. Effects are checked the way a client sees them: reading the
 * user, signing in. `org` is the file's own organization; the ADMIN-set tests take one each, since
 * they assert on the whole set.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('DELETE /users/bulk-delete', () => {
  test('deletes each listed user as DELETE /users/{id} does: record kept as DELETED, identity provider disabled, sessions and tokens refused', async () => {
    const [viewer, supervisor, bystander] = await Promise.all([someone(org, 'VIEWER'), someone(org, 'SUPERVISOR'), someone(org, 'EDITOR')]);
    const before = await Promise.all([readUser(org, viewer.uuid), readUser(org, supervisor.uuid)]);
    expect(await selfReadStatus(org, viewer)).toBe(200);

    // Any case: e-mails are matched as the single operations match them.
    const response = await bulkRoutes(org).delete([viewer.email, supervisor.email.toUpperCase()]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(await Promise.all([readUser(org, viewer.uuid), readUser(org, supervisor.uuid)])).toEqual(before.map((u) => ({ ...u, status: 'DELETED' })));
    for (const gone of [viewer, supervisor]) {
      expect(await identityOf(gone.uuid)).toMatchObject({ enabled: false });
      expectError(await usersRoutes(org, gone).get(gone.uuid), 401, 'UNAUTHENTICATED');
      expect((await refresh(org.realm, gone.refreshToken)).status).toBe(400);
      expect(await signInStatus(org, gone)).toBe(400);
      expect(await mailsTo(gone.email)).toEqual([]);
    }
    const deleted = await listAllUsers(org.admin.api, org, `&status=DELETED&searchTerms=${encodeURIComponent(viewer.email)}`);
    expect(deleted.map((u) => u.uuid)).toEqual([viewer.uuid]);
    expect(await readUser(org, bystander.uuid)).toMatchObject({ status: 'ACTIVE' });
    expect(await selfReadStatus(org, bystander)).toBe(200);
  });

  test('reports each failure with its e-mail, code and 0-based index, in list order, and deletes the rest', async () => {
    const [a, b, gone] = await Promise.all([someone(org, 'VIEWER'), someone(org, 'EDITOR'), deletedMember(org)]);
    const unknown = uniqueEmail('unknown');

    const response = await bulkRoutes(org).delete([
      a.email,
      unknown,
      gone.email,
      org.admin.email,
      seededOrg().admin.email,
      b.email,
      a.email.toUpperCase(),
    ]);

    expect(response.status).toBe(200);
    expect(codesOf(response.body)).toEqual([
      { email: unknown, errorCode: 'USER_NOT_FOUND', index: 1 },
      { email: gone.email, errorCode: 'USER_DELETED', index: 2 },
      { email: org.admin.email, errorCode: 'SELF_DELETE', index: 3 },
      // Another organization's user is not this organization's.
      { email: seededOrg().admin.email, errorCode: 'USER_NOT_FOUND', index: 4 },
      // Named twice: the second time it is already deleted.
      { email: a.email.toUpperCase(), errorCode: 'USER_DELETED', index: 6 },
    ]);
    expect((await readUser(org, a.uuid)).status).toBe('DELETED');
    expect((await readUser(org, b.uuid)).status).toBe('DELETED');
    expect(await readUser(org, org.admin.uuid)).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await selfReadStatus(org, org.admin)).toBe(200);
    await expect(adminToken(0)).resolves.toMatchObject({ accessToken: expect.any(String) });
  });

  test('dryRun=true answers what the real run answers and changes nothing; dryRun=false deletes', async () => {
    const [a, gone] = await Promise.all([someone(org, 'EDITOR'), deletedMember(org)]);
    const unknown = uniqueEmail('dry-unknown');
    const list = [a.email, unknown, gone.email, org.admin.email, a.email];
    const before = await readUser(org, a.uuid);

    const dry = await bulkRoutes(org).delete(list, true);

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual([
      { email: unknown, errorCode: 'USER_NOT_FOUND', index: 1 },
      { email: gone.email, errorCode: 'USER_DELETED', index: 2 },
      { email: org.admin.email, errorCode: 'SELF_DELETE', index: 3 },
      { email: a.email, errorCode: 'USER_DELETED', index: 4 },
    ]);
    expect(await readUser(org, a.uuid)).toEqual(before);
    expect(await identityOf(a.uuid)).toMatchObject({ enabled: true });
    expect(await selfReadStatus(org, a)).toBe(200);
    expect(await signInStatus(org, a)).toBe(200);

    const real = await bulkRoutes(org).delete(list, false);

    expect(real.status).toBe(200);
    expect(real.body).toEqual(dry.body);
    expect((await readUser(org, a.uuid)).status).toBe('DELETED');
    expect(await signInStatus(org, a)).toBe(400);
  });

  test.each([
    ['an empty list', [], ['(body)']],
    ['a blank e-mail', ['VALID', '   '], ['1']],
    ['an e-mail over 254 characters', ['VALID', `${'x'.repeat(250)}@example.test`], ['1']],
    ['a list of 1001 e-mails', 'MANY', ['(body)']],
    ['something else than strings', ['VALID', 7, { email: 'x@example.test' }], ['1', '2']],
    ['an object instead of a list', { emails: ['VALID'] }, ['(body)']],
  ])('%s is 422 and deletes nobody', async (_what, body, fields) => {
    const victim = await someone(org, 'VIEWER');
    const named = (value: unknown) => (value === 'VALID' ? victim.email : value);
    const payload = body === 'MANY' ? [victim.email, ...Array.from({ length: 1000 }, (_, i) => `many-${i}@example.test`)] : Array.isArray(body) ? body.map(named) : body;

    expectFieldErrors(await deleteRequest(org, payload), fields);
    expectFieldErrors(await deleteRequest(org, payload, { dryRun: true }), fields);

    expect((await readUser(org, victim.uuid)).status).toBe('ACTIVE');
  });

  test('a body that is not JSON is 400 MALFORMED_JSON; dryRun other than true or false is 422', async () => {
    const victim = await someone(org, 'VIEWER');

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

    const first = await bulkRoutes(own).delete([b.email]);

    expect(first.status).toBe(200);
    expect(first.body).toEqual([]);
    expect(await adminSet(own.orgUuid)).toEqual([a.uuid]);
    expect(await identityOf(b.uuid)).toMatchObject({ enabled: false });
    expect(await signInStatus(own, b)).toBe(400);
    // B's token died with B: it cannot take A with it.
    expectError(await bulkRoutes(own, b.token).delete([a.email]), 401, 'UNAUTHENTICATED');

    // A, now the last ADMIN, names itself and B: it is never deleted, so the organization keeps it.
    const second = await bulkRoutes(own).delete([a.email, b.email]);

    expect(second.status).toBe(200);
    expect(codesOf(second.body)).toEqual([
      { email: a.email, errorCode: 'SELF_DELETE', index: 0 },
      { email: b.email, errorCode: 'USER_DELETED', index: 1 },
    ]);
    expect(await readUser(own, a.uuid)).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await adminSet(own.orgUuid)).toEqual([a.uuid]);
    expect((await usersRoutes(own, a).list()).status).toBe(200);
  });

  test('a list naming every ADMIN deletes every other one and keeps the caller (dry run first: nothing changes)', async () => {
    const own = await freshOrganization();
    const [b, c, viewer] = await Promise.all([member(own, 'ADMIN'), member(own, 'ADMIN'), member(own, 'VIEWER')]);
    const everyone = [b.email, own.admin.email, c.email, viewer.email];
    const expected = [{ email: own.admin.email, errorCode: 'SELF_DELETE', index: 1 }];

    const dry = await bulkRoutes(own).delete(everyone, true);

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([own.admin.uuid, b.uuid, c.uuid].sort());
    expect(await Promise.all([b, c, viewer].map((m) => selfReadStatus(own, m)))).toEqual([200, 200, 200]);

    const real = await bulkRoutes(own).delete(everyone);

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
    expect((await bulkRoutes(own, second.token).delete([own.admin.email])).body).toEqual([]);
    const expected = [{ email: third.email, errorCode: 'LAST_ADMIN', index: 1 }];

    const dry = await bulkDelete(staleFirst, [second.email, third.email], true);

    expect(codesOf(dry)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([second.uuid, third.uuid].sort());

    const real = await bulkDelete(staleFirst, [second.email, third.email], false);

    expect(codesOf(real)).toEqual(expected);
    expect(await adminSet(own.orgUuid)).toEqual([third.uuid]);
    expect((await usersRoutes(own, third).get(second.uuid)).body).toMatchObject({ status: 'DELETED' });
    expect((await usersRoutes(own, third).get(third.uuid)).body).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
    expect(await identityOf(third.uuid)).toMatchObject({ enabled: true });
    expect(await signInStatus(own, third)).toBe(200);
  });

  test('two ADMINs bulk-deleting each other at once: one succeeds, and one ADMIN stays active', async () => {
    const rounds = await Promise.all([0, 1].map(async () => {
      const own = await freshOrganization();
      return { own, first: own.admin, second: await member(own, 'ADMIN') };
    }));

    await Promise.all(
      rounds.map(async ({ own, first, second }) => {
        const [a, b] = await Promise.all([
          bulkRoutes(own, first.token).delete([second.email]),
          bulkRoutes(own, second.token).delete([first.email]),
        ]);

        const won = [a, b].filter((r) => r.status === 200 && r.body.length === 0);
        expect(won).toHaveLength(1);
        const loser = won[0] === a ? b : a;
        // The loser hit the guard, or was already deleted when its request was authenticated.
        if (loser.status === 200) expect(codesOf(loser.body)).toEqual([{ email: expect.any(String), errorCode: 'LAST_ADMIN', index: 0 }]);
        else expectError(loser, 401, 'UNAUTHENTICATED');
        const survivor = won[0] === a ? first : second;
        expect(await adminSet(own.orgUuid)).toEqual([survivor.uuid]);
        expect((await usersRoutes(own, survivor).get(survivor.uuid)).body).toMatchObject({ status: 'ACTIVE', role: 'ADMIN' });
      }),
    );
  });
});
