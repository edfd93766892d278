import { authorizationRequest, issuerOf } from '../support/authorization-request';
import { unique } from '../support/stack';
import type { TestProvider } from '../support/test-oidc-provider';
import { registeredProvider } from '../support/registered-provider';
import { createViaApi, readUser, type TestOrg } from '../support/user-helpers';
import { TEST_PASSWORD } from '../support/auth-helpers';

/**
 * A sign-in's request goes on only in the browser that made it (its AUTH_SESSION_ID cookie): the
 * provider's answer, the sign-in form and a first link's confirmation, carried to another browser (the
 * login CSRF of a provider's callback URL sent to a victim), sign nobody in there and open no realm
 * session. Each "browser" here is the cookies it holds.
 */

const COOKIE = 'AUTH_SESSION_ID';

let provider: TestProvider;
let org: TestOrg;
let domain: string;

beforeAll(async () => {
  ({ provider, org, domain } = await registeredProvider('bind', 'Bind SSO'));
});
afterAll(async () => provider.close());

const authorizeUrl = (extra: Record<string, string> = {}): string => authorizationRequest(org.realm, extra).url;

const send = (url: string, cookie: string | undefined, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
const postForm = (url: string, cookie: string | undefined, fields: Record<string, string>) =>
  send(url, cookie, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
const setCookie = (response: Response, name: string) => response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
const requestCookieOf = (response: Response) => setCookie(response, COOKIE)!.split(';')[0]!;

/** The error page that says to start again, and nothing signed in: no code, no realm session. */
async function expectNothingSignedIn(response: Response): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(setCookie(response, 'REALM_SESSION')).toBeUndefined();
  expect(await response.text()).toContain('role="alert"');
}

/** A sign-in begun at the application and taken through the provider: the URL the provider sends the browser back to, and the cookie of the browser that began it. */
async function callbackOf(email: string, sub: string): Promise<{ callback: string; cookie: string }> {
  const started = await send(authorizeUrl({ login_hint: email }), undefined);
  expect(started.status).toBe(302);
  provider.nextUser = { email, sub };
  const fromProvider = await send(started.headers.get('location')!, undefined);
  return { callback: fromProvider.headers.get('location')!, cookie: requestCookieOf(started) };
}

describe('the request cookie', () => {
  test('is set when a request is kept: HttpOnly, Lax (the provider sends the browser back from its own site), the realm\'s path, the sign-in\'s 15 minutes', async () => {
    const shown = await send(authorizeUrl(), undefined);
    expect(shown.status).toBe(200);
    expect(setCookie(shown, COOKIE)).toMatch(new RegExp(`^${COOKIE}=[A-Za-z0-9_-]{43}; Path=/auth/realms/${org.realm}/; HttpOnly; SameSite=Lax; Max-Age=900$`));
  });
});

describe("the provider's answer in another browser", () => {
  test('with no cookie, or another request\'s cookie, is the expired page with no realm session; the browser that began it still signs in', async () => {
    // A directory-provisioned user (a temporary password): the first link asks for no password.
    const attacker = await createViaApi(org, { email: `mallory-${unique()}@${domain}`, password: undefined, confirmPassword: undefined });
    const { callback, cookie } = await callbackOf(attacker.email, `sub-${unique()}`);
    // The victim's browser, with a sign-in of its own under way.
    const victimsOwn = requestCookieOf(await send(authorizeUrl(), undefined));

    await expectNothingSignedIn(await send(callback, undefined));
    await expectNothingSignedIn(await send(callback, victimsOwn));
    await expectNothingSignedIn(await send(callback, `${COOKIE}=${'A'.repeat(43)}`));
    expect(await readUser(org, attacker.uuid)).not.toHaveProperty('identityProvider');

    // Nothing was used up: the browser that began the sign-in finishes it, and its cookie goes.
    const own = await send(callback, cookie);
    expect(own.status).toBe(302);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie(own, 'REALM_SESSION')).toMatch(/^REALM_SESSION=[^;]+;/);
    expect(setCookie(own, COOKIE)).toMatch(new RegExp(`^${COOKIE}=; Path=/auth/realms/${org.realm}/; HttpOnly; SameSite=Lax; Max-Age=0$`));
    // And only once.
    await expectNothingSignedIn(await send(callback, cookie));
  });
});

describe('the sign-in form in another browser', () => {
  test('with no cookie, or another request\'s cookie, is the expired page: no password checked, nothing signed in', async () => {
    const user = await createViaApi(org, { email: `victor-${unique()}@example.test` });
    const shown = await send(authorizeUrl(), undefined);
    const html = await shown.text();
    const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
    const action = `${issuerOf(org.realm)}/login-actions/authenticate`;
    const fields = { request, username: user.email, password: TEST_PASSWORD };
    const another = requestCookieOf(await send(authorizeUrl(), undefined));

    await expectNothingSignedIn(await postForm(action, undefined, fields));
    await expectNothingSignedIn(await postForm(action, another, fields));

    const own = await postForm(action, requestCookieOf(shown), fields);
    expect(own.status).toBe(303);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie(own, COOKIE)).toMatch(/Max-Age=0$/);
  });
});

describe("a first link's confirmation in another browser", () => {
  test("with its confirmation cookie but not the request's cookie is the expired page: no password checked, no link", async () => {
    const user = await createViaApi(org, { email: `walter-${unique()}@${domain}` });
    const { callback, cookie } = await callbackOf(user.email, `sub-${unique()}`);
    const page = await send(callback, cookie);
    expect(page.status).toBe(200);
    const confirmation = /name="confirmation" value="([^"]+)"/.exec(await page.text())![1]!;
    const confirmationCookie = setCookie(page, 'BROKER_LINK_CONFIRMATION')!.split(';')[0]!;
    const action = `${issuerOf(org.realm)}/login-actions/first-broker-login`;
    const another = requestCookieOf(await send(authorizeUrl(), undefined));

    await expectNothingSignedIn(await postForm(action, confirmationCookie, { confirmation, password: TEST_PASSWORD }));
    await expectNothingSignedIn(await postForm(action, `${confirmationCookie}; ${another}`, { confirmation, password: TEST_PASSWORD }));
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');

    const own = await postForm(action, `${confirmationCookie}; ${cookie}`, { confirmation, password: TEST_PASSWORD });
    expect(own.status).toBe(303);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ linkedAt: expect.any(String) });
  });
});
