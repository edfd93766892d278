import type { Request, Response } from 'playwright-core';
import { TEST_PASSWORD, createTestUser } from '../support/auth-helpers';
import { withPage } from '../support/browser';
import { stack, unique, userArea } from '../support/stack';
import { registrationOf, startTestProvider } from '../support/test-oidc-provider';
import { createViaApi, freshOrganization } from '../support/user-helpers';

/**
 * Signing in from the API reference, in a real headless Chromium: Authorize opens the organization's
 * sign-in page in a window (the authorization code flow with PKCE, as the console's public client),
 * the user signs in there, the window comes back to `/docs/oauth2-redirect.html` and closes, Swagger UI
 * exchanges the code for a token, and "Try it out" sends it.
 */

jest.setTimeout(90_000);

const api = () => stack().apiUrl;

test('a user opens the reference for its organization, signs in on the sign-in page under Authorize, and tries users.identityProvider: 200', async () => {
  const user = await createTestUser({ role: 'VIEWER' });
  const apiOrigin = new URL(api()).origin;
  const realmUrl = `${apiOrigin}/auth/realms/${user.realm}/protocol/openid-connect`;
  const redirectUrl = `${api()}/docs/oauth2-redirect.html`;
  const identityUrl = `${apiOrigin}/${stack().userSubpath}/org/${user.orgUuid}/users/identity-provider`;

  await withPage(async (page, activity) => {
    // A shared machine's load can take Swagger UI longer than the 15 s default to render the document.
    page.setDefaultTimeout(45_000);
    // Every request of the page and of the window it opens.
    const everyRequest: string[] = [];
    page.context().on('request', (request) => everyRequest.push(request.url()));
    await page.goto(`${api()}/docs?realm=${user.realm}`);
    // Swagger UI's id for the operation: its tag and operation id, the dot escaped as in CSS.
    const operation = page.locator('[id="operations-users-users\\\\.identityProvider"]');
    await operation.waitFor();

    await page.locator('.auth-wrapper button.authorize').click();
    const oauth2 = page.locator('.modal-ux .auth-container').filter({ hasText: 'OAuth2' });
    expect(await oauth2.getByLabel('client_id:').inputValue()).toBe(stack().clientId);
    const signInAnswer = page.context().waitForEvent('response', (response: Response) => response.url().startsWith(`${realmUrl}/auth?`));
    const [popup] = await Promise.all([page.waitForEvent('popup'), oauth2.locator('button.authorize').click()]);

    // The window asks the realm's authorization endpoint for a code, for the console, with a PKCE challenge, back to the redirect page.
    const signInPage = await signInAnswer;
    const asked = new URL(signInPage.url()).searchParams;
    expect(Object.fromEntries(['response_type', 'client_id', 'redirect_uri', 'scope', 'code_challenge_method'].map((name) => [name, asked.get(name)]))).toEqual({
      response_type: 'code',
      client_id: stack().clientId,
      redirect_uri: redirectUrl,
      scope: 'openid',
      code_challenge_method: 'S256',
    });
    expect(asked.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(asked.get('state')).toEqual(expect.any(String));
    expect(signInPage.status()).toBe(200);
    await popup.waitForLoadState();

    // The user signs in there; the window comes back with the code, hands it over and closes, and the page exchanges it.
    await popup.locator('input[name="username"]').fill(user.email);
    await popup.locator('input[name="password"]').fill(user.password);
    const signInForm = popup.locator('form', { has: popup.locator('input[name="password"]') });
    const [tokenRequest] = await Promise.all([
      page.waitForRequest((request: Request) => request.url() === `${realmUrl}/token` && request.method() === 'POST'),
      popup.waitForEvent('close'),
      signInForm.locator('button, input[type="submit"]').first().click(),
    ]);
    const form = new URLSearchParams(tokenRequest.postData() ?? '');
    expect(Object.fromEntries(['grant_type', 'client_id', 'redirect_uri'].map((name) => [name, form.get(name)]))).toEqual({
      grant_type: 'authorization_code',
      client_id: stack().clientId,
      redirect_uri: redirectUrl,
    });
    expect(form.get('code')).toEqual(expect.any(String));
    expect(form.get('code_verifier')).toMatch(/^[\w.~-]{43,128}$/);
    expect(form.has('client_secret')).toBe(false);
    expect((await tokenRequest.response())?.status()).toBe(200);

    // Swagger UI shows the scheme as authorized.
    await oauth2.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await oauth2.getByRole('button', { name: 'Close' }).click();

    await operation.locator('.opblock-summary-control').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name="orgUUID"] input').fill(user.orgUuid);
    const [call] = await Promise.all([page.waitForRequest(identityUrl), operation.locator('button.execute').click()]);
    expect(call.headers().authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);

    const shown = operation.locator('.live-responses-table .response');
    await shown.first().waitFor();
    expect((await shown.locator('.response-col_status').first().textContent())?.trim()).toBe('200');
    expect(await shown.locator('.response-col_description').first().textContent()).toContain(user.email);

    // Only the API was asked for anything, by the page or its window, and the page's policy blocked nothing it needed.
    const origins = new Set(everyRequest.filter((url) => !url.startsWith('data:')).map((url) => new URL(url).origin));
    expect([...origins]).toEqual([apiOrigin]);
    expect(activity.errors).toEqual([]);
    expect(activity.warnings).toEqual([]);
    expect(await activity.violations()).toEqual([]);
  });
});

test("a user of a domain with its own identity provider signs in from the reference through that provider, another site, confirms the first link with the password, and the window still hands the code back", async () => {
  const provider = await startTestProvider();
  try {
    const org = await freshOrganization();
    const domain = `corp-${unique()}.example`;
    const registered = await org.admin.api.post(userArea(org.orgUuid, '/identity-providers'), registrationOf(provider, { alias: `corp-${unique()}`, displayName: 'Corp SSO', domains: [domain] }));
    expect(registered.status).toBe(201);
    const user = await createViaApi(org, { email: `ada-${unique()}@${domain}` });
    provider.nextUser = { email: user.email };
    const realmUrl = `${new URL(api()).origin}/auth/realms/${org.realm}/protocol/openid-connect`;

    await withPage(async (page) => {
      page.setDefaultTimeout(45_000);
      await page.goto(`${api()}/docs?realm=${org.realm}`);
      await page.locator('[id="operations-users-users\\\\.identityProvider"]').waitFor();
      await page.locator('.auth-wrapper button.authorize').click();
      const oauth2 = page.locator('.modal-ux .auth-container').filter({ hasText: 'OAuth2' });
      const [popup] = await Promise.all([page.waitForEvent('popup'), oauth2.locator('button.authorize').click()]);
      await popup.waitForLoadState();

      // Only the e-mail: its domain sends the window on to the provider, which signs the user in at once.
      await popup.locator('input[name="username"]').fill(user.email);
      const providerVisit = popup.waitForRequest((request: Request) => request.url().startsWith(`${provider.issuer}/authorize`));
      await popup.locator('button[type="submit"]').click();
      await providerVisit;
      // Back from it, the first link asks the user's own password once (its cookie set by the broker's answer).
      await popup.locator('input[name="confirmation"]').waitFor({ state: 'attached' });
      await popup.locator('input[name="password"]').fill(TEST_PASSWORD);
      const [tokenRequest] = await Promise.all([
        page.waitForRequest((request: Request) => request.url() === `${realmUrl}/token` && request.method() === 'POST'),
        popup.waitForEvent('close'),
        popup.locator('button[type="submit"]').click(),
      ]);
      expect((await tokenRequest.response())?.status()).toBe(200);
      await oauth2.getByRole('button', { name: 'Remove authorization' }).waitFor();
    });
  } finally {
    await provider.close();
  }
});
