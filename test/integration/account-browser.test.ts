import { withPage } from '../support/browser';
import { stack, unique, userArea } from '../support/stack';
import { registrationOf, startTestProvider } from '../support/test-oidc-provider';
import { createViaApi, expectTemporaryPassword, freshOrganization, onlyMailTo, signIn, uniqueEmail } from '../support/user-helpers';

/**
 * A new user's first visit, in a real headless Chromium: the welcome e-mail (in Spanish) in the local
 * SES mailbox links to the account page, which sends the browser to the realm's sign-in; the user
 * signs in with the temporary password, must choose its own, comes back to its profile, and the
 * password grant then succeeds with the new password.
 */

jest.setTimeout(90_000);

test('a new user follows the welcome e-mail, sets a password, and can then sign in', async () => {
  const org = await freshOrganization();
  const email = uniqueEmail('browser');
  await createViaApi(org, { email, name: 'Lucía Pérez', password: undefined, confirmPassword: undefined }, { language: 'es' });
  const mail = await onlyMailTo(email);
  const link = mail.body.html!.match(/<a href="([^"]+)"/)![1]!.replaceAll('&amp;', '&');
  const temporary = mail.body.text!.match(/^Contraseña temporal: (.+)$/m)![1]!;
  await expectTemporaryPassword(org.realm, email, temporary);
  const origin = new URL(stack().authUrl).origin;
  expect(new URL(link).origin).toBe(origin);

  await withPage(async (page, activity) => {
    const opened = await page.goto(link);
    expect(opened?.status()).toBe(200);
    // The page sent the browser on to the realm's sign-in page, in the e-mail's language.
    expect(page.url()).toContain(`/auth/realms/${org.realm}/protocol/openid-connect/auth?`);
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    expect(await page.textContent('h1')).toBe(`Inicia sesión en ${org.realm}`);

    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña', { exact: true }).fill(temporary);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByRole('heading', { name: 'Elige tu contraseña' }).waitFor();

    // The two new passwords differ: the page says so and the user tries again.
    await page.getByLabel('Nueva contraseña', { exact: true }).fill('Mi-Clave-2026');
    await page.getByLabel('Confirma la nueva contraseña').fill('Mi-Clave-2027');
    await page.getByRole('button', { name: 'Guardar contraseña' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Las dos contraseñas nuevas no coinciden.');

    await page.getByLabel('Nueva contraseña', { exact: true }).fill('Mi-Clave-2026');
    await page.getByLabel('Confirma la nueva contraseña').fill('Mi-Clave-2026');
    await Promise.all([page.waitForURL(/\/account\?kc_locale=es$/), page.getByRole('button', { name: 'Guardar contraseña' }).click()]);
    expect(await page.textContent('h1')).toBe('Tu cuenta');
    expect(await page.textContent('dl')).toContain('Lucía Pérez');

    await Promise.all([page.waitForURL(/status=signed-out$/), page.getByRole('button', { name: 'Cerrar sesión' }).click()]);
    expect(await page.getByRole('status').textContent()).toBe('Has cerrado la sesión.');

    // Only the API was asked for anything, and the page's policy blocked nothing it needed.
    expect(activity.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(await activity.violations()).toEqual([]);
    expect(activity.errors).toEqual([]);
  });

  expect((await signIn(org.realm, email, 'Mi-Clave-2026')).status).toBe(200);
  expect((await signIn(org.realm, email, temporary)).status).toBe(400);
});

test("single sign-on from the account page works in a real browser: through the realm's sign-in page to the organization's provider and back, signed in", async () => {
  const provider = await startTestProvider();
  try {
    const org = await freshOrganization();
    const domain = `corp-${unique()}.example`;
    const created = await org.admin.api.post(userArea(org.orgUuid, '/identity-providers'), registrationOf(provider, { alias: `corp-${unique()}`, displayName: 'Corp SSO', domains: [domain] }));
    expect(created.status).toBe(201);
    // Provisioned as a directory does, with a temporary password: the first link asks for none (broker-link.test.ts).
    const user = await createViaApi(org, { email: `ana-${unique()}@${domain}`, name: 'Ana Lima', password: undefined, confirmPassword: undefined });
    provider.nextUser = { email: user.email };
    const origin = new URL(stack().authUrl).origin;

    await withPage(async (page, activity) => {
      await page.goto(`${origin}/auth/realms/${org.realm}/account?kc_locale=en`);
      expect(await page.textContent('h1')).toBe(`Sign in to ${org.realm}`);

      // An e-mail of the provider's domain: the sign-in page sends the browser on to the provider.
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill('not-asked-for');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Your account' }).waitFor();

      expect(page.url()).toBe(`${origin}/auth/realms/${org.realm}/account?kc_locale=en`);
      expect(await page.textContent('dl')).toContain(user.email);
      expect(activity.requests.some((url) => url.startsWith(`${provider.issuer}/authorize`))).toBe(true);
      expect(await activity.violations()).toEqual([]);
      expect(activity.errors).toEqual([]);
    });
  } finally {
    await provider.close();
  }
});
