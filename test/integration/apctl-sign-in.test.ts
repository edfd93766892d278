import { readFileSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { apctl, startApctl } from '../support/apctl';
import { Browser, decide, formOf, signInOnVerificationPage } from '../support/device-flow';
import { requestToken, stack } from '../support/stack';
import { tempDirs } from '../support/temp-dirs';

/** `apctl login` (device and browser), the stored profile, whoami, the CI variables and logout, against the local stack. */

const configHome = tempDirs('apctl-config-');

function seededAdmin() {
  const org = stack().orgs[0]!;
  return { realm: org.name, orgUuid: org.uuid, email: org.admin.email, password: org.admin.password };
}

async function offlineToken(scope = 'offline_access'): Promise<string> {
  const admin = seededAdmin();
  const response = await requestToken(admin.realm, {
    grant_type: 'password',
    client_id: stack().clientId,
    username: admin.email,
    password: admin.password,
    scope,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { refresh_token: string }).refresh_token;
}

describe('apctl login', () => {
  test('--device prints the address and code, waits for the approval on the verification page, and keeps the profile (with the organization userinfo names) readable by its owner only', async () => {
    const home = configHome();
    const admin = seededAdmin();
    const login = startApctl(['login', '--api', stack().apiUrl, '--realm', admin.realm, '--device', '--profile', 'laptop'], { configHome: home });

    const [, address, code] = await login.waitForStderr(/open (\S+) and enter the code (\S+)/);
    const browser = new Browser();
    const consent = await signInOnVerificationPage(browser, `${address}`, code!, admin);
    const decided = await decide(browser, consent, 'approve');
    const finished = await login.done;

    expect(decided.status).toBeLessThan(400);
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain(`Signed in as ${admin.email}`);
    const file = join(home, 'apctl', 'laptop.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'apctl')).mode & 0o077).toBe(0);
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(profile).toMatchObject({ apiUrl: stack().apiUrl, realm: admin.realm, clientId: stack().clientId, org: admin.orgUuid, email: admin.email });
    expect(profile.offlineToken).toMatch(/^ey/);
    expect(profile.webhookSecret).toMatch(/^whsec_/);
    expect(finished.stdout + finished.stderr).not.toContain(profile.offlineToken);

    const me = await apctl(['whoami', '--json', '--profile', 'laptop'], { configHome: home });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ email: admin.email, realm: admin.realm, org: admin.orgUuid, role: 'ADMIN' });
  });

  test('opens the authorization code flow with PKCE and a loopback redirect, which the browser comes back to', async () => {
    const home = configHome();
    const admin = seededAdmin();
    const login = startApctl(['login', '--api', stack().apiUrl, '--realm', admin.realm, '--no-browser'], { configHome: home });

    const [, address] = await login.waitForStderr(/visit:\s+(\S+)/);
    const request = new URL(address!);
    const browser = new Browser();
    const page = await browser.get(request.toString());
    const signIn = formOf(await page.text(), request.toString());
    const back = await browser.post(signIn.action, { ...signIn.fields, username: admin.email, password: admin.password });
    const callback = back.headers.get('location')!;
    const landing = await fetch(callback);
    const finished = await login.done;

    expect(request.searchParams.get('code_challenge_method')).toBe('S256');
    expect(request.searchParams.get('scope')).toBe('openid organization offline_access');
    expect(request.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(back.status).toBe(303);
    expect(callback.startsWith(request.searchParams.get('redirect_uri')!)).toBe(true);
    expect(landing.status).toBe(200);
    expect(finished.code).toBe(0);
    expect(statSync(join(home, 'apctl', 'default.json')).mode & 0o777).toBe(0o600);

    // Without --org, the organization is the one the realm's userinfo names for the signed-in user.
    const me = await apctl(['whoami'], { configHome: home });
    expect(me.code).toBe(0);
    expect(me.stdout).toContain(admin.email);
    expect(me.stdout).toContain(`(${admin.orgUuid})`);
    expect(me.stdout).toContain('role: ADMIN');
  });

  test('a redirect carrying another state is refused and the sign-in goes on; the real one then completes it', async () => {
    const home = configHome();
    const admin = seededAdmin();
    const login = startApctl(['login', '--api', stack().apiUrl, '--realm', admin.realm, '--no-browser'], { configHome: home });
    const [, address] = await login.waitForStderr(/visit:\s+(\S+)/);
    const request = new URL(address!);
    const redirectUri = request.searchParams.get('redirect_uri')!;

    // As another tab or a link sent to the user would: its own connection, closed after the answer.
    const forged = await new Promise<number>((resolve, reject) =>
      get(`${redirectUri}?code=forged&state=not-the-one-apctl-sent`, { agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      }).on('error', reject),
    );
    const browser = new Browser();
    const page = await browser.get(request.toString());
    const signIn = formOf(await page.text(), request.toString());
    const back = await browser.post(signIn.action, { ...signIn.fields, username: admin.email, password: admin.password });
    const landing = await fetch(back.headers.get('location')!);
    const finished = await login.done;

    expect(forged).toBe(400);
    expect(landing.status).toBe(200);
    expect(finished.code).toBe(0);
    expect(statSync(join(home, 'apctl', 'default.json')).mode & 0o777).toBe(0o600);
  });

  test("an answer naming another issuer (RFC 9207's iss) is refused, and nothing is stored", async () => {
    const home = configHome();
    const admin = seededAdmin();
    const login = startApctl(['login', '--api', stack().apiUrl, '--realm', admin.realm, '--no-browser'], { configHome: home });
    const [, address] = await login.waitForStderr(/visit:\s+(\S+)/);
    const request = new URL(address!);
    const callback = new URL(request.searchParams.get('redirect_uri')!);
    callback.search = new URLSearchParams({ code: 'from-elsewhere', state: request.searchParams.get('state')!, iss: 'https://idp.attacker.example/auth/realms/acme' }).toString();

    const landing = await fetch(callback);
    const finished = await login.done;

    expect(landing.status).toBe(400);
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('names the issuer https://idp.attacker.example/auth/realms/acme');
    expect(() => statSync(join(home, 'apctl', 'default.json'))).toThrow();
  });

  test('an unknown realm is refused with what to check, and nothing is stored', async () => {
    const home = configHome();
    const login = await apctl(['login', '--api', stack().apiUrl, '--realm', 'no-such-realm-here', '--device'], { configHome: home });

    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/realm/i);
    expect(login.stderr).not.toMatch(/\n\s+at /);
    expect(() => statSync(join(home, 'apctl', 'default.json'))).toThrow();
  });
});

describe('apctl in CI', () => {
  test('APCTL_API_URL, APCTL_REALM and APCTL_OFFLINE_TOKEN replace the profile', async () => {
    const admin = seededAdmin();
    const env = { APCTL_API_URL: stack().apiUrl, APCTL_REALM: admin.realm, APCTL_OFFLINE_TOKEN: await offlineToken(), APCTL_ORG: admin.orgUuid };

    const me = await apctl(['whoami', '--json'], { configHome: configHome(), env });

    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ email: admin.email, org: admin.orgUuid, role: 'ADMIN' });
    expect(me.stdout + me.stderr).not.toContain(env.APCTL_OFFLINE_TOKEN);
  });

  test('an offline token granted the scope organization needs no APCTL_ORG: the organization is the one userinfo names', async () => {
    const admin = seededAdmin();
    const env = { APCTL_API_URL: stack().apiUrl, APCTL_REALM: admin.realm, APCTL_OFFLINE_TOKEN: await offlineToken('offline_access organization') };

    const me = await apctl(['whoami', '--json'], { configHome: configHome(), env });

    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ email: admin.email, org: admin.orgUuid, role: 'ADMIN' });
  });

  test('an offline token without that scope and no APCTL_ORG: whoami says how to name the organization', async () => {
    const admin = seededAdmin();
    const env = { APCTL_API_URL: stack().apiUrl, APCTL_REALM: admin.realm, APCTL_OFFLINE_TOKEN: await offlineToken() };

    const me = await apctl(['whoami'], { configHome: configHome(), env });

    expect(me.code).toBe(0);
    expect(me.stdout).toContain('APCTL_ORG');
  });

  test('without a profile or the variables, a command says how to sign in (exit 1)', async () => {
    const me = await apctl(['whoami'], { configHome: configHome() });

    expect(me.code).toBe(1);
    expect(me.stderr).toContain('apctl login');
    expect(me.stderr).toContain('APCTL_OFFLINE_TOKEN');
  });

  test('a token that is no longer valid says to sign in again', async () => {
    const admin = seededAdmin();
    const token = await offlineToken();
    await requestToken(admin.realm, { grant_type: 'refresh_token', client_id: stack().clientId, refresh_token: token });
    const revoke = await fetch(`${stack().authUrl}/auth/realms/${admin.realm}/protocol/openid-connect/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: stack().clientId }),
    });
    expect(revoke.status).toBe(200);

    const me = await apctl(['whoami'], { configHome: configHome(), env: { APCTL_API_URL: stack().apiUrl, APCTL_REALM: admin.realm, APCTL_OFFLINE_TOKEN: token } });

    expect(me.code).toBe(1);
    expect(me.stderr).toContain('apctl login');
  });
});

describe('apctl logout', () => {
  test('revokes the offline token and deletes the profile', async () => {
    const home = configHome();
    const admin = seededAdmin();
    const login = startApctl(['login', '--api', stack().apiUrl, '--realm', admin.realm, '--device', '--org', admin.orgUuid], { configHome: home });
    const [, address, code] = await login.waitForStderr(/open (\S+) and enter the code (\S+)/);
    const browser = new Browser();
    await decide(browser, await signInOnVerificationPage(browser, address!, code!, admin), 'approve');
    expect((await login.done).code).toBe(0);
    const token = (JSON.parse(readFileSync(join(home, 'apctl', 'default.json'), 'utf8')) as { offlineToken: string }).offlineToken;

    const out = await apctl(['logout'], { configHome: home });
    const refresh = await requestToken(admin.realm, { grant_type: 'refresh_token', client_id: stack().clientId, refresh_token: token });

    expect(out.code).toBe(0);
    expect(() => statSync(join(home, 'apctl', 'default.json'))).toThrow();
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
