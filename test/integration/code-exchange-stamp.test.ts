import { authorizationRequest, TEST_REDIRECT } from '../support/authorization-request';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { CookieJar, signInThroughPage } from '../support/cookie-jar';
import { Browser, decide, issuerOf, poll, signInOnVerificationPage } from '../support/device-flow';
import { requestToken, stack, unique, userArea } from '../support/stack';
import { registrationOf, startTestProvider } from '../support/test-oidc-provider';
import { createViaApi, freshOrganization, member, type TestOrg } from '../support/user-helpers';

/**
 * A code carries its sign-in: when the user's credentials change between the sign-in that made the
 * code and its exchange (an ADMIN sets a password), the exchange is refused as the sessions that
 * sign-in began are ended, and says to sign in again. An approved device code likewise, for the
 * user's domain's stamp too (its provider made the one way in after a password sign-in approved it).
 */

const REDIRECT = TEST_REDIRECT;
let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

/** A code of the realm's sign-in page for `email`, with its verifier. */
async function codeFor(email: string): Promise<{ code: string; verifier: string }> {
  const { url, verifier } = authorizationRequest(org.realm, { state: 'stamp-state' });
  const { location } = await signInThroughPage(new CookieJar(), url, email, TEST_PASSWORD);
  return { code: location!.searchParams.get('code')!, verifier };
}

const exchange = ({ code, verifier }: { code: string; verifier: string }) =>
  requestToken(org.realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code, code_verifier: verifier });

test('a code issued, then the password set by an ADMIN, then the code exchanged: invalid_grant, sign in again', async () => {
  const user = await member(org, 'VIEWER');
  const before = await codeFor(user.email);
  const password = `Next-${unique()}-9a`;
  expect((await org.users.update(user.uuid, { name: user.name, email: user.email, password, confirmPassword: password })).status).toBe(200);

  const refused = await exchange(before);

  expect(refused.status).toBe(400);
  const body = (await refused.json()) as { error: string; error_description: string };
  expect(body.error).toBe('invalid_grant');
  expect(body.error_description).toContain('sign in again');
});

test('a code of a sign-in after the change is exchanged', async () => {
  const user = await member(org, 'VIEWER');
  expect((await org.users.update(user.uuid, { name: user.name, email: user.email, password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD })).status).toBe(200);
  expect((await exchange(await codeFor(user.email))).status).toBe(200);
});

test("a device approved after a password sign-in, then the user's domain's provider enforced: the device's exchange is invalid_grant", async () => {
  const domain = `stamp-${unique()}.example`;
  const user = await createViaApi(org, { email: `device-${unique()}@${domain}` });
  const started = await fetch(`${issuerOf(org.realm)}/protocol/openid-connect/auth/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: stack().clientId, scope: 'openid' }),
  });
  const device = (await started.json()) as { device_code: string; user_code: string; verification_uri_complete: string };
  const browser = new Browser();
  const consent = await signInOnVerificationPage(browser, device.verification_uri_complete, device.user_code, { email: user.email, password: TEST_PASSWORD });
  expect((await decide(browser, consent, 'approve')).status).toBe(200);

  const provider = await startTestProvider();
  try {
    const created = await org.admin.api.post(userArea(org.orgUuid, '/identity-providers'), registrationOf(provider, { alias: `stamp-${unique()}`, displayName: 'Stamp SSO', domains: [domain], enforce: true }));
    expect(created.status).toBe(201);

    const refused = await poll(org.realm, device.device_code);

    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('sign in again') } });
  } finally {
    await provider.close();
  }
});
