import { REFERENCE_POLICY } from '../../shared/docs/reference-page';
import { swaggerUiFiles } from '../../shared/docs/swagger-ui-files';
import { resolveRoutes } from '../../shared/routes';
import { createTestUser, passwordToken } from '../support/auth-helpers';
import { withPage } from '../support/browser';
import { expectErrorBody } from '../support/error-body';
import { send } from '../support/http-client';
import { stack } from '../support/stack';

/** The API reference as a client and a browser see it through the local gateway. */

const api = () => stack().apiUrl;
const subpaths = () => ({ generative: stack().generativeSubpath, user: stack().userSubpath });
/** Lambda's limit on a synchronous answer; the gateway answers 500 past it. */
const LAMBDA_ANSWER_BYTES = 6 * 1024 * 1024;

interface OpenApiDocument {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string }>>;
}

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
  });

  test.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['initializer.js', 'text/javascript; charset=utf-8'],
    ['favicon.svg', 'image/svg+xml'],
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
    expect(Object.keys(swaggerUiFiles).sort()).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css']);
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
  test('authorizes with a bearer token, tries users.identityProvider and shows 200 with the user, talking only to the API under its policy', async () => {
    const user = await createTestUser({ role: 'VIEWER' });
    const token = (await passwordToken(user)).access_token;
    const apiOrigin = new URL(api()).origin;

    await withPage(async (page, activity) => {
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
      expect(await activity.violations()).toEqual([]);

      // The policy is in force: a call to another host is refused, and reported as the checks above would see it.
      const refused = await page.evaluate("fetch('http://127.0.0.2:9/').then(() => 'sent', () => 'refused')");
      expect(refused).toBe('refused');
      expect(await activity.violations()).toEqual([{ directive: 'connect-src', blockedURI: 'http://127.0.0.2:9/' }]);
      expect(activity.errors.join('\n')).toMatch(/Content Security Policy/);
    });
  });
});
