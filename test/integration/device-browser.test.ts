import { createTestUser } from '../support/auth-helpers';
import { withPage } from '../support/browser';
import { discover, issuerOf, oidc } from '../support/device-flow';
import { stack } from '../support/stack';

/**
 * The device authorization grant with a real browser on the other side: openid-client, unmodified,
 * asks for the codes and polls; a person opens `verification_uri_complete` in headless Chromium, goes
 * on with the filled-in code, signs in on the realm's own sign-in page, and approves on the consent
 * step. The pages run no script, and their policy blocks nothing they need.
 */

jest.setTimeout(90_000);

test('a person approves a device in a real browser, signing in through the realm\'s authorization endpoint', async () => {
  const user = await createTestUser({ name: 'Ada Lovelace' });
  const config = await discover(user.realm);
  const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
  const polling = oidc.pollDeviceAuthorizationGrant(config, started);
  const origin = new URL(stack().authUrl).origin;

  await withPage(async (page, activity) => {
    const opened = await page.goto(started.verification_uri_complete!);
    expect(opened?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe(`Sign in a device to ${user.realm}`);
    expect(await page.getByLabel('Code').inputValue()).toBe(started.user_code);

    await Promise.all([page.waitForURL(/\/protocol\/openid-connect\/auth\?/), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(await page.textContent('h1')).toBe(`Sign in to ${user.realm}`);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await Promise.all([page.waitForURL(/\/device\/callback\?/), page.getByRole('button', { name: 'Sign in' }).click()]);

    expect(await page.textContent('h1')).toBe('Approve the sign-in of a device?');
    expect(await page.textContent('dl')).toContain(user.email);
    expect(await page.textContent('dl')).toContain(started.user_code);
    await Promise.all([page.waitForURL(/\/device\/decision$/), page.getByRole('button', { name: 'Approve' }).click()]);
    expect(await page.getByRole('status').textContent()).toBe('The device is now signed in. You can close this window.');

    // Only the API was asked for anything, and the pages' policy blocked nothing they needed.
    expect(activity.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(await activity.violations()).toEqual([]);
    expect(activity.errors).toEqual([]);
    expect(activity.requests.some((url) => url.startsWith(`${issuerOf(user.realm)}/protocol/openid-connect/auth?`))).toBe(true);
  });

  const tokens = await polling;
  expect(tokens.claims()).toMatchObject({ iss: issuerOf(user.realm), sub: user.user.uuid, email: user.email });
});
