import { adminToken, stack, userArea } from '../support/stack';

test('an ADMIN reads itself through the gateway with a password-grant token', async () => {
  const { accessToken, orgUuid } = await adminToken();
  const response = await fetch(userArea(orgUuid, '/users/identity-provider'), { headers: { authorization: `Bearer ${accessToken}` } });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ orgUUID: orgUuid, email: stack().orgs[0]!.admin.email, admin: true });
});

test('stack.json describes two organizations, each with two environments of two seeded bots', async () => {
  const info = stack();

  expect(info).toMatchObject({ generativeSubpath: 'generative', userSubpath: 'user-management' });
  expect(info.orgs).toHaveLength(2);
  for (const org of info.orgs) {
    expect(org.admin.email).toMatch(/@/);
    expect(org.environments).toHaveLength(2);
    for (const env of org.environments) {
      expect(env.bots).toHaveLength(2);
      for (const bot of env.bots) {
        expect(bot.personas.length).toBeGreaterThanOrEqual(2);
        expect(bot.functions.length).toBeGreaterThanOrEqual(2);
        expect(bot.collections.length).toBeGreaterThanOrEqual(2);
      }
    }
  }
});

test('mailboxUrl answers JSON listing the e-mails the SES emulator received', async () => {
  const response = await fetch(stack().mailboxUrl);

  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/json/);
  expect(Array.isArray(((await response.json()) as { emails: unknown[] }).emails)).toBe(true);
});
