import { REFERENCE_PERMISSIONS, REFERENCE_POLICY } from '../../shared/edge/docs/reference-page';
import { swaggerUiFiles } from '../../shared/edge/docs/swagger-ui-files';
import { resolveRoutes } from '../../shared/edge/api/routes';
import { createTestUser, passwordToken } from '../support/auth-helpers';
import { withPage } from '../support/browser';
import { expectErrorBody, expectFieldErrors } from '../support/error-body';
import { send } from '../support/http-client';
import { stack } from '../support/stack';

/** The API reference as a client and a browser see it through the local gateway. */

const api = () => stack().apiUrl;
const subpaths = () => ({ generative: stack().generativeSubpath, user: stack().userSubpath });
/** Lambda's limit on a synchronous answer; the gateway answers 500 past it. */
const LAMBDA_ANSWER_BYTES = 6 * 1024 * 1024;

interface OpenApiDocument {
  openapi: string;
  info: { description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string }>>;
  components: { securitySchemes: Record<string, { type: string; flows?: Record<string, { authorizationUrl?: string; tokenUrl: string; refreshUrl?: string }> }> };
}

describe('GET /', () => {
  test('redirects (302) to the reference at /docs', async () => {
    const response = await send(`${api()}/`, { redirect: 'manual' });

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/docs');
    expect(response.text).toBe('');
  });
});

describe('GET /openapi.json', () => {
  test('is the OpenAPI 3.1 document of every route, with this API as its server, cacheable for 5 minutes', async () => {
    const response = await send<OpenApiDocument>(`${api()}/openapi.json`);

    expect(response.status).toBe(200);
    expect(response.contentType).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.servers).toEqual([{ url: api() }]);
    const documented = Object.entries(response.body.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => `${operation.operationId} ${method.toUpperCase()} ${path}`),
    );
    const routes = resolveRoutes(subpaths()).map((route) => `${route.id} ${route.routeKey}`);
    expect(documented.sort()).toEqual(routes.sort());
  });

  test('says how to get a token in three steps, with curl and with Authorize, and cites no source file', async () => {
    const { body } = await send<OpenApiDocument>(`${api()}/openapi.json`);

    const steps = body.info.description.split('\n').filter((line) => /^\d\. /.test(line));
    expect(steps).toHaveLength(3);
    expect(steps[1]).toContain(`curl -s ${api()}/auth/realms/<realm>/protocol/openid-connect/token -d grant_type=password`);
    expect(steps[1]).toContain('`/docs?realm=<realm>`');
    expect(steps[1]).toContain('**Authorize**');
    expect(steps[2]).toContain('Authorization: Bearer <access_token>');
    expect(body.info.description).not.toMatch(/shared\/|\.ts\b/);
    // Without a realm there is no token endpoint to name: the bearer token only.
    expect(Object.keys(body.components.securitySchemes)).toEqual(['bearerAuth']);
  });

  test("with ?realm=, its OAuth2 authorization code flow names that organization's sign-in page and token endpoint, and no password flow", async () => {
    const org = stack().orgs[0]!;
    const { body } = await send<OpenApiDocument>(`${api()}/openapi.json?realm=${org.name.toUpperCase()}`);

    const realmUrl = `${api()}/auth/realms/${org.name}/protocol/openid-connect`;
    const oauth2 = body.components.securitySchemes.oauth2!;
    expect(oauth2.type).toBe('oauth2');
    expect(oauth2.flows).toEqual({
      authorizationCode: { authorizationUrl: `${realmUrl}/auth`, tokenUrl: `${realmUrl}/token`, refreshUrl: `${realmUrl}/token`, scopes: { openid: expect.any(String) } },
    });
    expect(body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http' });
    // The token endpoint it names is the realm's, which the introduction's curl step signs in on.
    expect(body.info.description).toContain(`curl -s ${realmUrl}/token `);
    const form = { grant_type: 'password', client_id: stack().clientId, username: org.admin.email, password: org.admin.password };
    const granted = await send<{ access_token: string }>(oauth2.flows!.authorizationCode!.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    expect(granted.status).toBe(200);
    expect(granted.body.access_token).toEqual(expect.any(String));
  });

  test.each(['/openapi.json', '/docs'])('%s refuses a realm that is no organization name, naming it (422)', async (path) => {
    const response = await send(`${api()}${path}?realm=${encodeURIComponent('acme corp')}`);

    expect(expectFieldErrors(response, ['realm'])[0]!.message).toMatch(/organization's name/);
  });
});

describe('GET /docs', () => {
  test('is an HTML page under the reference policy, whose every script and style sheet is a file of /docs', async () => {
    const response = await send(`${api()}/docs`);

    expect(response.status).toBe(200);
    expect(response.contentType).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(REFERENCE_POLICY);
    expect(REFERENCE_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    const scripts = [...response.text.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attributes]) => attributes)).toEqual([' src="docs/swagger-ui-bundle.js"', ' src="docs/initializer.js"']);
    expect(scripts.every(([, , inline]) => inline === '')).toBe(true);
    expect(response.text).toContain('<link rel="stylesheet" href="docs/swagger-ui.css">');
    expect(response.text).not.toMatch(/https?:\/\/|\/\/[a-z]/i);
    // Its own Permissions-Policy, once: features Chromium knows, every one denied.
    expect(response.headers.get('permissions-policy')).toBe(REFERENCE_PERMISSIONS);
    expect(REFERENCE_PERMISSIONS.split(', ')).toEqual(expect.arrayContaining(['camera=()', 'geolocation=()', 'microphone=()', 'payment=()', 'usb=()']));
    expect(REFERENCE_PERMISSIONS).not.toMatch(/battery|document-domain|window-placement|web-share/);
    // No realm yet: the Organization field asks for one, and the document is the one without. Authorize signs in as the console's client.
    expect(response.text).toContain(`<div id="swagger-ui" data-url="openapi.json" data-client-id="${stack().clientId}"></div>`);
    expect(response.text).toMatch(/<form class="realm" action="docs" method="get">[^]*<input id="realm" name="realm" value="" required /);
  });

  test('with ?realm=, loads the document of that organization and says so', async () => {
    const response = await send(`${api()}/docs?realm=Acme`);

    expect(response.status).toBe(200);
    expect(response.text).toContain(`<div id="swagger-ui" data-url="openapi.json?realm=acme" data-client-id="${stack().clientId}"></div>`);
    expect(response.text).toContain('<input id="realm" name="realm" value="acme" required');
    expect(response.text).toContain('signs in to <strong>acme</strong>');
  });

  test.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['initializer.js', 'text/javascript; charset=utf-8'],
    ['reference.css', 'text/css; charset=utf-8'],
    ['favicon.svg', 'image/svg+xml'],
    ['oauth2-redirect.html', 'text/html; charset=utf-8'],
    ['oauth2-redirect.js', 'text/javascript; charset=utf-8'],
  ])('/docs/%s is served as %s, cacheable for a day, under the policy and Lambda’s 6 MB', async (name, contentType) => {
    const response = await send(`${api()}/docs/${name}`);

    expect(response.status).toBe(200);
    expect(response.contentType).toBe(contentType);
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(response.headers.get('content-security-policy')).toBe(REFERENCE_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.byteLength(response.text)).toBeGreaterThan(100);
    expect(Buffer.byteLength(JSON.stringify(response.text))).toBeLessThan(LAMBDA_ANSWER_BYTES);
  });

  test('serves exactly the files of swagger-ui-dist it lists', () => {
    expect(Object.keys(swaggerUiFiles).sort()).toEqual(['oauth2-redirect.js', 'swagger-ui-bundle.js', 'swagger-ui.css']);
  });

  test('/docs/oauth2-redirect.html, where the sign-in window comes back with the code, runs Swagger UI’s script as a file under the policy and sends no referrer', async () => {
    const response = await send(`${api()}/docs/oauth2-redirect.html?code=a-code&state=a-state`);

    expect(response.status).toBe(200);
    expect(response.contentType).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(REFERENCE_POLICY);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await send(`${api()}/docs`);
    // The page keeps its link to the windows it opens, and the redirect page to its opener, even after a trip through another site.
    expect(['cross-origin-opener-policy', 'cross-origin-embedder-policy'].map((name) => response.headers.get(name))).toEqual(['unsafe-none', 'require-corp']);
    expect(['cross-origin-opener-policy', 'cross-origin-embedder-policy'].map((name) => page.headers.get(name))).toEqual(['same-origin-allow-popups', 'require-corp']);
    const scripts = [...response.text.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.map(([, attributes, inline]) => [attributes, inline])).toEqual([[' src="oauth2-redirect.js"', '']]);
    // The script it names, beside it, is the one that hands the code to the reference that opened the window.
    const script = await send(`${api()}/docs/oauth2-redirect.js`);
    expect(script.status).toBe(200);
    expect(script.text).toContain('swaggerUIRedirectOauth2');
  });

  test('the initializer signs in with the authorization code flow and PKCE, coming back to the redirect page beside the page', async () => {
    const response = await send(`${api()}/docs/initializer.js`);

    expect(response.text).toContain("oauth2RedirectUrl: new URL('docs/oauth2-redirect.html', location.href).href");
    expect(response.text).toMatch(/initOAuth\(\{ clientId: root\.dataset\.clientId, usePkceWithAuthorizationCodeGrant: true, scopes: 'openid' \}\)/);
  });

  test.each(['swagger-ui.js', 'swagger-ui-bundle.js.map', 'package.json', 'index.html', '..%2Fpackage.json', '%2E%2E%2F%2E%2E%2Fpackage.json'])(
    'any other file, here %s, is the standard 404',
    async (name) => {
      const response = await send(`${api()}/docs/${name}`);

      expectErrorBody(response, { status: 404, errorCode: 'NOT_FOUND', path: `/docs/${name}` });
    },
  );
});

describe('the reference in a browser', () => {
  test("from the root, a person names the organization and finds Authorize ready to sign in to it on its sign-in page: the console's client, PKCE, back to the redirect page", async () => {
    const org = stack().orgs[0]!;
    const apiOrigin = new URL(api()).origin;

    await withPage(async (page, activity) => {
      // A shared machine's load can take Swagger UI longer than the 15 s default to render the document.
      page.setDefaultTimeout(45_000);
      await page.goto(`${api()}/`);
      expect(page.url()).toBe(`${api()}/docs`);
      await page.getByLabel('Organization').fill(org.name);
      // The address is what this step asserts; the page's load is awaited through the operation it shows.
      await Promise.all([page.waitForURL(`${api()}/docs?realm=${org.name}`, { waitUntil: 'commit' }), page.getByRole('button', { name: 'Use', exact: true }).click()]);
      await page.locator('[id="operations-users-users\\\\.identityProvider"]').waitFor();

      // Swagger UI as the initializer set it up: the window comes back beside the page, whatever its address.
      expect(await page.evaluate('window.ui.getConfigs().oauth2RedirectUrl')).toBe(`${api()}/docs/oauth2-redirect.html`);

      await page.locator('.auth-wrapper button.authorize').click();
      const oauth2 = page.locator('.modal-ux .auth-container').filter({ hasText: 'OAuth2' });
      const shown = await oauth2.textContent();
      expect(shown).toContain('authorizationCode with PKCE');
      expect(shown).toContain(`${apiOrigin}/auth/realms/${org.name}/protocol/openid-connect/auth`);
      expect(shown).toContain(`${apiOrigin}/auth/realms/${org.name}/protocol/openid-connect/token`);
      expect(await oauth2.getByLabel('client_id:').inputValue()).toBe(stack().clientId);
      expect(await oauth2.locator('#oauth_username').count()).toBe(0);
      expect(await oauth2.locator('input[type="checkbox"][data-value="openid"]').isChecked()).toBe(true);

      const origins = new Set(activity.requests.filter((url) => !url.startsWith('data:')).map((url) => new URL(url).origin));
      expect([...origins]).toEqual([apiOrigin]);
      expect(activity.errors).toEqual([]);
      expect(activity.warnings).toEqual([]);
      expect(await activity.violations()).toEqual([]);
    });
  });

  test('authorizes with a bearer token, tries users.identityProvider and shows 200 with the user, talking only to the API under its policy', async () => {
    const user = await createTestUser({ role: 'VIEWER' });
    const token = (await passwordToken(user)).access_token;
    const apiOrigin = new URL(api()).origin;

    await withPage(async (page, activity) => {
      page.setDefaultTimeout(45_000);
      await page.goto(`${api()}/docs`);
      // Swagger UI's id for the operation: its tag and operation id, the dot escaped as in CSS.
      const operation = page.locator('[id="operations-users-users\\\\.identityProvider"]');
      await operation.waitFor();

      await page.locator('.auth-wrapper button.authorize').click();
      const bearerForm = page.locator('.modal-ux .auth-container').filter({ hasText: 'bearerAuth' });
      await bearerForm.locator('input').fill(token);
      await bearerForm.locator('button.authorize').click();
      await bearerForm.locator('button.btn-done').click();

      await operation.locator('.opblock-summary-control').click();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('tr[data-param-name="orgUUID"] input').fill(user.orgUuid);
      await operation.locator('button.execute').click();

      const shown = operation.locator('.live-responses-table .response');
      await shown.first().waitFor();
      expect((await shown.locator('.response-col_status').first().textContent())?.trim()).toBe('200');
      expect(await shown.locator('.response-col_description').first().textContent()).toContain(user.email);

      // The token lives in the page only (persistAuthorization off).
      expect(await page.evaluate("window.localStorage.getItem('authorized')")).toBeNull();
      const origins = new Set(activity.requests.filter((url) => !url.startsWith('data:')).map((url) => new URL(url).origin));
      expect([...origins]).toEqual([apiOrigin]);
      expect(activity.requests).toContain(`${apiOrigin}/openapi.json`);
      expect(activity.requests).toContain(`${apiOrigin}/${stack().userSubpath}/org/${user.orgUuid}/users/identity-provider`);
      expect(activity.errors).toEqual([]);
      expect(activity.warnings).toEqual([]);
      expect(await activity.violations()).toEqual([]);

      // The policy is in force: a call to another host is refused, and reported as the checks above would see it.
      const refused = await page.evaluate("fetch('http://127.0.0.2:9/').then(() => 'sent', () => 'refused')");
      expect(refused).toBe('refused');
      expect(await activity.violations()).toEqual([{ directive: 'connect-src', blockedURI: 'http://127.0.0.2:9/' }]);
      expect(activity.errors.join('\n')).toMatch(/Content Security Policy/);
    });
  });
});
