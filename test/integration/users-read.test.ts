import { expectError } from '../support/error-body';
import { createViaApi, deleteViaApi, ownOrganization } from '../support/user-helpers';

/** `GET /users/{userId}` (docs/api/users.md) as an ADMIN reads a user of its organization, one of the file's own. */

const org = ownOrganization();

test('an ADMIN reads a deleted user, with status DELETED', async () => {
  const created = await createViaApi(org);
  await deleteViaApi(org, created.uuid);

  const response = await org.users.get(created.uuid);

  expect(response.status).toBe(200);
  expect(response.body).toEqual({ ...created, status: 'DELETED' });
});

test('an unknown user is 404', async () => {
  expectError(await org.users.get(crypto.randomUUID()), 404, 'NOT_FOUND');
});

test('a userId that is not a uuid is an unknown user: 404', async () => {
  expectError(await org.users.get('not-a-uuid'), 404, 'NOT_FOUND');
});

test('a userId in upper case names the same user', async () => {
  const response = await org.users.get(org.admin.uuid.toUpperCase());

  expect(response.status).toBe(200);
  expect(response.body.uuid).toBe(org.admin.uuid);
});

test('the ADMIN reads itself', async () => {
  const response = await org.users.get(org.admin.uuid);

  expect(response.body).toMatchObject({ uuid: org.admin.uuid, email: org.admin.email, role: 'ADMIN', admin: true, permissions: [] });
});
