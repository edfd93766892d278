import { adminToken, stack, userArea } from '../support/stack';

test('an ADMIN reads itself through the gateway with a password-grant token', async () => {
  const { accessToken, orgUuid } = await adminToken();
  const response = await fetch(userArea(orgUuid, '/users/identity-provider'), { headers: { authorization: `Bearer ${accessToken}` } });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ orgUUID: orgUuid, email: stack().orgs[0]!.admin.email, admin: true });
});
