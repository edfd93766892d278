import { createHash } from 'node:crypto';
import { renderAccountPage } from '../../shared/app/account/account-page';
import { PAGE_POLICY } from '../../shared/kernel/html/layout';
import { messagesOf } from '../../shared/kernel/messages/messages-of';
import { pageLanguage } from '../../shared/app/pages/page-language';
import { languages } from '../../shared/adapters/mail/mail.templates';

describe('the account page HTML', () => {
  const profile = { name: '<script>alert(1)</script>', email: 'a"b@example.test', realm: 'acme', role: 'VIEWER' };

  test('escapes every value it shows', () => {
    const html = renderAccountPage({ kind: 'profile', profile, csrf: '"><x', notice: 'password-saved' }, 'en', 'page');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('a&quot;b@example.test');
    expect(html).toContain('value="&quot;&gt;&lt;x"');
  });

  test("its one inline style is the one the policy's hash allows, and nothing else loads", () => {
    const html = renderAccountPage({ kind: 'sign-in', realm: 'acme' }, 'en', 'page');
    const style = html.match(/<style>([\s\S]*?)<\/style>/)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(PAGE_POLICY).toContain(`style-src 'sha256-${hash}'`);
    expect(PAGE_POLICY).toMatch(/^default-src 'none'; .*base-uri 'none'; frame-ancestors 'none'$/);
    expect(PAGE_POLICY).not.toContain('form-action');
    expect(html).not.toMatch(/<script|<img|<link|<iframe|style="|https?:\/\//);
  });

  test('forms and links resolve to the page from the page and from a form', () => {
    const fromPage = renderAccountPage({ kind: 'profile', profile, csrf: 't' }, 'es', 'page');
    const fromForm = renderAccountPage({ kind: 'profile', profile, csrf: 't' }, 'es', 'form');
    expect(fromPage).toContain('action="account/password?kc_locale=es"');
    expect(fromForm).toContain('action="password?kc_locale=es"');
    expect(fromPage).toContain('href="account?kc_locale=ja"');
    expect(fromForm).toContain('href="../account?kc_locale=ja"');
  });

  test('a page that shows an error says so in its title, and ties the error to the fields it concerns', () => {
    const html = renderAccountPage({ kind: 'profile', profile, csrf: 't', error: 'password-weak' }, 'ja', 'form');
    expect(html).toContain('<title>エラー: ');
    expect(html).toMatch(/id="password-new"[^>]*aria-describedby="password-rule form-error" aria-invalid="true"/);
  });

  test('labels every field and ties an error to the fields it concerns', () => {
    const html = renderAccountPage({ kind: 'profile', profile, csrf: 't', error: 'invalid-credentials' }, 'pt', 'form');
    expect(html).toContain('<html lang="pt">');
    expect(html).toContain('<label for="password">Senha atual</label>');
    expect(html).toMatch(/<p class="alert" role="alert" id="form-error">E-mail ou senha inválidos.<\/p>/);
    expect(html).toMatch(/id="password"[^>]*aria-invalid="true" aria-describedby="form-error"/);
  });

  test("signed out, or a sign-in that did not succeed: the page says so and links to the realm's sign-in through itself, with no password form", () => {
    const fromPage = renderAccountPage({ kind: 'sign-in', realm: 'acme', notice: 'signed-out' }, 'es', 'page');
    const fromForm = renderAccountPage({ kind: 'sign-in', realm: 'acme', error: 'provider-refused' }, 'pt', 'form');
    expect(fromPage).toContain('<p><a href="account?kc_locale=es">Iniciar sesión</a></p>');
    expect(fromPage).toContain('role="status"');
    expect(fromForm).toContain('<p><a href="../account?kc_locale=pt">');
    expect(fromForm).toContain('role="alert"');
    expect(`${fromPage}${fromForm}`).not.toMatch(/<form|type="password"/);
  });

  test("lists the offline tokens with a revoke form each, posting to the page's form from the page and from a form", () => {
    const offlineTokens = [{ id: 'a"b', createdAt: 1_795_000_000, lastUsedAt: 1_795_086_400 }];
    const fromPage = renderAccountPage({ kind: 'profile', profile, csrf: 't', offlineTokens }, 'en', 'page');
    const fromForm = renderAccountPage({ kind: 'profile', profile, csrf: 't', offlineTokens }, 'ja', 'form');

    expect(fromPage).toContain('<form method="post" action="account/revoke-offline-token?kc_locale=en">');
    expect(fromForm).toContain('action="revoke-offline-token?kc_locale=ja"');
    expect(fromPage).toContain('<input type="hidden" name="session" value="a&quot;b">');
    expect(fromPage).toContain('<dt>Created</dt><dd><time datetime="2026-11-18T11:06:40.000Z">');
    expect(fromPage).toMatch(/aria-describedby="offline-token-0">Revoke<\/button>/);
    expect(renderAccountPage({ kind: 'profile', profile, csrf: 't', offlineTokens: [] }, 'es', 'page')).toContain('No tienes tokens sin conexión.');
  });

  test('every language says every text', () => {
    for (const language of languages) {
      const { signIn, account } = messagesOf(language).pages;
      for (const [key, value] of Object.entries({ ...signIn, ...account })) {
        expect([key, typeof value === 'function' ? (value as (realm: string) => string)('acme') : value]).toEqual([key, expect.stringMatching(/\S/)]);
      }
    }
  });
});

describe('the page language', () => {
  test.each([
    ['ja', undefined, 'ja'],
    ['PT', undefined, 'pt'],
    ['xx', 'es-MX,es;q=0.9', 'es'],
    [undefined, 'fr-FR, ja;q=0.8, es;q=0.9', 'es'],
    [undefined, 'de, en;q=0', 'en'],
    [undefined, 'garbage;;q=x', 'en'],
    [undefined, undefined, 'en'],
  ])('kc_locale %s with Accept-Language %s is %s', (locale, accept, expected) => {
    expect(pageLanguage(locale, accept)).toBe(expected);
  });
});
