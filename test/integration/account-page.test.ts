import { PAGE_POLICY } from '../../shared/kernel/html/layout';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { bearer, getCurrentUser, TEST_PASSWORD } from '../support/auth-helpers';
import { CookieJar, formOf, signInThroughPage } from '../support/cookie-jar';
import { send, type ApiResponse } from '../support/http-client';
import { requestToken, stack } from '../support/stack';
import { createViaApi, freshOrganization, member, onlyMailTo, refresh, signIn, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The account page over HTTP, as a browser without script would use it (the Chromium test is in
 * account-browser). The page signs its people in through the realm's authorization flow.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const accountUrl = (realm: string, path = '', query = '') => `${stack().authUrl}/auth/realms/${realm}/account${path}${query}`;

/** A browser (a cookie jar) on one realm's page. */
class Browser {
  readonly jar = new CookieJar();
  constructor(private readonly realm: string) {}

  get(query = '', headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.jar.request(accountUrl(this.realm, '', query), { headers });
  }

  post(form: string, fields: Record<string, string>): Promise<ApiResponse> {
    return this.jar.post(accountUrl(this.realm, `/${form}`), fields);
  }

  /** Opens the page and signs in on the realm's sign-in page it leads to; answers the form's answer. */
  async signInOnPage(email: string, password: string, query = ''): Promise<{ response: ApiResponse; location?: URL }> {
    return signInThroughPage(this.jar, accountUrl(this.realm, '', query), email, password);
  }

  /** Signs in through the flow and comes back to the page (`…/account/sso`, which reloads the page). */
  async signIn(email: string, password: string = TEST_PASSWORD): Promise<ApiResponse> {
    const { response, location } = await this.signInOnPage(email, password);
    if (!location) throw new Error(`The sign-in did not succeed: ${response.status}`);
    return (await this.jar.follow(location.toString())).response;
  }

  /** The page's CSRF token, from the last page shown. */
  csrfOf(page: ApiResponse): string {
    const token = page.text.match(/name="csrf" value="([^"]+)"/)?.[1];
    if (!token) throw new Error('The page has no form token');
    return token;
  }

  get session(): string | undefined {
    return this.jar.value('ACCOUNT_SESSION');
  }

  set session(value: string) {
    this.jar.set('ACCOUNT_SESSION', value, `/auth/realms/${this.realm}/account`);
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
  test("without a session, sends the browser to the realm's sign-in as its own client, in the language asked for", async () => {
    const browser = new Browser(org.realm);

    const away = await browser.get('?kc_locale=ja');

    expect(away.status).toBe(303);
    expect(away.headers.get('cache-control')).toBe('no-store');
    const location = new URL(away.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${stack().authUrl}/auth/realms/${org.realm}/protocol/openid-connect/auth`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'account-console',
      redirect_uri: accountUrl(org.realm, '/sso'),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      kc_locale: 'ja',
      state: 'ja',
    });
    // The verifier stays with the browser, for the page's return only.
    expect(away.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^ACCOUNT_SSO=[A-Za-z0-9_-]{43}; Path=/auth/realms/${org.realm}/account; HttpOnly; SameSite=Lax; Max-Age=900$`))]);
    const signInPage = await browser.jar.request(location.toString());
    expect(signInPage.status).toBe(200);
    expect(signInPage.text).toContain('<html lang="ja">');
    expect(new URL((await browser.get('', { 'accept-language': 'fr-FR, pt-BR;q=0.9, es;q=0.8' })).headers.get('location')!).searchParams.get('kc_locale')).toBe('pt');
  });

  test('shows its pages under a strict policy, in the language asked for', async () => {
    const browser = new Browser(org.realm);

    const page = await browser.get('?status=signed-out');

    expect(page.status).toBe(200);
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(PAGE_POLICY).toMatch(/default-src 'none'/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<html lang="en">');
    expect(heading(page)).toBe(`Sign in to ${org.realm}`);
    expect(page.text).not.toMatch(/<script|https?:\/\/|type="password"/);

    expect(heading(await browser.get('?kc_locale=ja&status=signed-out'))).toBe(`${org.realm} にサインイン`);
    expect((await browser.get('?status=signed-out', { 'accept-language': 'fr-FR, pt-BR;q=0.9, es;q=0.8' })).text).toContain('<html lang="pt">');
    expect((await browser.get('?kc_locale=xx&status=signed-out', { 'accept-language': 'es' })).text).toContain('<html lang="es">');
  });

  test('an unknown realm is a 404', async () => {
    const page = await send(accountUrl('no-such-realm-anywhere'));
    expect(page.status).toBe(404);
  });

  test('a wrong password shows the sign-in page again with the error, and no session', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);

    const { response: page } = await browser.signInOnPage(user.email, 'Wrong-passw0rd');

    expect(page.status).toBe(200);
    expect(alertOf(page)).toBe('Invalid e-mail or password.');
    expect(page.text).toContain(`value="${user.email}"`);
    expect(browser.session).toBeUndefined();
    expect(browser.jar.value('REALM_SESSION')).toBeUndefined();
  });

  test('a new user with a temporary password chooses its own on the way, then signs in everywhere', async () => {
    const created = await createViaApi(org, { email: uniqueEmail('page'), password: undefined, confirmPassword: undefined });
    const mail = await onlyMailTo(created.email);
    const temporary = mail.body.text!.match(/^Temporary password: (.+)$/m)![1]!;
    const link = mail.body.text!.match(/^Sign-in address: (.+)$/m)![1]!;
    expect(link).toBe(accountUrl(org.realm, '', '?kc_locale=en'));
    const browser = new Browser(org.realm);

    const { response: setPassword } = await browser.signInOnPage(created.email, temporary, '?kc_locale=en');
    expect(setPassword.status).toBe(200);
    expect(setPassword.text).toContain('name="password-new"');
    expect(browser.session).toBeUndefined();
    const form = formOf(setPassword.text, accountUrl(org.realm, '/../login-actions/authenticate'));

    const mismatch = await browser.jar.post(form.action, { ...form.fields, 'password-new': 'Mine-Passw0rd', 'password-confirm': 'Other-Passw0rd' });
    expect(alertOf(mismatch)).toBe('The two new passwords do not match.');
    const weak = await browser.jar.post(form.action, { ...form.fields, 'password-new': 'short', 'password-confirm': 'short' });
    expect(alertOf(weak)).toBe('The new password does not follow the password rule.');
    const reused = await browser.jar.post(form.action, { ...form.fields, 'password-new': temporary, 'password-confirm': temporary });
    expect(alertOf(reused)).toBe('Choose a password other than the temporary one.');
    expect((await signIn(org.realm, created.email, 'Mine-Passw0rd')).status).toBe(400);

    const saved = await browser.jar.post(form.action, { ...form.fields, 'password-new': 'Mine-Passw0rd', 'password-confirm': 'Mine-Passw0rd' });
    expect(saved.status).toBe(303);
    const back = new URL(saved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(accountUrl(org.realm, '/sso'));
    const reload = await browser.jar.follow(back.toString());
    expect(reload.response.text).toContain('<meta http-equiv="refresh" content="0;url=../account?kc_locale=en">');
    expect(browser.jar.line('ACCOUNT_SESSION')).toMatch(new RegExp(`^ACCOUNT_SESSION=[^;]+; Path=/auth/realms/${org.realm}/account; HttpOnly; SameSite=Strict; Max-Age=1800$`));

    const profile = await browser.get('?kc_locale=en');
    expect(heading(profile)).toBe('Your account');
    expect(profile.text).toContain(created.email);
    expect((await signIn(org.realm, created.email, 'Mine-Passw0rd')).status).toBe(200);
    expect((await signIn(org.realm, created.email, temporary)).status).toBe(400);
  });

  test('changing a password asks for the current one and ends the other sessions', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.signIn(user.email);
    const profile = await browser.get();
    expect(heading(profile)).toBe('Your account');
    const csrf = browser.csrfOf(profile);
    const forged = await browser.post('password', { csrf: 'not-the-token', password: TEST_PASSWORD, 'password-new': 'Next-Passw0rd', 'password-confirm': 'Next-Passw0rd' });
    expect(forged.status).toBe(303);
    expect((await signIn(org.realm, user.email, 'Next-Passw0rd')).status).toBe(400);

    const wrong = await browser.post('password', { csrf, password: 'Not-my-passw0rd', 'password-new': 'Next-Passw0rd', 'password-confirm': 'Next-Passw0rd' });
    expect(alertOf(wrong)).toBe('Invalid e-mail or password.');

    const changed = await browser.post('password', { csrf, password: TEST_PASSWORD, 'password-new': 'Next-Passw0rd', 'password-confirm': 'Next-Passw0rd' });
    expect(changed.status).toBe(303);
    expect((await getCurrentUser(org.orgUuid, bearer(user.token))).status).toBe(401);
    expect((await signIn(org.realm, user.email, 'Next-Passw0rd')).status).toBe(200);
    expect(heading(await browser.get())).toBe('Your account');
  });

  test("signing out ends the page session and the realm's; their cookies are useless afterwards", async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.signIn(user.email);
    const stolen = browser.session!;
    const stolenRealm = browser.jar.value('REALM_SESSION')!;
    const profile = await browser.get();

    const out = await browser.post('sign-out', { csrf: browser.csrfOf(profile) });

    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^ACCOUNT_SESSION=; .*Max-Age=0$/),
      `REALM_SESSION=; Path=/auth/realms/${org.realm}/; HttpOnly; SameSite=Lax; Max-Age=0`,
    ]);
    expect(browser.session).toBeUndefined();
    expect((await browser.get('?status=signed-out')).text).toContain('You have signed out.');
    browser.session = stolen;
    browser.jar.set('REALM_SESSION', stolenRealm, `/auth/realms/${org.realm}/`);
    // Neither opens the page: it goes to the realm's sign-in, which asks for the password.
    const again = await browser.jar.follow(accountUrl(org.realm));
    expect(again.url).toContain('/protocol/openid-connect/auth?');
    expect(again.response.text).toContain('name="password"');
  });

  test("a page session older than the user's last credential change is over, even where no revocation ran", async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.signIn(user.email);
    expect(heading(await browser.get())).toBe('Your account');

    const stamped = await updateItem({
      Key: keys.userKey(org.orgUuid, user.uuid),
      UpdateExpression: 'SET credentialsChangedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': Date.now() },
    });
    expect(stamped).toBe(true);

    const after = await browser.get();
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toContain('/protocol/openid-connect/auth?');
  });

  test('with a live realm session, the page opens without a password', async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    await browser.signIn(user.email);
    const realmSession = browser.jar.value('REALM_SESSION')!;

    // A new page session (another tab, a cookie gone), the same browser's realm session.
    const fresh = new Browser(org.realm);
    fresh.jar.set('REALM_SESSION', realmSession, `/auth/realms/${org.realm}/`);
    const trip = await fresh.jar.follow(accountUrl(org.realm));
    expect(trip.url).toContain('/account/sso?code=');
    const profile = await fresh.get();

    expect(heading(profile)).toBe('Your account');
    expect(profile.text).toContain(user.email);
  });

  test("the page's return refuses a code without the browser's verifier; a code used twice ends the page session it began", async () => {
    const user = await member(org, 'VIEWER');
    const browser = new Browser(org.realm);
    const { location } = await browser.signInOnPage(user.email, TEST_PASSWORD);
    const verifier = browser.jar.value('ACCOUNT_SSO')!;

    // Another browser (a page of an attacker's sending the victim's code there) lacks the verifier's cookie.
    const elsewhere = new Browser(org.realm);
    const refused = await elsewhere.jar.request(location!.toString());
    expect(refused.status).toBe(200);
    expect(alertOf(refused)).toBeDefined();
    expect(elsewhere.session).toBeUndefined();

    await browser.jar.request(location!.toString());
    expect(heading(await browser.get())).toBe('Your account');
    // The same code again, verifier and all: refused, and the session it began is over.
    const replay = new Browser(org.realm);
    replay.jar.set('ACCOUNT_SSO', verifier, `/auth/realms/${org.realm}/account`);
    await replay.jar.request(location!.toString());
    expect(replay.session).toBeUndefined();
    expect((await browser.get()).status).toBe(303);
  });

  test("lists the user's offline tokens and revokes one with the page's token; a forged form revokes nothing", async () => {
    const user = await member(org, 'VIEWER');
    const kept = await offlineSignIn(user.email);
    const revoked = await offlineSignIn(user.email);
    const browser = new Browser(org.realm);
    await browser.signIn(user.email);

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
    await browser.signIn(user.email);
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
    await browser.signIn(user.email);

    const elsewhere = new Browser(other.realm);
    elsewhere.session = browser.session!;

    const away = await elsewhere.get();
    expect(away.status).toBe(303);
    expect(away.headers.get('location')).toContain(`/auth/realms/${other.realm}/protocol/openid-connect/auth?`);
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
    for (let i = 0; i < 5; i++) await browser.signInOnPage(user.email, `Wrong-${i}-passw0rd`);

    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
    expect(alertOf((await browser.signInOnPage(user.email, TEST_PASSWORD)).response)).toBe('Invalid e-mail or password.');
  });
});
