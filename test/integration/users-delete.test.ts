import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import { unique } from '../support/stack';
import { createViaApi, deleteViaApi, listAllUsers, ownOrganization, refresh, signIn, tokenOf, uniqueEmail, usersRoutes } from '../support/user-helpers';

/**
 * `DELETE /users/{userId}` (docs/api/users.md) as an ADMIN deletes a user of an organization of the
 * file's own: the record stays, as DELETED, and the user loses access at once.
 */

const org = ownOrganization();

test('204 without a body; the record stays as DELETED; the user loses access at once', async () => {
  const email = uniqueEmail('deleted');
  const user = await createViaApi(org, { email });
  const session = await tokenOf(org.realm, email, TEST_PASSWORD);
  const asUser = usersRoutes(org, session.access_token);
  expect((await asUser.get(user.uuid)).status).toBe(200);

  const response = await org.users.delete(user.uuid);

  expect(response.status).toBe(204);
  expect(response.text).toBe('');
  expect((await org.users.get(user.uuid)).body).toEqual({ ...user, status: 'DELETED' });
  expectError(await asUser.get(user.uuid), 401, 'UNAUTHENTICATED');
  expect((await refresh(org.realm, session.refresh_token)).status).toBe(400);
  expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(400);
  const active = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}`);
  const deleted = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}&status=DELETED`);
  expect(active).toEqual([]);
  expect(deleted.map((u) => u.uuid)).toEqual([user.uuid]);
});

test('a deleted user is gone from the quicksearch', async () => {
  const name = `Quick Gone ${unique()}`;
  const user = await createViaApi(org, { name });
  const quick = () => org.users.quicksearch({ name });
  expect((await quick()).body).toEqual([name]);

  await deleteViaApi(org, user.uuid);

  expect((await quick()).body).toEqual([]);
});

test('an ADMIN deletes another ADMIN', async () => {
  const other = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });

  expect((await org.users.delete(other.uuid)).status).toBe(204);
  expect((await signIn(org.realm, other.email, TEST_PASSWORD)).status).toBe(400);
});

test('deleting oneself is 409 SELF_DELETE', async () => {
  expectError(await org.users.delete(org.admin.uuid), 409, 'SELF_DELETE');
  expect((await org.users.get(org.admin.uuid)).body.status).toBe('ACTIVE');
});

test('deleting a deleted user is 409 USER_DELETED', async () => {
  const user = await createViaApi(org);
  await deleteViaApi(org, user.uuid);

  expectError(await org.users.delete(user.uuid), 409, 'USER_DELETED');
});

test('an unknown user is 404', async () => {
  expectError(await org.users.delete(crypto.randomUUID()), 404, 'NOT_FOUND');
});
