import { beginAccountSession, readAccountSession } from '../../shared/app/account/account-session';
import { REFERENCE_POLICY } from '../../shared/edge/docs/reference-page';
import { cognitoIdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { TEST_PASSWORD, createTestUser, passwordToken } from '../support/auth-helpers';
import { Browser as DeviceBrowser, formOf, poll, signInForCallback } from '../support/device-flow';
import { bodyOf, replayRouteEvents, type Replay } from '../support/sample-events';
import { adminToken, requestToken, stack, unique, userArea } from '../support/stack';
import { registrationOf, startTestProvider, type TestProvider } from '../support/test-oidc-provider';
import { refresh } from '../support/user-helpers';

/** The sample events of the auth function (tokens, OpenID Connect, the account page) and of the API reference (docs). */

/**
 * Signs a new user in to the account page and gives the event that page session's cookie and form
 * token (a file cannot hold them), with the rest of the form.
 */
async function withAccountSession(replay: Replay, form: Record<string, string>): Promise<void> {
  const user = await createTestUser();
  // The page session a sign-in through the realm's flow would begin (the flow itself has its own events).
  const { token } = await beginAccountSession(user.orgUuid, user.user.uuid);
  const account = await readAccountSession(token, user.orgUuid);
  replay.values.__ACCOUNT_EMAIL__ = user.email;
  replay.event.cookies = [`ACCOUNT_SESSION=${token}`];
  replay.event.body = new URLSearchParams({ csrf: account!.csrf, ...form }).toString();
}

/** Signs the organization's ADMIN in again and puts the new refresh token into the event's form. */
async function withFreshRefreshToken(replay: Replay, form: (refreshToken: string) => Record<string, string>): Promise<void> {
  const { admin } = stack().orgs[0]!;
  const { refresh_token } = await passwordToken({ realm: replay.values.__REALM__!, email: admin.email, password: admin.password });
  replay.values.__REFRESH_TOKEN__ = refresh_token;
  replay.event.body = new URLSearchParams({ client_id: stack().clientId, ...form(refresh_token) }).toString();
}

/** The event's id_token_hint: the ID token of a fresh sign-in of the ADMIN, whose refresh token the expectation then tries. */
async function withFreshIdTokenHint(replay: Replay): Promise<void> {
  const { admin } = stack().orgs[0]!;
  const response = await requestToken(replay.values.__REALM__!, { grant_type: 'password', client_id: stack().clientId, username: admin.email, password: admin.password, scope: 'openid' });
  const { refresh_token, id_token } = (await response.json()) as { refresh_token: string; id_token: string };
  replay.values.__REFRESH_TOKEN__ = refresh_token;
  const query = new URLSearchParams(replay.event.rawQueryString as string);
  query.set('id_token_hint', id_token);
  replay.event.rawQueryString = query.toString();
  replay.event.queryStringParameters = Object.fromEntries(query);
}

/** The session of the refresh token `withFreshRefreshToken` gave the event has ended. */
async function expectSessionEnded(values: Record<string, string>): Promise<void> {
  expect((await refresh(values.__REALM__!, values.__REFRESH_TOKEN__!)).status).toBe(400);
}

/** An authorization request of the realm, as the sample events' application (a loopback one) sends it. */
function startSignIn(realm: string, extra: Record<string, string> = {}): Promise<Response> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: 'http://127.0.0.1:8400/callback',
    state: 'events-state',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    ...extra,
  });
  return fetch(`${stack().authUrl}/auth/realms/${realm}/protocol/openid-connect/auth?${query}`, { redirect: 'manual' });
}

/** The cookie that binds a sign-in's request to the browser that began it (`name=value`), from the authorization endpoint's answer. */
const requestCookieOf = (started: Response) => started.headers.getSetCookie().find((line) => line.startsWith('AUTH_SESSION_ID='))!.split(';')[0]!;

/** Starts a sign-in on the realm's authorization endpoint and puts its request into the event's form (and its cookie), with the ADMIN's credentials. */
async function withSignInRequest(replay: Replay): Promise<void> {
  const { admin } = stack().orgs[0]!;
  const started = await startSignIn(replay.values.__REALM__!);
  const page = await started.text();
  const request = /name="request" value="([^"]+)"/.exec(page)?.[1];
  replay.event.body = new URLSearchParams({ request: request ?? '', username: admin.email, password: admin.password }).toString();
  replay.event.cookies = [requestCookieOf(started)];
}

/** Gives the event's account-page user an offline token, and the event that token's session to revoke. */
async function withOfflineToken(replay: Replay): Promise<void> {
  await withAccountSession(replay, {});
  const { values } = replay;
  const response = await requestToken(values.__REALM__!, { grant_type: 'password', client_id: stack().clientId, username: values.__ACCOUNT_EMAIL__!, password: TEST_PASSWORD, scope: 'offline_access' });
  const { refresh_token, session_state } = (await response.json()) as { refresh_token: string; session_state: string };
  values.__REFRESH_TOKEN__ = refresh_token;
  const form = new URLSearchParams(replay.event.body);
  form.set('session', session_state);
  replay.event.body = form.toString();
}

/**
 * Starts a device authorization of the realm, signs its ADMIN in on the verification page, and gives
 * the event the browser's sign-in cookie with the flow's answer (the callback's event) or with the
 * consent step's approval (the decision's event).
 */
async function withDeviceSignIn(replay: Replay, step: 'callback' | 'decision'): Promise<void> {
  const { admin } = stack().orgs[0]!;
  const realm = replay.values.__REALM__!;
  const started = (await (await requestDevice(realm)).json()) as { device_code: string; user_code: string; verification_uri: string };
  replay.values.__DEVICE_CODE__ = started.device_code;
  const browser = new DeviceBrowser();
  const callback = await signInForCallback(browser, started.verification_uri, started.user_code, admin);
  if (step === 'callback') {
    const query = new URL(callback).searchParams;
    replay.event.rawQueryString = query.toString();
    replay.event.queryStringParameters = Object.fromEntries(query);
  } else {
    const consent = await browser.get(callback);
    const form = formOf(await consent.text(), callback);
    replay.event.body = new URLSearchParams({ ...form.fields, decision: 'approve' }).toString();
  }
  replay.event.cookies = [`DEVICE_SIGN_IN=${browser.jar.cookies.get('DEVICE_SIGN_IN')}`];
}

const requestDevice = (realm: string) =>
  fetch(`${stack().authUrl}/auth/realms/${realm}/protocol/openid-connect/auth/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: stack().clientId }),
  });

/** An organization's provider, played by the test, for the broker's event. */
let provider: TestProvider | undefined;
afterAll(async () => provider?.close());

/**
 * Starts a brokered sign-in for a new user of the ADMIN's organization at a provider of the test's,
 * follows it to the provider's answer, and gives the event that answer (its alias, code and state).
 */
async function withProviderAnswer(replay: Replay): Promise<void> {
  provider ??= await startTestProvider();
  const { values, event } = replay;
  const orgUuid = values.__ORG_UUID__!;
  const domain = `events-${unique()}.example`;
  const alias = `events-${unique()}`;
  const admin = (await adminToken()).accessToken;
  const registered = await fetch(userArea(orgUuid, '/identity-providers'), {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(registrationOf(provider, { alias, displayName: 'Events SSO', domains: [domain] })),
  });
  expect(registered.status).toBe(201);
  const user = await createTestUser({ email: `ada-${unique()}@${domain}` });
  // Provisioned with a temporary password, as a directory's users are: the first link asks for none.
  await cognitoIdentityProvider.setPassword(user.user.uuid, TEST_PASSWORD, { temporary: true });
  provider.nextUser = { email: user.email };
  const started = await startSignIn(values.__REALM__!, { login_hint: user.email });
  const toProvider = started.headers.get('location')!;
  const answer = new URL((await fetch(toProvider, { redirect: 'manual' })).headers.get('location')!);
  event.cookies = [requestCookieOf(started)];
  event.rawPath = event.rawPath.replace('/broker/corp/', `/broker/${alias}/`);
  event.requestContext.http.path = event.rawPath;
  event.pathParameters = { ...event.pathParameters, alias };
  event.rawQueryString = answer.search.slice(1);
  event.queryStringParameters = Object.fromEntries(answer.searchParams);
}

/**
 * Brings a user with a password of their own back from a provider of the test's to the link
 * confirmation page, and gives the event that page's confirmation and cookie with the user's password.
 */
async function withLinkConfirmation(replay: Replay): Promise<void> {
  provider ??= await startTestProvider();
  const { values, event } = replay;
  const domain = `confirm-${unique()}.example`;
  const registered = await fetch(userArea(values.__ORG_UUID__!, '/identity-providers'), {
    method: 'POST',
    headers: { authorization: `Bearer ${(await adminToken()).accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(registrationOf(provider, { alias: `confirm-${unique()}`, displayName: 'Events SSO', domains: [domain] })),
  });
  expect(registered.status).toBe(201);
  const user = await createTestUser({ email: `grace-${unique()}@${domain}` });
  provider.nextUser = { email: user.email };
  const started = await startSignIn(values.__REALM__!, { login_hint: user.email });
  const toProvider = started.headers.get('location')!;
  const back = (await fetch(toProvider, { redirect: 'manual' })).headers.get('location')!;
  const page = await fetch(back, { redirect: 'manual', headers: { cookie: requestCookieOf(started) } });
  expect(page.status).toBe(200);
  const confirmation = /name="confirmation" value="([^"]+)"/.exec(await page.text())![1]!;
  event.cookies = [page.headers.getSetCookie()[0]!.split(';')[0]!, requestCookieOf(started)];
  event.body = new URLSearchParams({ confirmation, password: user.password }).toString();
}

replayRouteEvents(['auth', 'docs'], {
  prepare: {
    'auth.firstBrokerLogin': withLinkConfirmation,
    'auth.broker': withProviderAnswer,
    'auth.authenticate': withSignInRequest,
    // The files cannot hold a refresh token (`sam:event` has none to give): a fresh sign-in's goes in.
    'auth.revoke': async (replay) => withFreshRefreshToken(replay, (refreshToken) => ({ token: refreshToken, token_type_hint: 'refresh_token' })),
    'auth.logout': async (replay) => withFreshRefreshToken(replay, (refreshToken) => ({ refresh_token: refreshToken })),
    'auth.endSession': withFreshIdTokenHint,
    'auth.accountPassword': async (replay) =>
      withAccountSession(replay, { password: TEST_PASSWORD, 'password-new': 'Events-Passw0rd', 'password-confirm': 'Events-Passw0rd' }),
    'auth.accountSignOut': async (replay) => withAccountSession(replay, {}),
    'auth.accountRevokeOfflineToken': withOfflineToken,
    'auth.deviceCallback': async (replay) => withDeviceSignIn(replay, 'callback'),
    'auth.deviceDecision': async (replay) => withDeviceSignIn(replay, 'decision'),
  },
  expectations: {
    'auth.broker': async (result) => {
      const location = new URL(String(result.headers?.location));
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8400/callback');
      expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(location.searchParams.get('state')).toBe('events-state');
    },
    // The user's password confirmed the link: back to the application with a code, the cookie removed.
    'auth.firstBrokerLogin': async (result) => {
      const location = new URL(String(result.headers?.location));
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8400/callback');
      expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The sign-in opens the browser's realm session, and the request's and the confirmation's cookies go.
      expect(result.cookies).toEqual([
        expect.stringMatching(/^REALM_SESSION=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Path=\/auth\/realms\/[^/]+\/; HttpOnly; SameSite=Lax/),
        expect.stringMatching(/^AUTH_SESSION_ID=; Path=\/auth\/realms\/[^/]+\/; HttpOnly; SameSite=Lax.*Max-Age=0$/),
        expect.stringMatching(/^BROKER_LINK_CONFIRMATION=; Path=\/auth\/realms\/[^/]+\/login-actions\/first-broker-login; HttpOnly; SameSite=Strict.*Max-Age=0$/),
      ]);
    },
    'auth.accountSso': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(result.body).toContain('role="alert"');
    },
    'auth.authorize': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(result.body).toMatch(/<form method="post" action="\.\.\/\.\.\/login-actions\/authenticate">/);
    },
    'auth.authenticate': async (result, { values }) => {
      expect(result.statusCode).toBe(303);
      const location = new URL(String(result.headers?.location));
      expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8400/callback');
      expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(location.searchParams.get('state')).toBe('events-state');
      expect(location.searchParams.get('iss')).toBe(`${stack().authUrl}/auth/realms/${values.__REALM__}`);
    },
    'auth.deviceAuthorization': async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      const issuer = `${stack().authUrl}/auth/realms/${values.__REALM__}`;
      expect(bodyOf(result)).toMatchObject({ user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/), verification_uri: `${issuer}/device`, expires_in: 600, interval: 5 });
    },
    'auth.device': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(result.body).toContain('<html lang="es">');
      expect(result.body).toContain('value="WDJB-MJHT"');
    },
    'auth.deviceCode': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(result.body).toContain('role="alert"');
    },
    'auth.deviceCallback': async (result) => {
      // The language the code was typed in (the sign-in cookie's), over the event's Accept-Language.
      expect(result.body).toContain('<html lang="en">');
      expect(result.body).toContain(stack().orgs[0]!.admin.email);
      expect(result.body).toMatch(/<input type="hidden" name="step" value="[A-Za-z0-9_-]{43}">/);
    },
    'auth.deviceDecision': async (result, { values }) => {
      expect(result.body).toContain('role="status"');
      expect(result.cookies).toEqual([expect.stringMatching(/^DEVICE_SIGN_IN=; .*Max-Age=0$/)]);
      expect(await poll(values.__REALM__!, values.__DEVICE_CODE__!)).toMatchObject({ status: 200, body: { token_type: 'Bearer' } });
    },
    'auth.discovery': async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      const issuer = `${stack().authUrl}/auth/realms/${values.__REALM__}`;
      expect(bodyOf(result)).toMatchObject({ issuer, token_endpoint: `${issuer}/protocol/openid-connect/token` });
    },
    'auth.userinfo': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ sub: expect.any(String), email: stack().orgs[0]!.admin.email });
    },
    'auth.userinfoPost': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ sub: expect.any(String), email: stack().orgs[0]!.admin.email });
    },
    'auth.revoke': async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      await expectSessionEnded(values);
    },
    'auth.logout': async (result, { values }) => {
      expect(result.statusCode).toBe(204);
      await expectSessionEnded(values);
    },
    'auth.thirdPartyCookies': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(result.body).toContain("window.parent.postMessage('unsupported', '*');");
      expect(result.headers?.['X-Frame-Options'] ?? result.headers?.['x-frame-options']).toBeUndefined();
      expect(result.headers?.['Cross-Origin-Resource-Policy']).toBe('cross-origin');
      expect(result.headers?.['Content-Security-Policy'] ?? result.headers?.['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'$/);
    },
    'auth.endSession': async (result, { values }) => {
      expect(result.statusCode).toBe(302);
      expect(result.headers?.location).toBe('http://127.0.0.1:8400/signed-out?state=af0ifjsldkj');
      await expectSessionEnded(values);
    },
    'auth.account': async (result, { values }) => {
      expect(result.statusCode).toBe(303);
      const location = new URL(String(result.headers?.location));
      expect(location.pathname).toBe(`/auth/realms/${values.__REALM__}/protocol/openid-connect/auth`);
      expect(location.searchParams.get('kc_locale')).toBe('es');
      expect(result.cookies).toEqual([expect.stringMatching(/^ACCOUNT_SSO=[^;]+; Path=\/auth\/realms\/[^/]+\/account; HttpOnly; SameSite=Lax/)]);
    },
    'auth.accountSignIn': async (result, { values }) => {
      const location = new URL(String(result.headers?.location));
      expect(location.searchParams.get('client_id')).toBe('account-console');
      expect(location.searchParams.get('login_hint')).toBe(decodeURIComponent(values.__ADMIN_EMAIL__!));
    },
    'auth.accountPassword': async (result, { values }) => {
      expect(result.headers?.location).toBe('../account?kc_locale=es&status=password-saved');
      await expect(passwordToken({ realm: values.__REALM__!, email: values.__ACCOUNT_EMAIL__!, password: 'Events-Passw0rd' })).resolves.toBeDefined();
    },
    'auth.accountSignOut': async (result) => {
      expect(result.headers?.location).toBe('../account?kc_locale=es&status=signed-out');
      expect(result.cookies).toEqual([expect.stringMatching(/^ACCOUNT_SESSION=; .*Max-Age=0$/), expect.stringMatching(/^REALM_SESSION=; .*Max-Age=0$/)]);
    },
    'auth.accountRevokeOfflineToken': async (result, { values }) => {
      expect(result.headers?.location).toBe('../account?kc_locale=es&status=offline-token-revoked');
      await expectSessionEnded(values);
    },
    // The API reference: its document names the address the event reached (Host, x-forwarded-proto).
    'docs.root': async (result) => {
      expect(result.headers?.location).toBe('/docs');
    },
    'docs.openapi': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ openapi: '3.1.0', servers: [{ url: 'https://api.example.com' }] });
    },
    'docs.ui': async (result) => {
      expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
      expect(result.headers?.['content-security-policy']).toBe(REFERENCE_POLICY);
    },
    'docs.asset': async (result) => {
      expect(result.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' });
      expect(result.body).toContain('SwaggerUIBundle');
    },
  },
});
