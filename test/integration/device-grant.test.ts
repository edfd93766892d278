import { createHash, randomBytes } from 'node:crypto';
import { keys } from '../../shared/adapters/store/keys';
import { getItem, updateItem } from '../../shared/adapters/store/table';
import { PAGE_POLICY } from '../../shared/kernel/html/layout';
import { CODE_ENTRY_WINDOW_SECONDS, enterUserCode, WRONG_CODES_PER_ADDRESS, WRONG_CODES_PER_REALM } from '../../shared/app/sign-in/device-verification';
import { bearer, createTestUser, decodeJwt, getCurrentUser, type TestUser } from '../support/auth-helpers';
import { Browser, decide, discover, formOf, issuerOf, oidc, poll, signInOnVerificationPage } from '../support/device-flow';
import { adminToken, stack, userArea } from '../support/stack';
import { freshOrganization } from '../support/user-helpers';

/**
 * The device authorization grant (RFC 8628), driven as its two parties drive it: a command-line tool
 * with openid-client's device functions, unmodified, and a person's browser on the verification page
 * (over HTTP, a cookie jar, each redirect by hand), signing in through the realm's authorization
 * endpoint. Then its refusals: denied, expired, too fast, used twice, wrong codes, forged forms,
 * another realm's codes, repeated and over-long fields.
 */

jest.setTimeout(60_000);

const deviceEndpoint = (realm: string) => `${issuerOf(realm)}/protocol/openid-connect/auth/device`;

function postForm(url: string, body: string | Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: typeof body === 'string' ? body : new URLSearchParams(body) });
}

/** A device authorization of the realm, as the device asks for it (raw HTTP). */
async function startDevice(realm: string, scope = 'openid') {
  const response = await postForm(deviceEndpoint(realm), { client_id: stack().clientId, scope });
  expect(response.status).toBe(200);
  return (await response.json()) as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
}

/** The stored form of a user code as the device shows it. */
const stored = (userCode: string) => userCode.replace('-', '');

/** Signs `user` in on the verification page for `userCode` and answers the consent page. */
async function consentFor(user: TestUser, userCode: string, browser = new Browser()) {
  const consent = await signInOnVerificationPage(browser, `${issuerOf(user.realm)}/device`, userCode, user);
  expect(consent.response.status).toBe(200);
  return { browser, consent };
}

describe('openid-client on the device, a person on the verification page', () => {
  test('discovery names the device endpoint and the grant', async () => {
    const user = await createTestUser();

    const metadata = (await discover(user.realm)).serverMetadata();

    expect(metadata.device_authorization_endpoint).toBe(deviceEndpoint(user.realm));
    expect(metadata.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
  });

  test('the device polls while the person types the code, signs in through the flow and approves: an offline token, once', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);

    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
    expect(started).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${issuerOf(user.realm)}/device`,
      verification_uri_complete: `${issuerOf(user.realm)}/device?user_code=${started.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);

    // The link fills the form; the person types the code in lower case without its dash all the same.
    const browser = new Browser();
    const page = await browser.get(started.verification_uri_complete!);
    expect(formOf(await page.text(), started.verification_uri_complete!).fields.user_code).toBe(started.user_code);
    const { consent } = await consentFor(user, stored(started.user_code).toLowerCase(), browser);
    expect(consent.html).toContain(user.email);
    expect(consent.html).toContain(started.user_code);
    expect(consent.html).toContain(stack().clientId);
    expect(consent.html).toContain('offline token');
    expect(consent.response.headers.get('cache-control')).toBe('no-store');
    expect(consent.response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.response.headers.get('content-security-policy')).not.toContain('script-src');
    expect(consent.response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    const done = await decide(browser, consent, 'approve');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device signed in');
    expect(browser.jar.cookies.has('DEVICE_SIGN_IN')).toBe(false);

    const tokens = await polling;
    expect(tokens.claims()).toMatchObject({ iss: issuerOf(user.realm), sub: user.user.uuid, aud: stack().clientId });
    expect(tokens.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'offline_access']));
    expect(decodeJwt(tokens.refresh_token!).payload.typ).toBe('Offline');
    expect((await getCurrentUser(user.orgUuid, bearer(tokens.access_token))).status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));

    // The same device code again: used.
    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // The approval is on the user's record, by the user, as an ADMIN reads it.
    const events = await fetch(userArea(user.orgUuid, `/audit-events?resourceUuid=${user.user.uuid}&linesPerPage=10`), { headers: bearer((await adminToken()).accessToken) });
    const approval = ((await events.json()) as { content: { action: string; actor: unknown; changes: unknown }[] }).content.find((event) => event.action === 'USER_DEVICE_AUTHORIZED');
    expect(approval).toMatchObject({
      actor: { uuid: user.user.uuid, email: user.email },
      changes: [{ op: 'add', path: '/deviceAuthorization', value: { clientId: stack().clientId, scope: expect.stringContaining('offline_access') } }],
    });
  });

  test('denied: the device is told access_denied', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);
    const started = await oidc.initiateDeviceAuthorization(config, {});
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const outcome = polling.then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    );

    const { browser, consent } = await consentFor(user, started.user_code);
    const done = await decide(browser, consent, 'deny');

    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Sign-in denied');
    await expect(outcome).resolves.toBe('access_denied');
    const events = await fetch(userArea(user.orgUuid, `/audit-events?resourceUuid=${user.user.uuid}&linesPerPage=10`), { headers: bearer((await adminToken()).accessToken) });
    expect(((await events.json()) as { content: { action: string }[] }).content.map((event) => event.action)).not.toContain('USER_DEVICE_AUTHORIZED');
    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });
});

describe('polling', () => {
  test('authorization_pending, then slow_down for a poll sooner than the interval, which then grows by 5 seconds', async () => {
    const user = await createTestUser();
    const started = await startDevice(user.realm);

    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const tooSoon = await poll(user.realm, started.device_code);
    expect(tooSoon).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    expect(tooSoon.body.error_description).toMatch(/10 seconds/);

    // 6 seconds would do for the first interval, not for the grown one.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'slow_down' } });
  });

  test('an approved device code answers tokens once, however many exchanges race for it', async () => {
    const user = await createTestUser();
    const started = await startDevice(user.realm);
    const { browser, consent } = await consentFor(user, started.user_code);
    expect((await decide(browser, consent, 'approve')).status).toBe(200);

    const answers = await Promise.all([1, 2, 3, 4].map(() => poll(user.realm, started.device_code)));

    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400).map((answer) => answer.body.error)).toEqual(['invalid_grant', 'invalid_grant', 'invalid_grant']);
    expect(answers.find((answer) => answer.status === 200)!.body).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('openid') });
  });

  test('an expired device code: expired_token to the device, and the page refuses its user code', async () => {
    const user = await createTestUser();
    const started = await startDevice(user.realm);
    await updateItem({
      Key: keys.deviceAuthorization(stored(started.user_code)),
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
    });

    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const browser = new Browser();
    const page = await browser.post(`${issuerOf(user.realm)}/device`, { user_code: started.user_code });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('This code is not valid, or has expired.');
  });

  test('a device code is refused at another realm, and a forged or malformed one everywhere', async () => {
    const user = await createTestUser();
    const other = stack().orgs[1]!.name;
    const started = await startDevice(user.realm);
    const [userCode, secret] = started.device_code.split('.');

    expect(await poll(other, started.device_code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await poll(user.realm, `${userCode}.${'A'.repeat(43)}`)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await poll(user.realm, `BCDFGHJK.${secret}`)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await poll(user.realm, 'x'.repeat(5000))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await poll(user.realm, '')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const repeated = await postForm(`${issuerOf(user.realm)}/protocol/openid-connect/token`, `grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=${stack().clientId}&device_code=${started.device_code}&device_code=${started.device_code}`);
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request', error_description: 'Parameter device_code is repeated' });
    // Still pending for the right realm.
    expect(await poll(user.realm, started.device_code)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });

    // Its user code is unknown on the other realm's page.
    const browser = new Browser();
    const page = await browser.post(`${issuerOf(other)}/device`, { user_code: started.user_code });
    expect(await page.text()).toContain('This code is not valid, or has expired.');
  });
});

describe('the device endpoint refuses', () => {
  test('an unknown client, a repeated or over-long parameter, an unknown scope, a body that is not a form', async () => {
    const realm = stack().orgs[0]!.name;
    const clientId = stack().clientId;

    const unknownClient = await postForm(deviceEndpoint(realm), { client_id: 'someone-else' });
    expect(unknownClient.status).toBe(401);
    expect(await unknownClient.json()).toMatchObject({ error: 'invalid_client' });
    const repeated = await postForm(deviceEndpoint(realm), `client_id=${clientId}&scope=openid&scope=offline_access`);
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request', error_description: 'Parameter scope is repeated' });
    const long = await postForm(deviceEndpoint(realm), { client_id: clientId, scope: `openid ${'email '.repeat(60)}` });
    expect(await long.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('longer than 256') });
    const unknownScope = await postForm(deviceEndpoint(realm), { client_id: clientId, scope: 'openid admin' });
    expect(await unknownScope.json()).toMatchObject({ error: 'invalid_scope' });
    const json = await fetch(deviceEndpoint(realm), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: clientId }) });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    const noRealm = await postForm(deviceEndpoint('no-such-realm-here'), { client_id: clientId });
    expect(await noRealm.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('the verification page', () => {
  test('refuses a forged decision: from another site, without the step token, for another user code, or twice', async () => {
    const user = await createTestUser();
    const first = await startDevice(user.realm);
    const second = await startDevice(user.realm);
    const { browser, consent } = await consentFor(user, first.user_code);
    const form = formOf(consent.html, consent.url);
    const send = (fields: Record<string, string>, headers: Record<string, string> = {}) => browser.post(form.action, { ...form.fields, decision: 'approve', ...fields }, headers);

    expect((await send({}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await send({}, { 'sec-fetch-site': 'same-site', origin: 'https://evil.example' })).status).toBe(403);
    expect((await send({ step: '' })).status).toBe(403);
    // A stranger's browser (no cookie of this sign-in) with the right step token.
    expect((await new Browser().post(form.action, { ...form.fields, decision: 'approve' })).status).toBe(403);
    // The step of the first code for the second (the cookie names no code, the step does): refused, and the step is spent.
    const otherBrowser = new Browser();
    otherBrowser.jar.cookies.set('DEVICE_SIGN_IN', browser.jar.cookies.get('DEVICE_SIGN_IN')!);
    expect((await otherBrowser.post(form.action, { ...form.fields, user_code: second.user_code, decision: 'approve' })).status).toBe(400);
    expect(await poll(user.realm, second.device_code)).toMatchObject({ body: { error: 'authorization_pending' } });
    expect(await poll(user.realm, first.device_code)).toMatchObject({ body: { error: 'authorization_pending' } });

    // A fresh consent, approved once; the same form again changes nothing.
    const again = await consentFor(user, first.user_code, new Browser());
    const approvedForm = formOf(again.consent.html, again.consent.url);
    const signInCookie = again.browser.jar.cookies.get('DEVICE_SIGN_IN')!;
    expect((await again.browser.post(approvedForm.action, { ...approvedForm.fields, decision: 'approve' })).status).toBe(200);
    // The approval ended the browser's sign-in; with its cookie kept, the step is spent all the same.
    expect((await again.browser.post(approvedForm.action, { ...approvedForm.fields, decision: 'deny' })).status).toBe(403);
    again.browser.jar.cookies.set('DEVICE_SIGN_IN', signInCookie);
    expect((await again.browser.post(approvedForm.action, { ...approvedForm.fields, decision: 'deny' })).status).toBe(400);
    expect(await poll(user.realm, first.device_code)).toMatchObject({ status: 200 });
  });

  test('refuses a callback without the sign-in cookie, with another state or issuer, or with a forged code', async () => {
    const user = await createTestUser();
    const started = await startDevice(user.realm);
    const browser = new Browser();
    const page = await browser.get(started.verification_uri_complete);
    const codeForm = formOf(await page.text(), started.verification_uri_complete);
    const toFlow = await browser.post(codeForm.action, codeForm.fields);
    const flow = new URL(toFlow.headers.get('location')!);
    expect(flow.searchParams.get('redirect_uri')).toBe(`${issuerOf(user.realm)}/device/callback`);
    expect(flow.searchParams.get('code_challenge_method')).toBe('S256');
    expect(toFlow.headers.getSetCookie()[0]).toMatch(/^DEVICE_SIGN_IN=[^;]+; Path=\/auth\/realms\/[^/]+\/device; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const signInPage = await browser.get(flow.toString());
    const signIn = formOf(await signInPage.text(), flow.toString());
    const back = new URL((await browser.post(signIn.action, { ...signIn.fields, username: user.email, password: user.password })).headers.get('location')!);
    const callback = (params: Record<string, string>) => `${issuerOf(user.realm)}/device/callback?${new URLSearchParams(params)}`;
    const state = back.searchParams.get('state')!;
    const code = back.searchParams.get('code')!;

    expect((await new Browser().get(back.toString())).status).toBe(400);
    expect((await browser.get(callback({ code, state: 'another-state' }))).status).toBe(400);
    expect((await browser.get(callback({ code: 'A'.repeat(43), state }))).status).toBe(400);
    expect((await browser.get(`${callback({ code, state })}&state=${state}`)).status).toBe(400);
    expect((await browser.get(callback({ code, state, iss: 'https://issuer.example/auth/realms/other' }))).status).toBe(400);
    // The code itself was left unredeemed by those: the browser that owns it goes on.
    const consent = await browser.get(back.toString());
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain('Approve the sign-in of a device?');
  });

  test('refuses repeated and over-long fields, and forms from another site', async () => {
    const realm = stack().orgs[0]!.name;
    const page = `${issuerOf(realm)}/device`;
    const browser = new Browser();

    expect((await browser.get(`${page}?user_code=BCDF-GHJK&user_code=BCDF-GHJK`)).status).toBe(400);
    expect((await browser.get(`${page}?user_code=${'B'.repeat(100)}`)).status).toBe(400);
    expect((await browser.post(page, `user_code=BCDFGHJK&user_code=BCDFGHJK`)).status).toBe(400);
    expect((await browser.post(page, { user_code: 'B'.repeat(100) })).status).toBe(400);
    expect((await browser.post(page, { user_code: 'BCDF-GHJK' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const escaped = await browser.post(page, { user_code: '"><b>x</b>' });
    expect(await escaped.text()).toContain('value="&quot;&gt;&lt;b&gt;x&lt;/b&gt;"');
    expect((await browser.get(`${issuerOf('no-such-realm-here')}/device`)).status).toBe(404);
  });

  test(`limits wrong codes: ${WRONG_CODES_PER_ADDRESS} from one address in a window, then every entry is refused`, async () => {
    const org = await freshOrganization();
    const started = await startDevice(org.realm);
    const page = `${issuerOf(org.realm)}/device`;
    const browser = new Browser();

    // Sent together: each is counted before it is checked, so none slips past the limit.
    const wrong = await Promise.all(Array.from({ length: WRONG_CODES_PER_ADDRESS + 3 }, () => browser.post(page, { user_code: 'BCDF-GHJK' })));

    expect(wrong.filter((response) => response.status === 200)).toHaveLength(WRONG_CODES_PER_ADDRESS);
    expect(wrong.filter((response) => response.status === 429)).toHaveLength(3);
    const right = await browser.post(page, { user_code: started.user_code });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await right.text()).toContain('Too many wrong codes');
  });

  test(`limits wrong codes for the whole organization: ${WRONG_CODES_PER_REALM} wrong ones in a window, from any addresses; a right code still works`, async () => {
    const org = await freshOrganization();
    const started = await startDevice(org.realm);
    const entry = (sourceIp: string, userCode: string) =>
      enterUserCode({ realm: org.realm, acceptLanguage: undefined, crossSite: false, sourceIp, signIn: undefined }, new URLSearchParams({ user_code: userCode }));
    // Not at the very end of a window: the entries below must fall in the one filled here.
    while (Math.floor(Date.now() / 1000) % CODE_ENTRY_WINDOW_SECONDS > CODE_ENTRY_WINDOW_SECONDS - 10) await new Promise((resolve) => setTimeout(resolve, 1000));
    const window = Math.floor(Date.now() / 1000 / CODE_ENTRY_WINDOW_SECONDS);
    const orgWide = keys.deviceEntryWindow(org.orgUuid, window);
    const counted = async () => (await getItem<{ entries?: number }>(orgWide, { consistent: true }))?.entries ?? 0;

    // Only wrong codes count for the organization.
    expect((await entry('198.51.100.1', started.user_code)).kind).toBe('sign-in');
    expect(await counted()).toBe(0);
    expect(await entry('198.51.100.2', 'BCDF-GHJK')).toMatchObject({ kind: 'page', status: 200 });
    expect(await counted()).toBe(1);

    // The window full, as many addresses' wrong codes would fill it.
    await updateItem({ Key: orgWide, UpdateExpression: 'SET entries = :full', ExpressionAttributeValues: { ':full': WRONG_CODES_PER_REALM } });
    expect(await entry('203.0.113.7', 'BCDF-GHJK')).toMatchObject({ kind: 'page', status: 429 });
    // A right code is never refused by the organization's count.
    expect((await entry('203.0.113.8', started.user_code)).kind).toBe('sign-in');
  });

  test('a hand-made sign-in cookie naming a user code opens nothing: the code cannot be probed past the wrong-code limits', async () => {
    const user = await createTestUser();
    const target = await startDevice(user.realm);
    // A member signs in through the realm's flow on their own, back to the page's callback, with a state and verifier of their choosing.
    const browser = new Browser();
    const page = await browser.get(`${issuerOf(user.realm)}/device`);
    const codeForm = formOf(await page.text(), `${issuerOf(user.realm)}/device`);
    const legit = await browser.post(codeForm.action, { ...codeForm.fields, user_code: (await startDevice(user.realm)).user_code });
    const clientId = new URL(legit.headers.get('location')!).searchParams.get('client_id')!;
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(32).toString('base64url');
    const flow = `${issuerOf(user.realm)}/protocol/openid-connect/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: `${issuerOf(user.realm)}/device/callback`,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
    const signInPage = await browser.get(flow);
    const signIn = formOf(await signInPage.text(), flow);
    const back = (await browser.post(signIn.action, { ...signIn.fields, username: user.email, password: user.password })).headers.get('location')!;
    expect(new URL(back).searchParams.get('code')).toEqual(expect.any(String));

    // The cookie made by hand: the old shape naming the target's code, and a well-formed state of the member's own.
    for (const forged of [`${stored(target.user_code)}.${state}.${verifier}.en`, state]) {
      const prober = new Browser();
      prober.jar.cookies.set('DEVICE_SIGN_IN', forged);
      const answer = await prober.get(back);
      expect(answer.status).toBe(400);
      expect(await answer.text()).not.toContain('Approve the sign-in of a device?');
    }
    expect(await poll(user.realm, target.device_code)).toMatchObject({ body: { error: 'authorization_pending' } });
  });
});
