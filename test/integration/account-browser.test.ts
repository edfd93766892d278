import { withPage } from '../support/browser';
import { stack } from '../support/stack';
import { createViaApi, expectTemporaryPassword, freshOrganization, onlyMailTo, signIn, uniqueEmail } from '../support/user-helpers';

/**
 * A new user's first visit, in a real headless Chromium: the welcome e-mail (in Spanish) in the local
 * SES mailbox links to the account page; the user signs in with the temporary password, must choose
 * its own, sees its profile, and the password grant then succeeds with the new password.
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
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    expect(await page.textContent('h1')).toBe(`Inicia sesión en ${org.realm}`);

    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña', { exact: true }).fill(temporary);
    await Promise.all([page.waitForURL(/\/account\?kc_locale=es$/), page.getByRole('button', { name: 'Iniciar sesión' }).click()]);
    expect(await page.textContent('h1')).toBe('Elige tu contraseña');

    // The two new passwords differ: the page says so and the user tries again.
    await page.getByLabel('Nueva contraseña', { exact: true }).fill('Mi-Clave-2026');
    await page.getByLabel('Confirma la nueva contraseña').fill('Mi-Clave-2027');
    await page.getByRole('button', { name: 'Guardar contraseña' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Las dos contraseñas nuevas no coinciden.');

    await page.getByLabel('Nueva contraseña', { exact: true }).fill('Mi-Clave-2026');
    await page.getByLabel('Confirma la nueva contraseña').fill('Mi-Clave-2026');
    await Promise.all([page.waitForURL(/status=password-saved$/), page.getByRole('button', { name: 'Guardar contraseña' }).click()]);
    expect(await page.textContent('h1')).toBe('Tu cuenta');
    expect(await page.getByRole('status').textContent()).toBe('Se ha guardado tu contraseña.');
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
