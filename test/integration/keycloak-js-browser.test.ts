import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestUser } from '../support/auth-helpers';
import { withPage } from '../support/browser';
import { stack } from '../support/stack';
import { refresh } from '../support/user-helpers';

/**
 * A single-page application on its own origin signs in with keycloak-js, unmodified, in a real headless
 * Chromium, with its defaults: the third-party cookie check (answered `unsupported`, so no login-status
 * iframe), the authorization code flow with S256, the answer in the fragment, the token endpoint called
 * from the page with credentials, logout through the end-session endpoint; after a reload, signed in
 * again through the realm session without the sign-in page (`login-required` and `check-sso`).
 */

jest.setTimeout(90_000);

const load = process.getBuiltinModule('node:module').createRequire(__filename);
const keycloakJs = readFileSync(load.resolve('keycloak-js'), 'utf8');

/** The application: keycloak-js from its own origin, and a page that signs in, refreshes and shows what it got. */
function appPage(authUrl: string, realm: string, clientId: string, logoutMethod: 'GET' | 'POST'): string {
  const settings = JSON.stringify({ url: authUrl, realm, clientId });
  return `<!doctype html><html><head><meta charset="utf-8"><title>starting</title></head><body><script type="module">
import Keycloak from './keycloak.js';
const keycloak = new Keycloak(${settings});
if (location.search === '?signed-out') {
  document.title = 'signed out';
} else try {
  const authenticated = await keycloak.init({ onLoad: 'login-required' });
  const first = keycloak.token;
  const refreshed = await keycloak.updateToken(-1);
  window.signedIn = { authenticated, subject: keycloak.subject, email: keycloak.idTokenParsed.email, refreshed, renewed: keycloak.token !== first };
  window.signOut = () => keycloak.logout({ redirectUri: location.origin + '/app.html?signed-out', logoutMethod: '${logoutMethod}' });
  localStorage.setItem('refreshToken', keycloak.refreshToken);
  document.title = 'signed in';
} catch (error) {
  document.title = 'failed: ' + (error && error.message || error);
}
</script></body></html>`;
}

/** Serves the application on loopback (a developer's origin, allowed by every deployment), on a free port. */
async function startApp(page: (origin: string) => string): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    if (request.url === '/keycloak.js') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(keycloakJs);
    if (request.url?.startsWith('/app.html')) return void response.writeHead(200, { 'content-type': 'text/html' }).end(page(origin));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

test.each(['GET', 'POST'] as const)('keycloak-js signs a user in from another origin, exchanges the code from the page, refreshes the token, and signs out (logoutMethod %s)', async (logoutMethod) => {
  const user = await createTestUser({ role: 'VIEWER' });
  const authUrl = `${new URL(stack().authUrl).origin}/auth`;
  const app = await startApp(() => appPage(authUrl, user.realm, stack().clientId, logoutMethod));
  try {
    await withPage(async (page, activity) => {
      page.setDefaultTimeout(30_000);
      await page.goto(`${app.origin}/app.html`);
      // keycloak-js sent the browser to the realm's sign-in page, answer in the fragment.
      await page.locator('input[name="username"]').waitFor();
      const asked = new URL(page.url()).searchParams;
      expect(Object.fromEntries(['response_type', 'response_mode', 'client_id', 'redirect_uri', 'code_challenge_method'].map((name) => [name, asked.get(name)]))).toEqual({
        response_type: 'code',
        response_mode: 'fragment',
        client_id: stack().clientId,
        redirect_uri: `${app.origin}/app.html`,
        code_challenge_method: 'S256',
      });
      await page.locator('input[name="username"]').fill(user.email);
      await page.locator('input[name="password"]').fill(user.password);
      await page.locator('form button, form input[type="submit"]').first().click();

      await page.waitForFunction("document.title !== 'starting'", undefined, { timeout: 30_000 });
      expect(await page.title()).toBe('signed in');
      expect(await page.evaluate('window.signedIn')).toEqual({ authenticated: true, subject: user.user.uuid, email: user.email, refreshed: true, renewed: true });
      // The code and the refresh went to the token endpoint from the page (CORS), never through another server.
      expect(activity.requests.filter((url) => url.endsWith('/protocol/openid-connect/token'))).toHaveLength(2);
      expect(activity.errors).toEqual([]);
      expect(activity.requests).toContain(`${authUrl}/realms/${user.realm}/protocol/openid-connect/3p-cookies/step1.html`);

      // Its logout goes through the realm's end-session endpoint, which ends the session and sends the browser back.
      const refreshToken = (await page.evaluate("localStorage.getItem('refreshToken')")) as string;
      await page.evaluate('window.signOut()');
      await page.waitForURL(`${app.origin}/app.html?signed-out`);
      await page.waitForFunction("document.title === 'signed out'");
      expect(activity.requests.some((url) => url.startsWith(`${authUrl}/realms/${user.realm}/protocol/openid-connect/logout`))).toBe(true);
      expect((await refresh(user.realm, refreshToken)).status).toBe(400);
    });
  } finally {
    await new Promise((resolve) => app.server.close(resolve));
  }
});

/** An application that starts keycloak-js with `onLoad` and its other defaults, and says whether it is signed in. */
function sessionAppPage(authUrl: string, realm: string, clientId: string, onLoad: 'login-required' | 'check-sso'): string {
  const settings = JSON.stringify({ url: authUrl, realm, clientId });
  return `<!doctype html><html><head><meta charset="utf-8"><title>starting</title></head><body><script type="module">
import Keycloak from './keycloak.js';
const keycloak = new Keycloak(${settings});
try {
  const authenticated = await keycloak.init({ onLoad: '${onLoad}' });
  window.login = () => keycloak.login();
  window.state = { authenticated, subject: keycloak.subject ?? null, authTime: keycloak.idTokenParsed?.auth_time ?? null };
  document.title = authenticated ? 'signed in' : 'anonymous';
} catch (error) {
  document.title = 'failed: ' + (error && error.message || error);
}
</script></body></html>`;
}

test.each(['login-required', 'check-sso'] as const)("keycloak-js (onLoad '%s') is signed in again after a reload, through the realm session, without the sign-in form", async (onLoad) => {
  const user = await createTestUser({ role: 'VIEWER' });
  const authUrl = `${new URL(stack().authUrl).origin}/auth`;
  const app = await startApp(() => sessionAppPage(authUrl, user.realm, stack().clientId, onLoad));
  const signInPosts = (requests: string[]) => requests.filter((url) => url.includes('/login-actions/authenticate')).length;
  try {
    await withPage(async (page, activity) => {
      page.setDefaultTimeout(30_000);
      await page.goto(`${app.origin}/app.html`);
      if (onLoad === 'check-sso') {
        // No realm session yet: keycloak-js's silent check (prompt=none) answers login_required, and the application runs anonymous.
        await page.waitForFunction("document.title !== 'starting'");
        expect(await page.title()).toBe('anonymous');
        expect(activity.requests.some((url) => url.includes('/protocol/openid-connect/auth?') && url.includes('prompt=none'))).toBe(true);
        // keycloak.login() navigates away: started after evaluate returns.
        await page.evaluate('void setTimeout(() => window.login(), 0)');
      }
      await page.locator('input[name="username"]').fill(user.email);
      await page.locator('input[name="password"]').fill(user.password);
      await page.locator('form button, form input[type="submit"]').first().click();
      await page.waitForFunction("document.title === 'signed in'");
      const first = (await page.evaluate('window.state')) as { authTime: number };
      expect(signInPosts(activity.requests)).toBe(1);

      const before = activity.requests.length;
      await page.reload();
      await page.waitForFunction("document.title !== 'starting'");

      expect(await page.title()).toBe('signed in');
      expect(await page.evaluate('window.state')).toEqual({ authenticated: true, subject: user.user.uuid, authTime: first.authTime });
      const afterReload = activity.requests.slice(before);
      // Back through the authorization endpoint, answered at once: no sign-in page was posted.
      expect(afterReload.some((url) => url.startsWith(`${authUrl}/realms/${user.realm}/protocol/openid-connect/auth?`))).toBe(true);
      expect(signInPosts(afterReload)).toBe(0);
      expect(activity.errors).toEqual([]);
    });
  } finally {
    await new Promise((resolve) => app.server.close(resolve));
  }
});
