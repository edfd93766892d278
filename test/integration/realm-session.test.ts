import { createHash, randomBytes } from 'node:crypto';
import { keys } from '../../shared/adapters/store/keys';
import { getItem, updateItem } from '../../shared/adapters/store/table';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { authenticate } from '../../shared/app/sign-in/authorization.service';
import { revokeSessionsOf } from '../../shared/domain/sessions/session-revocation.repository';
import { TEST_PASSWORD, decodeJwt, markDeleted } from '../support/auth-helpers';
import { CookieJar, formOf, signInThroughPage } from '../support/cookie-jar';
import { requestToken, stack, userArea } from '../support/stack';
import { deleteViaApi, freshOrganization, member, type Member, type TestOrg } from '../support/user-helpers';

/**
 * The realm session, driven as a browser drives it (a cookie jar over HTTP): a sign-in through the
 * authorization endpoint sets the realm's cookie, later requests answer a code without a page, with the
 * same state, iss and PKCE binding; `prompt`, `max_age`, `auth_time`; what ends it; and the attacks on
 * the cookie (forged, another realm's, replayed after it ended).
 */

jest.setTimeout(60_000);

const REDIRECT = 'http://127.0.0.1:8765/callback';
const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;
const realmPath = (realm: string) => `/auth/realms/${realm}/`;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An authorization request of the console client, with a fresh PKCE pair. */
function authorizeRequest(realm: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: REDIRECT,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'openid',
    ...extra,
  });
  return { url: `${issuerOf(realm)}/protocol/openid-connect/auth?${query}`, verifier, state, redirectUri: query.get('redirect_uri')! };
}

async function exchange(realm: string, code: string, verifier: string, redirectUri = REDIRECT) {
  return requestToken(realm, { grant_type: 'authorization_code', client_id: stack().clientId, code, code_verifier: verifier, redirect_uri: redirectUri });
}

/** Signs in through the page of a new authorization request; answers the request and where the browser went back to. */
async function signInOnPage(jar: CookieJar, who: { email: string }, realm: string, extra: Record<string, string> = {}) {
  const request = authorizeRequest(realm, extra);
  const { location } = await signInThroughPage(jar, request.url, who.email, TEST_PASSWORD);
  expect(location?.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { ...request, location: location! };
}

/** A GET of the authorization endpoint with the jar's cookies: the code at once (302 to the application), or not. */
async function authorizeAgain(jar: CookieJar, realm: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const request = authorizeRequest(realm, extra);
  const response = await jar.request(request.url, { headers });
  const location = response.headers.get('location');
  return { ...request, response, location: location ? new URL(location) : undefined };
}

/** Records a credential change of the user now, as a password change does, without ending any session. */
async function stampCredentials(orgUuid: string, userUuid: string): Promise<void> {
  const stamped = await updateItem({
    Key: keys.userKey(orgUuid, userUuid),
    UpdateExpression: 'SET credentialsChangedAt = :now',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': Date.now() },
  });
  expect(stamped).toBe(true);
}

const showsSignInPage = (response: { status: number; text: string }) => response.status === 200 && response.text.includes('name="password"');

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

describe('the realm session', () => {
  let user: Member;
  beforeEach(async () => {
    user = await member(org, 'VIEWER');
  });

  test('a sign-in sets an HttpOnly, SameSite=Lax cookie for the realm; the next request answers a code at once, bound to its own state, iss and PKCE', async () => {
    const jar = new CookieJar();
    const first = await signInOnPage(jar, user, org.realm);
    const cookie = jar.line('REALM_SESSION')!;
    expect(cookie).toMatch(new RegExp(`^REALM_SESSION=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}; Path=${realmPath(org.realm)}; HttpOnly; SameSite=Lax; Max-Age=36000$`));
    // The store keeps a hash of the cookie's secret, never the secret.
    const [sessionId, secret] = jar.value('REALM_SESSION')!.split('.');
    const stored = await getItem<Record<string, unknown>>(keys.sessionKey(sessionId!), { consistent: true });
    expect(stored).toMatchObject({ realmSession: true, userUuid: user.uuid, secretHash: createHash('sha256').update(secret!).digest('hex') });
    expect(JSON.stringify(stored)).not.toContain(secret);
    const firstTokens = (await (await exchange(org.realm, first.location.searchParams.get('code')!, first.verifier)).json()) as { id_token: string };

    const again = await authorizeAgain(jar, org.realm, { nonce: 'n-2' });

    expect(again.response.status).toBe(302);
    expect(`${again.location!.origin}${again.location!.pathname}`).toBe(REDIRECT);
    expect(again.location!.searchParams.get('state')).toBe(again.state);
    expect(again.location!.searchParams.get('iss')).toBe(issuerOf(org.realm));
    const code = again.location!.searchParams.get('code')!;
    // Bound to this request's challenge: another verifier (the first request's) is refused.
    expect((await exchange(org.realm, code, first.verifier)).status).toBe(400);
    const other = await authorizeAgain(jar, org.realm);
    const tokens = await exchange(org.realm, other.location!.searchParams.get('code')!, other.verifier);
    expect(tokens.status).toBe(200);
    const { id_token } = (await tokens.json()) as { id_token: string };
    // auth_time is the realm session's sign-in, not this request's.
    expect(decodeJwt(id_token).payload.auth_time).toBe(decodeJwt(firstTokens.id_token).payload.auth_time);
    expect(decodeJwt(id_token).payload.sub).toBe(user.uuid);
  });

  test("is none of the user's offline sessions: neither the ADMIN's listing nor the account page's shows it", async () => {
    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm, { scope: 'openid offline_access' });
    const offline = await signInOnPage(jar, user, org.realm, { scope: 'openid offline_access', prompt: 'login' });
    const { session_state } = (await (await exchange(org.realm, offline.location.searchParams.get('code')!, offline.verifier)).json()) as { session_state: string };

    const listed = await org.admin.api.get<{ id: string }[]>(userArea(org.orgUuid, `/users/${user.uuid}/offline-sessions`));
    expect(listed.status).toBe(200);
    expect(listed.body.map((session) => session.id)).toEqual([session_state]);
    // The account page, opened through the same realm session, lists that offline token only.
    await jar.follow(`${issuerOf(org.realm)}/account`);
    const page = await jar.request(`${issuerOf(org.realm)}/account`);
    expect([...page.text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1])).toEqual([session_state]);
  });

  test('the answer goes only to a redirect URI the endpoint allows, and PKCE is still required', async () => {
    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm);

    const elsewhere = await authorizeAgain(jar, org.realm, { redirect_uri: 'https://attacker.example/callback' }, { 'sec-fetch-site': 'cross-site' });
    expect(elsewhere.response.status).toBe(400);
    expect(elsewhere.location).toBeUndefined();
    expect(elsewhere.response.text).not.toMatch(/code=/);

    const noPkce = await authorizeAgain(jar, org.realm, { code_challenge: '' });
    expect(noPkce.location?.searchParams.get('error')).toBe('invalid_request');
    expect(noPkce.location?.searchParams.has('code')).toBe(false);

    // A top-level navigation from another site carries the cookie (SameSite=Lax): the code still goes to the allowed address.
    const crossSite = await authorizeAgain(jar, org.realm, {}, { 'sec-fetch-site': 'cross-site' });
    expect(`${crossSite.location!.origin}${crossSite.location!.pathname}`).toBe(REDIRECT);
    expect(crossSite.location!.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('prompt=none answers a code with a live session and login_required without one; prompt=login asks again and replaces the session', async () => {
    const stranger = new CookieJar();
    const refused = await authorizeAgain(stranger, org.realm, { prompt: 'none' });
    expect(Object.fromEntries(refused.location!.searchParams)).toMatchObject({ error: 'login_required', state: refused.state, iss: issuerOf(org.realm) });

    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm);
    const silent = await authorizeAgain(jar, org.realm, { prompt: 'none' });
    expect(silent.location!.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const before = jar.value('REALM_SESSION')!;
    const login = await authorizeAgain(jar, org.realm, { prompt: 'login' });
    expect(showsSignInPage(login.response)).toBe(true);
    await signInOnPage(jar, user, org.realm, { prompt: 'login' });
    expect(jar.value('REALM_SESSION')).not.toBe(before);
    // The session the new sign-in replaced is over.
    const replaced = new CookieJar();
    replaced.set('REALM_SESSION', before, realmPath(org.realm));
    expect(showsSignInPage((await authorizeAgain(replaced, org.realm)).response)).toBe(true);
    expect((await authorizeAgain(jar, org.realm)).response.status).toBe(302);
  });

  test('max_age shorter than the time since the sign-in asks again; prompt and max_age are checked', async () => {
    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm);
    expect((await authorizeAgain(jar, org.realm, { max_age: '3600' })).response.status).toBe(302);
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    expect(showsSignInPage((await authorizeAgain(jar, org.realm, { max_age: '1' })).response)).toBe(true);
    const silent = await authorizeAgain(jar, org.realm, { max_age: '1', prompt: 'none' });
    expect(silent.location!.searchParams.get('error')).toBe('login_required');
    expect((await authorizeAgain(jar, org.realm, { max_age: '3600' })).response.status).toBe(302);

    for (const [extra, words] of [
      [{ prompt: 'none login' }, 'prompt=none cannot be combined'],
      [{ prompt: 'sideways' }, 'Unknown prompt sideways'],
      [{ max_age: 'soon' }, 'max_age must be a whole number'],
      [{ max_age: '-1' }, 'max_age must be a whole number'],
    ] as const) {
      const answer = await authorizeAgain(jar, org.realm, extra);
      expect(answer.location!.searchParams.get('error')).toBe('invalid_request');
      expect(answer.location!.searchParams.get('error_description')).toContain(words);
      expect(answer.location!.searchParams.has('code')).toBe(false);
    }
  });

  test('a credential change that lands while a sign-in is being checked ends the session that sign-in opens', async () => {
    const jar = new CookieJar();
    const request = authorizeRequest(org.realm);
    const shown = await jar.follow(request.url);
    const form = formOf(shown.response.text, shown.url);
    // The real password check, then a change of the user's credentials, then the sign-in goes on.
    const racing: IdentityProvider = {
      ...cognitoIdentityProvider,
      verifyPassword: async (username, password) => {
        const checked = await cognitoIdentityProvider.verifyPassword(username, password);
        await stampCredentials(org.orgUuid, user.uuid);
        return checked;
      },
    };
    const fields = new URLSearchParams({ ...form.fields, username: user.email, password: TEST_PASSWORD });

    const answer = await authenticate({ realm: org.realm, form: fields, acceptLanguage: undefined, crossSite: false, browserSecret: jar.value('AUTH_SESSION_ID') }, racing);

    expect(answer.kind).toBe('redirect');
    jar.set('REALM_SESSION', answer.realmSession!.token, realmPath(org.realm));
    expect((await authorizeAgain(jar, org.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');
  });

  test('a forged cookie, a right id with a wrong secret, and another realm\'s cookie open nothing', async () => {
    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm);
    const [sessionId] = jar.value('REALM_SESSION')!.split('.');
    const forgeries = [`${randomBytes(16).toString('base64url')}.${randomBytes(32).toString('base64url')}`, `${sessionId}.${randomBytes(32).toString('base64url')}`, `${sessionId}`, `${sessionId}.x.y`, 'x'.repeat(5000)];
    for (const value of forgeries) {
      const forged = new CookieJar();
      forged.set('REALM_SESSION', value, realmPath(org.realm));
      expect(showsSignInPage((await authorizeAgain(forged, org.realm)).response)).toBe(true);
      expect((await authorizeAgain(forged, org.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');
    }

    const other = await freshOrganization();
    const carried = new CookieJar();
    carried.set('REALM_SESSION', jar.value('REALM_SESSION')!, realmPath(other.realm));
    expect((await authorizeAgain(carried, other.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');
    // The session itself lives on in its own realm.
    expect((await authorizeAgain(jar, org.realm)).response.status).toBe(302);
  });

  test("RP-initiated logout signs the browser's applications out too: every ordinary session its sign-ins began ends; an offline token is kept", async () => {
    const jar = new CookieJar();
    const first = await signInOnPage(jar, user, org.realm);
    const app = (await (await exchange(org.realm, first.location.searchParams.get('code')!, first.verifier)).json()) as { id_token: string; refresh_token: string };
    // A second application of the same browser, answered by the realm session, and an offline token.
    const second = await authorizeAgain(jar, org.realm);
    const other = (await (await exchange(org.realm, second.location!.searchParams.get('code')!, second.verifier)).json()) as { refresh_token: string };
    const offlineRequest = await authorizeAgain(jar, org.realm, { scope: 'openid offline_access' });
    const offline = (await (await exchange(org.realm, offlineRequest.location!.searchParams.get('code')!, offlineRequest.verifier)).json()) as { refresh_token: string };
    const refreshes = (token: string) => requestToken(org.realm, { grant_type: 'refresh_token', client_id: stack().clientId, refresh_token: token }).then((response) => response.status);
    // Another browser's session of the same user is not this realm session's.
    const elsewhere = new CookieJar();
    const away = await signInOnPage(elsewhere, user, org.realm);
    const awayTokens = (await (await exchange(org.realm, away.location.searchParams.get('code')!, away.verifier)).json()) as { refresh_token: string };

    const query = new URLSearchParams({ id_token_hint: app.id_token, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out' });
    expect((await jar.request(`${issuerOf(org.realm)}/protocol/openid-connect/logout?${query}`)).status).toBe(302);

    expect(await refreshes(other.refresh_token)).toBe(400);
    expect(await refreshes(offline.refresh_token)).toBe(200);
    expect(await refreshes(awayTokens.refresh_token)).toBe(200);
  });

  test('RP-initiated logout ends it and clears the cookie; the old cookie replayed opens nothing', async () => {
    const jar = new CookieJar();
    const signedIn = await signInOnPage(jar, user, org.realm);
    const { id_token } = (await (await exchange(org.realm, signedIn.location.searchParams.get('code')!, signedIn.verifier)).json()) as { id_token: string };
    const stolen = jar.value('REALM_SESSION')!;

    const query = new URLSearchParams({ id_token_hint: id_token, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out' });
    const out = await jar.request(`${issuerOf(org.realm)}/protocol/openid-connect/logout?${query}`, { headers: { 'sec-fetch-site': 'cross-site' } });

    expect(out.status).toBe(302);
    expect(out.headers.getSetCookie()).toEqual([`REALM_SESSION=; Path=${realmPath(org.realm)}; HttpOnly; SameSite=Lax; Max-Age=0`]);
    expect(jar.value('REALM_SESSION')).toBeUndefined();
    const replay = new CookieJar();
    replay.set('REALM_SESSION', stolen, realmPath(org.realm));
    expect(showsSignInPage((await authorizeAgain(replay, org.realm)).response)).toBe(true);
  });

  test("logout by form ends it; another site's logout without a hint asks the person first; the person's own ends it", async () => {
    const jar = new CookieJar();
    const signedIn = await signInOnPage(jar, user, org.realm);
    const { id_token } = (await (await exchange(org.realm, signedIn.location.searchParams.get('code')!, signedIn.verifier)).json()) as { id_token: string };
    const logoutUrl = `${issuerOf(org.realm)}/protocol/openid-connect/logout`;

    const bare = `${logoutUrl}?${new URLSearchParams({ client_id: stack().clientId, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out', state: 'bye' })}`;
    // Another site's logout without a hint asks the person to confirm, and ends nothing until then.
    const fromElsewhere = await jar.request(bare, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(fromElsewhere.status).toBe(200);
    expect(fromElsewhere.text).toContain(`<h1>Sign out of ${org.realm}?</h1>`);
    expect(fromElsewhere.headers.getSetCookie()).toEqual([]);
    expect((await authorizeAgain(jar, org.realm)).response.status).toBe(302);
    // The confirmation posted from another site (a forged one) is refused as cross-site: nothing ends.
    const confirm = formOf(fromElsewhere.text, bare);
    expect(confirm.action).toBe(logoutUrl);
    const forged = await jar.post(confirm.action, confirm.fields, { 'sec-fetch-site': 'cross-site' });
    expect(forged.headers.getSetCookie()).toEqual([]);
    expect((await authorizeAgain(jar, org.realm)).response.status).toBe(302);
    // Confirmed from the page: signed out, and back to the application.
    const confirmed = await jar.post(confirm.action, confirm.fields, { 'sec-fetch-site': 'same-origin' });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get('location')).toBe('http://127.0.0.1:8765/signed-out?state=bye');
    expect(confirmed.headers.getSetCookie()[0]).toMatch(/^REALM_SESSION=; .*Max-Age=0$/);
    expect(showsSignInPage((await authorizeAgain(jar, org.realm)).response)).toBe(true);
    await signInOnPage(jar, user, org.realm);

    const byForm = await jar.post(logoutUrl, { id_token_hint: id_token, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out', client_id: stack().clientId });
    expect(byForm.status).toBe(302);
    expect(byForm.headers.getSetCookie()[0]).toMatch(/^REALM_SESSION=; .*Max-Age=0$/);
    expect(showsSignInPage((await authorizeAgain(jar, org.realm)).response)).toBe(true);

    await signInOnPage(jar, user, org.realm);
    const typed = await jar.request(bare, { headers: { 'sec-fetch-site': 'none' } });
    expect(typed.headers.getSetCookie()[0]).toMatch(/^REALM_SESSION=; .*Max-Age=0$/);
    expect(showsSignInPage((await authorizeAgain(jar, org.realm)).response)).toBe(true);
  });

  test('a password change, the user deleted or no longer active, and ending all of the user\'s sessions end it', async () => {
    const changed = new CookieJar();
    await signInOnPage(changed, user, org.realm);
    const next = 'Another-Passw0rd';
    expect((await org.users.update(user.uuid, { name: user.name, email: user.email, password: next, confirmPassword: next })).status).toBe(200);
    expect(showsSignInPage((await authorizeAgain(changed, org.realm)).response)).toBe(true);

    const ended = await member(org, 'VIEWER');
    const revoked = new CookieJar();
    await signInOnPage(revoked, ended, org.realm);
    const [sessionId] = revoked.value('REALM_SESSION')!.split('.');
    await revokeSessionsOf(ended.uuid);
    expect(await getItem(keys.sessionKey(sessionId!), { consistent: true })).toBeUndefined();
    expect(showsSignInPage((await authorizeAgain(revoked, org.realm)).response)).toBe(true);

    // A user no longer active loses the session even where no revocation ran.
    const inactive = await member(org, 'VIEWER');
    const disabled = new CookieJar();
    await signInOnPage(disabled, inactive, org.realm);
    await markDeleted(org.orgUuid, inactive.uuid);
    expect((await authorizeAgain(disabled, org.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');

    // Credentials changed after the sign-in (the user's credential stamp), even where no revocation ran.
    const stamped = await member(org, 'VIEWER');
    const outlived = new CookieJar();
    await signInOnPage(outlived, stamped, org.realm);
    await stampCredentials(org.orgUuid, stamped.uuid);
    expect((await authorizeAgain(outlived, org.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');
    // A sign-in after the change opens a session that works.
    await signInOnPage(outlived, stamped, org.realm);
    expect((await authorizeAgain(outlived, org.realm, { prompt: 'none' })).location!.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const gone = await member(org, 'VIEWER');
    const deleted = new CookieJar();
    await signInOnPage(deleted, gone, org.realm);
    await deleteViaApi(org, gone.uuid);
    expect((await authorizeAgain(deleted, org.realm, { prompt: 'none' })).location!.searchParams.get('error')).toBe('login_required');
  });
});

describe('one session for the account page and the API reference', () => {
  const reference = () => `${new URL(stack().authUrl).origin}/docs/oauth2-redirect.html`;
  const accountUrl = (realm: string) => `${issuerOf(realm)}/account`;

  /** Opens the account page and follows its trip through the realm's flow, back to the page. */
  async function openAccount(jar: CookieJar, realm: string) {
    const trip = await jar.follow(accountUrl(realm));
    if (!trip.url.includes('/account/sso')) return trip;
    return jar.follow(accountUrl(realm));
  }

  test('signed in at the account page, the reference\'s Authorize needs no password', async () => {
    const user = await member(org, 'VIEWER');
    const jar = new CookieJar();
    const shown = await jar.follow(accountUrl(org.realm));
    // The page sends the browser to the realm's sign-in, as its own client.
    expect(shown.url).toContain('/protocol/openid-connect/auth?');
    expect(new URL(shown.url).searchParams.get('client_id')).toBe('account-console');
    const form = formOf(shown.response.text, shown.url);
    const answer = await jar.post(form.action, { ...form.fields, username: user.email, password: TEST_PASSWORD });
    expect(answer.status).toBe(303);
    await jar.follow(new URL(answer.headers.get('location')!, form.action).toString());
    const profile = await jar.follow(accountUrl(org.realm));
    expect(profile.response.text).toContain('<h1>Your account</h1>');

    const docs = await authorizeAgain(jar, org.realm, { redirect_uri: reference() });
    expect(docs.response.status).toBe(302);
    expect(docs.location!.toString().startsWith(`${reference()}?code=`)).toBe(true);
    expect((await exchange(org.realm, docs.location!.searchParams.get('code')!, docs.verifier, reference())).status).toBe(200);
  });

  test("signed in through the reference's Authorize, the account page opens without a password", async () => {
    const user = await member(org, 'VIEWER');
    const jar = new CookieJar();
    await signInOnPage(jar, user, org.realm, { redirect_uri: reference() });

    const page = await openAccount(jar, org.realm);

    expect(page.response.status).toBe(200);
    expect(page.response.text).toContain('<h1>Your account</h1>');
    expect(page.response.text).toContain(user.email);
  });
});
