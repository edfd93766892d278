import { createHash, randomBytes } from 'node:crypto';
import type * as OpenIdClient from 'openid-client';
import { keys } from '../../shared/adapters/store/keys';
import { PAGE_POLICY } from '../../shared/kernel/html/layout';
import { updateItem } from '../../shared/adapters/store/table';
import { bearer, createTestUser, decodeJwt, getCurrentUser, type TestUser } from '../support/auth-helpers';
import { stack, requestToken } from '../support/stack';
import { createViaApi, freshOrganization, onlyMailTo, refresh, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The authorization code flow with PKCE, driven as a browser and a command-line tool drive it: the
 * authorization request, the sign-in page's form posted, each redirect read by hand, the code exchanged.
 */

const load = process.getBuiltinModule('node:module').createRequire(__filename);
const oidc = load('openid-client') as typeof OpenIdClient;

const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;
const REDIRECT = 'http://127.0.0.1:8765/callback';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(realm: string, params: Record<string, string>): string {
  return `${issuerOf(realm)}/protocol/openid-connect/auth?${new URLSearchParams(params)}`;
}

function requestParams(challenge: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: REDIRECT,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

/** A page's form: its action (absolute) and its fields, hidden ones included. */
function formOf(html: string, pageUrl: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`no form in the page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = match[2]!.replace(/&amp;/g, '&');
  return { action: new URL(action.replace(/&amp;/g, '&'), pageUrl).toString(), fields };
}

/**
 * The browser's sign-in request cookie, kept from the stack's answers and sent back with its forms: a
 * sign-in goes on only in the browser that began it.
 */
let requestCookie: string | undefined;
async function browse(url: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, ...(requestCookie ? { cookie: requestCookie } : {}) } });
  const set = response.headers.getSetCookie().find((line) => line.startsWith('AUTH_SESSION_ID='));
  if (set) requestCookie = set.split(';')[0];
  return response;
}

async function getPage(url: string) {
  const response = await browse(url, { headers: { accept: 'text/html' } });
  return { response, html: await response.text() };
}

function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return browse(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) });
}

/** Signs in on the page the request opens; answers the response to the form (the redirect, or the page again). */
async function signInThrough(url: string, username: string, password: string, headers: Record<string, string> = {}) {
  const { response, html } = await getPage(url);
  expect(response.status).toBe(200);
  const form = formOf(html, url);
  return { form, answer: await post(form.action, { ...form.fields, username, password }, headers) };
}

function codeOf(answer: Response): URL {
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

function exchange(realm: string, fields: Record<string, string>) {
  return requestToken(realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, ...fields });
}

async function signedInCode(user: TestUser, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const { answer } = await signInThrough(authorizeUrl(user.realm, requestParams(challenge, extra)), user.email, user.password);
  const location = codeOf(answer);
  return { verifier, code: location.searchParams.get('code')!, location };
}

describe('the authorization endpoint', () => {
  test('discovery names it, with code, S256 and the grants', async () => {
    const user = await createTestUser();
    const document = (await (await fetch(`${issuerOf(user.realm)}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(document).toMatchObject({
      authorization_endpoint: `${issuerOf(user.realm)}/protocol/openid-connect/auth`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'password', 'refresh_token']),
      scopes_supported: expect.arrayContaining(['openid', 'offline_access']),
      authorization_response_iss_parameter_supported: true,
    });
  });

  test('openid-client signs in with the authorization code and PKCE, unmodified', async () => {
    const user = await createTestUser();
    const config = await oidc.discovery(new URL(issuerOf(user.realm)), stack().clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });

    const { answer } = await signInThrough(url.toString(), user.email, user.password);
    const tokens = await oidc.authorizationCodeGrant(config, codeOf(answer), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });

    expect(tokens.claims()).toMatchObject({ sub: user.user.uuid, nonce, email: user.email });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = await getCurrentUser(user.orgUuid, bearer(tokens.access_token));
    expect(me.status).toBe(200);
  });

  test('the redirect carries the code, state and iss; the exchange answers the password grant\'s tokens', async () => {
    const user = await createTestUser();
    const { verifier, code, location } = await signedInCode(user, { scope: 'openid', nonce: 'n-1' });

    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(issuerOf(user.realm));
    const response = await exchange(user.realm, { code, code_verifier: verifier });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'token_type', 'id_token', 'not-before-policy', 'session_state', 'scope'].sort(),
    );
    expect(decodeJwt(body.id_token as string).payload).toMatchObject({ nonce: 'n-1', aud: stack().clientId });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  test('a code is single use: the second exchange is invalid_grant and ends the session the first began', async () => {
    const user = await createTestUser();
    const { verifier, code } = await signedInCode(user);
    const first = (await (await exchange(user.realm, { code, code_verifier: verifier })).json()) as { refresh_token: string };

    const again = await exchange(user.realm, { code, code_verifier: verifier });

    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(user.realm, first.refresh_token)).status).toBe(400);
  });

  test.each([
    ['a wrong verifier', (verifier: string) => ({ code_verifier: `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}` })],
    ['another redirect_uri', () => ({ redirect_uri: 'http://127.0.0.1:8766/callback' })],
  ])('%s is invalid_grant', async (_name, change) => {
    const user = await createTestUser();
    const { verifier, code } = await signedInCode(user);
    const response = await exchange(user.realm, { code, code_verifier: verifier, ...change(verifier) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('a code past its minute is invalid_grant', async () => {
    const user = await createTestUser();
    const { verifier, code } = await signedInCode(user);
    // The minute, passed: the code's item as the store holds it, its expiry moved back.
    const codeHash = createHash('sha256').update(code).digest('hex');
    await updateItem({ Key: keys.authorizationCode(codeHash), UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 } });

    const response = await exchange(user.realm, { code, code_verifier: verifier });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
  });

  test('an unknown code is invalid_grant; so is a verifier missing or of the wrong shape (as Keycloak answers), which leaves the code unused', async () => {
    const user = await createTestUser();
    const unknown = await exchange(user.realm, { code: randomBytes(32).toString('base64url'), code_verifier: pkce().verifier });
    expect(await unknown.json()).toMatchObject({ error: 'invalid_grant' });
    const { verifier, code } = await signedInCode(user);
    const short = await exchange(user.realm, { code, code_verifier: 'too-short' });
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('43 to 128') });
    const missing = await exchange(user.realm, { code });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') });
    expect((await exchange(user.realm, { code, code_verifier: verifier })).status).toBe(200);
  });

  test.each([
    ['an unknown client_id', { client_id: 'someone-else' }],
    ['a redirect_uri on another site', { redirect_uri: 'https://attacker.example/callback' }],
    ['a redirect_uri with a fragment', { redirect_uri: 'http://127.0.0.1:8765/callback#x' }],
    ['no redirect_uri', { redirect_uri: '' }],
  ])('%s answers an error page, never a redirect', async (_name, change) => {
    const user = await createTestUser();
    const params = { ...requestParams(pkce().challenge), ...change };
    const { response, html } = await getPage(authorizeUrl(user.realm, Object.fromEntries(Object.entries(params).filter(([, v]) => v !== ''))));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('role="alert"');
  });

  test.each([
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no challenge method', { code_challenge_method: '' }, 'invalid_request'],
    ['no challenge', { code_challenge: '' }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'openid admin' }, 'invalid_scope'],
    ['prompt=none', { prompt: 'none' }, 'login_required'],
  ])('%s goes back to the application with error, state and iss', async (_name, change, error) => {
    const user = await createTestUser();
    const params = Object.fromEntries(Object.entries({ ...requestParams(pkce().challenge), ...change }).filter(([, v]) => v !== ''));
    const { response } = await getPage(authorizeUrl(user.realm, params));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toEqual(expect.any(String));
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe(issuerOf(user.realm));
  });

  test('a repeated parameter goes back as invalid_request', async () => {
    const user = await createTestUser();
    const url = `${authorizeUrl(user.realm, requestParams(pkce().challenge))}&state=again`;
    const { response } = await getPage(url);
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  test('an unknown realm answers a 404 page', async () => {
    const { response } = await getPage(authorizeUrl('no-such-realm-here', requestParams(pkce().challenge)));
    expect(response.status).toBe(404);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
  });

  test('the page is an HTML form with username and password, login_hint filled in, never cached or framed', async () => {
    const user = await createTestUser();
    const { response, html } = await getPage(authorizeUrl(user.realm, requestParams(pkce().challenge, { login_hint: user.email })));
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(html).toContain('name="username"');
    expect(html).toContain('name="password"');
    expect(html).toContain(`value="${user.email}"`);
  });

  test('a wrong password shows the form again; a right one then signs in', async () => {
    const user = await createTestUser();
    const { verifier, challenge } = pkce();
    const { form, answer } = await signInThrough(authorizeUrl(user.realm, requestParams(challenge)), user.email, 'Wrong-passw0rd');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('Invalid e-mail or password.');

    const second = await post(form.action, { ...form.fields, username: user.email, password: user.password });
    const response = await exchange(user.realm, { code: codeOf(second).searchParams.get('code')!, code_verifier: verifier });
    expect(response.status).toBe(200);
  });

  test('a form posted twice makes one code; the second post answers the expired page', async () => {
    const user = await createTestUser();
    const { form, answer } = await signInThrough(authorizeUrl(user.realm, requestParams(pkce().challenge)), user.email, user.password);
    codeOf(answer);
    const again = await post(form.action, { ...form.fields, username: user.email, password: user.password });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });

  test('a form posted from another site is refused (login CSRF)', async () => {
    const user = await createTestUser();
    const { answer } = await signInThrough(authorizeUrl(user.realm, requestParams(pkce().challenge)), user.email, user.password, { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('location')).toBeNull();
  });
});

describe('a user whose password is still temporary', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await freshOrganization();
  });

  test('chooses a password on the way, then goes back to the application with a code', async () => {
    const created = await createViaApi(org, { email: uniqueEmail('code'), password: undefined, confirmPassword: undefined });
    const temporary = (await onlyMailTo(created.email)).body.text!.match(/^Temporary password: (.+)$/m)![1]!;
    const { verifier, challenge } = pkce();
    const { answer } = await signInThrough(authorizeUrl(org.realm, requestParams(challenge)), created.email, temporary);
    expect(answer.status).toBe(200);
    const page = await answer.text();
    expect(page).toContain('name="password-new"');
    const form = formOf(page, answer.url);

    const reused = await post(form.action, { ...form.fields, 'password-new': temporary, 'password-confirm': temporary });
    expect(await reused.text()).toContain('Choose a password other than the temporary one.');
    const chosen = await post(form.action, { ...form.fields, 'password-new': 'Chosen-Passw0rd', 'password-confirm': 'Chosen-Passw0rd' });

    const response = await exchange(org.realm, { code: codeOf(chosen).searchParams.get('code')!, code_verifier: verifier });
    expect(response.status).toBe(200);
    const password = await requestToken(org.realm, { grant_type: 'password', client_id: stack().clientId, username: created.email, password: 'Chosen-Passw0rd' });
    expect(password.status).toBe(200);
  });
});

describe('an application in a browser (keycloak-js\'s way)', () => {
  test('response_mode=fragment: the code, state and iss come back in the fragment, as do errors', async () => {
    const user = await createTestUser();
    const { verifier, challenge } = pkce();
    const { answer } = await signInThrough(authorizeUrl(user.realm, requestParams(challenge, { response_mode: 'fragment' })), user.email, user.password);
    const location = codeOf(answer);
    expect(location.search).toBe('');
    const answered = new URLSearchParams(location.hash.slice(1));
    expect(answered.get('state')).toBe('st-123');
    expect(answered.get('iss')).toBe(issuerOf(user.realm));
    expect((await exchange(user.realm, { code: answered.get('code')!, code_verifier: verifier })).status).toBe(200);

    const refused = await getPage(authorizeUrl(user.realm, requestParams(challenge, { response_mode: 'fragment', scope: 'openid admin' })));
    expect(refused.response.status).toBe(302);
    const back = new URL(refused.response.headers.get('location')!);
    expect(back.search).toBe('');
    expect(Object.fromEntries(new URLSearchParams(back.hash.slice(1)))).toMatchObject({ error: 'invalid_scope', state: 'st-123', iss: issuerOf(user.realm) });

    const unknown = await getPage(authorizeUrl(user.realm, requestParams(challenge, { response_mode: 'form_post' })));
    expect(Object.fromEntries(new URL(unknown.response.headers.get('location')!).searchParams)).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('response_mode') });
  });

  test('a page on loopback reads the token, refresh and logout answers (CORS, with credentials); one on another site does not', async () => {
    const user = await createTestUser();
    const origin = 'http://localhost:5173';
    const { verifier, code } = await signedInCode(user);
    const token = (fields: Record<string, string>, from: string) =>
      fetch(`${issuerOf(user.realm)}/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
        body: new URLSearchParams({ client_id: stack().clientId, ...fields }),
      });
    const granted = await token({ grant_type: 'authorization_code', redirect_uri: REDIRECT, code, code_verifier: verifier }, origin);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('access-control-allow-origin')).toBe(origin);
    expect(granted.headers.get('access-control-allow-credentials')).toBe('true');
    expect(granted.headers.get('vary')).toContain('Origin');
    const { refresh_token: refreshToken } = (await granted.json()) as { refresh_token: string };

    // An error is readable too, so the page can tell the person why.
    const refused = await token({ grant_type: 'refresh_token', refresh_token: 'not-a-token' }, 'http://127.0.0.1:8080');
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080');
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');

    const elsewhere = await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'https://evil.example');
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    expect(elsewhere.headers.get('access-control-allow-credentials')).toBeNull();
    const { refresh_token: rotated } = (await elsewhere.json()) as { refresh_token: string };

    const logout = await fetch(`${issuerOf(user.realm)}/protocol/openid-connect/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ client_id: stack().clientId, refresh_token: rotated }),
    });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('access-control-allow-origin')).toBe(origin);
  });

  test('the realm\'s documents are readable from any origin, without credentials; its pages from none', async () => {
    const user = await createTestUser();
    for (const path of ['/.well-known/openid-configuration', '/protocol/openid-connect/certs']) {
      const response = await fetch(`${issuerOf(user.realm)}${path}`, { headers: { origin: 'https://app.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const { challenge } = pkce();
    for (const url of [authorizeUrl(user.realm, requestParams(challenge)), `${issuerOf(user.realm)}/account?status=signed-out`]) {
      const page = await fetch(url, { redirect: 'manual', headers: { origin: 'http://localhost:5173' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('the end of a session from the browser (RP-initiated logout)', () => {
  const endSessionUrl = (realm: string, params: Record<string, string>) => `${issuerOf(realm)}/protocol/openid-connect/logout?${new URLSearchParams(params)}`;

  async function signedInWithIdToken(user: TestUser) {
    const { verifier, code } = await signedInCode(user, { scope: 'openid' });
    return (await (await exchange(user.realm, { code, code_verifier: verifier })).json()) as { id_token: string; refresh_token: string; access_token: string };
  }

  test('openid-client\'s end-session URL ends the ID token\'s session and goes back with state', async () => {
    const user = await createTestUser();
    const tokens = await signedInWithIdToken(user);
    const config = await oidc.discovery(new URL(issuerOf(user.realm)), stack().clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const url = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out', state: 'bye-1' });

    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://127.0.0.1:8765/signed-out?state=bye-1');
    expect((await refresh(user.realm, tokens.refresh_token)).status).toBe(400);
    expect((await getCurrentUser(user.orgUuid, bearer(tokens.access_token))).status).toBe(401);
  });

  test('without a redirect, a signed-out page in the person\'s language; without a hint, nothing is ended', async () => {
    const user = await createTestUser();
    const tokens = await signedInWithIdToken(user);
    const bare = await fetch(endSessionUrl(user.realm, { ui_locales: 'ja' }), { redirect: 'manual' });
    expect(bare.status).toBe(200);
    expect(bare.headers.get('cache-control')).toBe('no-store');
    expect(await bare.text()).toContain('サインアウトしました');
    expect((await refresh(user.realm, tokens.refresh_token)).status).toBe(200);
  });

  test.each([
    ['a post_logout_redirect_uri on another site', (hint: string) => ({ id_token_hint: hint, post_logout_redirect_uri: 'https://evil.example/after' }), 'not allowed'],
    ['a post_logout_redirect_uri with neither client_id nor id_token_hint', () => ({ post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out' }), 'client_id or id_token_hint'],
    ['an access token as the hint', (_hint: string, access: string) => ({ id_token_hint: access, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out' }), 'id_token_hint'],
    ['a hint that is no token', () => ({ id_token_hint: 'not-a-token', client_id: stack().clientId }), 'id_token_hint'],
    ['an unknown client_id', () => ({ client_id: 'someone-else', post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out' }), 'client_id'],
    ['a repeated parameter', (hint: string) => `id_token_hint=${hint}&id_token_hint=${hint}`, 'more than once'],
  ] as const)('%s answers an error page, never a redirect, and ends nothing', async (_case, params, says) => {
    const user = await createTestUser();
    const tokens = await signedInWithIdToken(user);
    const query = params(tokens.id_token, tokens.access_token);
    const answer = await fetch(typeof query === 'string' ? `${issuerOf(user.realm)}/protocol/openid-connect/logout?${query}` : endSessionUrl(user.realm, query), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain(says);
    expect((await refresh(user.realm, tokens.refresh_token)).status).toBe(200);
  });

  test('a browser\'s form (keycloak-js\'s logoutMethod POST) ends the session as the GET does; its refusals are invalid_request', async () => {
    const user = await createTestUser();
    const tokens = await signedInWithIdToken(user);
    const logoutUrl = `${issuerOf(user.realm)}/protocol/openid-connect/logout`;
    const refused = await post(logoutUrl, { client_id: stack().clientId, id_token_hint: tokens.id_token, post_logout_redirect_uri: 'https://evil.example/after' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('post_logout_redirect_uri') });
    expect((await refresh(user.realm, tokens.refresh_token)).status).toBe(200);

    const answer = await post(logoutUrl, { client_id: stack().clientId, id_token_hint: tokens.id_token, post_logout_redirect_uri: 'http://127.0.0.1:8765/signed-out', state: 'bye-2' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://127.0.0.1:8765/signed-out?state=bye-2');
    expect((await refresh(user.realm, tokens.refresh_token)).status).toBe(400);
    // A form with neither a refresh token nor a hint or redirect is still the refresh-token logout's error.
    expect((await post(logoutUrl, { client_id: stack().clientId })).status).toBe(400);
  });

  test('an ID token of another realm does not end its session here', async () => {
    const [user, other] = await Promise.all([createTestUser({ orgIndex: 0 }), createTestUser({ orgIndex: 1 })]);
    expect(other.realm).not.toBe(user.realm);
    const tokens = await signedInWithIdToken(other);
    const answer = await fetch(endSessionUrl(user.realm, { id_token_hint: tokens.id_token }), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect((await refresh(other.realm, tokens.refresh_token)).status).toBe(200);
  });
});
