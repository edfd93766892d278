import { ACCOUNT_PAGE_POLICY } from '../../shared/app/account/account-page';
import { bearer, getCurrentUser, TEST_PASSWORD } from '../support/auth-helpers';
import { send, type ApiResponse } from '../support/http-client';
import { requestToken, stack } from '../support/stack';
import { createViaApi, freshOrganization, member, onlyMailTo, refresh, signIn, uniqueEmail, type TestOrg } from '../support/user-helpers';

/** The account page over HTTP, as a browser without script would use it (the Chromium test is in account-browser). */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const accountUrl = (realm: string, path = '', query = '') => `${stack().authUrl}/auth/realms/${realm}/account${path}${query}`;

/** A browser's cookie jar for one realm's page: keeps what Set-Cookie gives, sends it back. */
class Browser {
  private cookie: string | undefined;
  constructor(private readonly realm: string) {}

  async get(query = '', headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.remember(await send(accountUrl(this.realm, '', query), { headers: { ...this.cookieHeader(), ...headers }, redirect: 'manual' }));
  }

  async post(form: string, fields: Record<string, string>): Promise<ApiResponse> {
    return this.remember(
      await send(accountUrl(this.realm, `/${form}`), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      }),
    );
  }

  /** The page's CSRF token, from the last page shown. */
  csrfOf(page: ApiResponse): string {
    const token = page.text.match(/name="csrf" value="([^"]+)"/)?.[1];
    if (!token) throw new Error('The page has no form token');
    return token;
  }

  get session(): string | undefined {
    return this.cookie;
  }

  set session(value: string | undefined) {
    this.cookie = value;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookie ? { cookie: this.cookie } : {};
  }

  private remember(response: ApiResponse): ApiResponse {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const value = pair.slice(pair.indexOf('=') + 1);
      this.cookie = value ? pair : undefined;
    }
    return response;
  }
}

/** An offline sign-in (`scope=offline_access`) of a user of the test organization: its tokens. */
async function offlineSignIn(email: string): Promise<{ refresh_token: string; session_state: string }> {
  const response = await requestToken(org.realm, { grant_type: 'password', client_id: stack().clientId, username: email, password: TEST_PASSWORD, scope: 'offline_access' });
  expect(response.status).toBe(200);
  return (await response.json()) as { refresh_token: string; session_state: string };
}

const heading = (page: ApiResponse) => page.text.match(/<h1>([^<]*)<\/h1>/)?.[1];
const alertOf = (page: ApiResponse) => page.text.match(/role="alert"[^>]*>([^<]*)</)?.[1];

describe('the account page', () => {
  test('shows the sign-in form under a strict policy, in the language asked for', async () => {
    const browser = new Browser(org.realm);

    const page = await browser.get();

    expect(page.status).toBe(200);
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(ACCOUNT_PAGE_POLICY);
    expect(ACCOUNT_PAGE_POLICY).toMatch(/default-src 'none'/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<html lang="en">');
    expect(heading(page)).toBe(`Sign in to ${org.realm}`);
    expect(page.text).not.toMatch(/<script|https?:\/\//);

    expect(heading(await browser.get('?kc_locale=ja'))).toBe(`${org.realm} にサインイン`);
    expect((await browser.get('', { 'accept-language': 'fr-FR, pt-BR;q=0.9, es;q=0.8' })).text).toContain('<html lang="pt">');
    expect((await browser.get('?kc_locale=xx', { 'accept-language': 'es' })).text).toContain('<html lang="es">');
  });

  test('an unknown realm is a 404', async () => {
    const page = await send(accountUrl('no-such-realm-anywhere'));
    expect(page.status).toBe(404);
  });

  test('a wrong password shows the form again with the error, and no session', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);

    const page = await browser.post('sign-in', { username: user.email, password: 'Wrong-passw0rd' });

    expect(page.status).toBe(200);
    expect(alertOf(page)).toBe('Invalid e-mail or password.');
    expect(page.text).toContain(`value="${user.email}"`);
    expect(browser.session).toBeUndefined();
  });

  test('a new user with a temporary password must set its own, then signs in everywhere', async () => {
    const created = await createViaApi(org, { email: uniqueEmail('page'), password: undefined, confirmPassword: undefined });
    const mail = await onlyMailTo(created.email);
    const temporary = mail.body.text!.match(/^Temporary password: (.+)$/m)![1]!;
    const link = mail.body.text!.match(/^Sign-in address: (.+)$/m)![1]!;
    expect(link).toBe(accountUrl(org.realm, '', '?kc_locale=en'));
    const browser = new Browser(org.realm);

    const signedIn = await browser.post('sign-in', { username: created.email, password: temporary });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('../account?kc_locale=en');
    const cookie = signedIn.headers.getSetCookie()[0]!;
    // A session begun with a temporary password lasts 10 minutes, and so does its cookie.
    expect(cookie).toMatch(new RegExp(`^ACCOUNT_SESSION=[^;]+; Path=/auth/realms/${org.realm}/account; HttpOnly; SameSite=Strict; Max-Age=600$`));

    const setPassword = await browser.get();
    expect(heading(setPassword)).toBe('Choose your password');
    const csrf = browser.csrfOf(setPassword);

    const mismatch = await browser.post('password', { csrf, 'password-new': 'Mine-Passw0rd', 'password-confirm': 'Other-Passw0rd' });
    expect(alertOf(mismatch)).toBe('The two new passwords do not match.');
    const weak = await browser.post('password', { csrf, 'password-new': 'short', 'password-confirm': 'short' });
    expect(alertOf(weak)).toBe('The new password does not follow the password rule.');
    const reused = await browser.post('password', { csrf, 'password-new': temporary, 'password-confirm': temporary });
    expect(alertOf(reused)).toBe('Choose a password other than the temporary one.');
    expect(reused.text).toContain('<title>Error: Choose your password · Account</title>');
    const forged = await browser.post('password', { csrf: 'not-the-token', 'password-new': 'Mine-Passw0rd', 'password-confirm': 'Mine-Passw0rd' });
    expect(forged.status).toBe(303);
    expect((await signIn(org.realm, created.email, 'Mine-Passw0rd')).status).toBe(400);

    const saved = await browser.post('password', { csrf, 'password-new': 'Mine-Passw0rd', 'password-confirm': 'Mine-Passw0rd' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('../account?kc_locale=en&status=password-saved');

    const profile = await browser.get('?kc_locale=en&status=password-saved');
    expect(heading(profile)).toBe('Your account');
    expect(profile.text).toContain('Your password has been saved.');
    expect(profile.text).toContain(created.email);
    expect((await signIn(org.realm, created.email, 'Mine-Passw0rd')).status).toBe(200);
    expect((await signIn(org.realm, created.email, temporary)).status).toBe(400);
  });

  test('changing a password asks for the current one and ends the other sessions', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD });
    const profile = await browser.get();
    expect(heading(profile)).toBe('Your account');
    const csrf = browser.csrfOf(profile);

    const wrong = await browser.post('password', { csrf, password: 'Not-my-passw0rd', 'password-new': 'Next-Passw0rd', 'password-confirm': 'Next-Passw0rd' });
    expect(alertOf(wrong)).toBe('Invalid e-mail or password.');

    const changed = await browser.post('password', { csrf, password: TEST_PASSWORD, 'password-new': 'Next-Passw0rd', 'password-confirm': 'Next-Passw0rd' });
    expect(changed.status).toBe(303);
    expect((await getCurrentUser(org.orgUuid, bearer(user.token))).status).toBe(401);
    expect((await signIn(org.realm, user.email, 'Next-Passw0rd')).status).toBe(200);
    expect(heading(await browser.get())).toBe('Your account');
  });

  test('signing out ends the page session; its cookie is useless afterwards', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD });
    const stolen = browser.session;
    const profile = await browser.get();

    const out = await browser.post('sign-out', { csrf: browser.csrfOf(profile) });

    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^ACCOUNT_SESSION=; .*Max-Age=0$/);
    expect(browser.session).toBeUndefined();
    expect((await browser.get('?status=signed-out')).text).toContain('You have signed out.');
    browser.session = stolen;
    expect(heading(await browser.get())).toBe(`Sign in to ${org.realm}`);
  });

  test("lists the user's offline tokens and revokes one with the page's token; a forged form revokes nothing", async () => {
    const user = await member(org, 'VIEWER');
    const kept = await offlineSignIn(user.email);
    const revoked = await offlineSignIn(user.email);
    const browser = new Browser(org.realm);
    await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD });

    const profile = await browser.get();
    expect(profile.text).toContain('<h2>Offline tokens</h2>');
    const listed = [...profile.text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1]);
    expect(listed.sort()).toEqual([kept.session_state, revoked.session_state].sort());
    expect(profile.text).toMatch(/<dt>Last used<\/dt><dd><time datetime="[^"]+Z">[^<]+ UTC<\/time><\/dd>/);
    expect(profile.text).not.toContain(kept.refresh_token);

    const forged = await browser.post('revoke-offline-token', { csrf: 'not-the-token', session: revoked.session_state });
    expect(forged.status).toBe(303);
    const stillWorking = await refresh(org.realm, revoked.refresh_token);
    expect(stillWorking.status).toBe(200);
    const { refresh_token: rotated } = (await stillWorking.json()) as { refresh_token: string };
    expect((await browser.get()).text.match(/name="session" value="([^"]+)"/g)).toHaveLength(2);

    const done = await browser.post('revoke-offline-token', { csrf: browser.csrfOf(profile), session: revoked.session_state });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('../account?kc_locale=en&status=offline-token-revoked');
    const after = await browser.get('?kc_locale=en&status=offline-token-revoked');
    expect(after.text).toContain('The offline token has been revoked.');
    expect([...after.text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1])).toEqual([kept.session_state]);
    expect((await refresh(org.realm, rotated)).status).toBe(400);
    expect((await refresh(org.realm, kept.refresh_token)).status).toBe(200);
  });

  test("a user may revoke none of another user's offline tokens from the page", async () => {
    const [user, other] = await Promise.all([member(org, 'VIEWER'), member(org, 'VIEWER')]);
    const theirs = await offlineSignIn(other.email);
    const browser = new Browser(org.realm);
    await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD });
    const profile = await browser.get();
    expect(profile.text).toContain('You have no offline tokens.');

    const attempt = await browser.post('revoke-offline-token', { csrf: browser.csrfOf(profile), session: theirs.session_state });

    expect(attempt.headers.get('location')).toBe('../account?kc_locale=en');
    expect((await refresh(org.realm, theirs.refresh_token)).status).toBe(200);
  });

  test("one realm's page session means nothing to another realm's page", async () => {
    const user = await member(org, 'VIEWER');
    const other = await freshOrganization();
    const browser = new Browser(org.realm);
    await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD });

    const elsewhere = new Browser(other.realm);
    elsewhere.session = browser.session;

    expect(heading(await elsewhere.get())).toBe(`Sign in to ${other.realm}`);
  });

  test('a form posted from another site is refused, and signs nobody in', async () => {
    const user = await member(org, 'VIEWER');
    const fields = new URLSearchParams({ username: user.email, password: TEST_PASSWORD }).toString();
    const post = (headers: Record<string, string>) =>
      send(accountUrl(org.realm, '/sign-in'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: fields, redirect: 'manual' });

    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site', origin: 'null' },
      { origin: 'https://attacker.example' },
      // A sandboxed frame or a data: page, in a browser that sends no Sec-Fetch-Site.
      { origin: 'null' },
      { 'sec-fetch-site': 'same-origin', origin: 'null' },
    ];
    for (const headers of crossSite) {
      const refused = await post(headers);
      expect(refused.status).toBe(403);
      expect(refused.headers.getSetCookie()).toEqual([]);
    }
    const ownOrigin = new URL(stack().authUrl).origin;
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: ownOrigin })).status).toBe(303);
    expect((await post({ origin: ownOrigin })).status).toBe(303);
    expect((await post({})).status).toBe(303);
  });

  test("the page's sign-in counts toward the lockout like the token endpoint's", async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    for (let i = 0; i < 5; i++) await browser.post('sign-in', { username: user.email, password: `Wrong-${i}-passw0rd` });

    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
    expect(alertOf(await browser.post('sign-in', { username: user.email, password: TEST_PASSWORD }))).toBe('Invalid e-mail or password.');
  });
});
