import { renderSignInPage } from '../../shared/app/sign-in/sign-in-page';

describe("the page that asks to confirm another site's sign-out", () => {
  const fields = { client_id: 'console', post_logout_redirect_uri: 'http://127.0.0.1:8765/out?a=1&b="2"', state: '<x>', logout_confirm: '1' };

  test('posts the request back to the logout address, every value escaped', () => {
    const html = renderSignInPage({ kind: 'confirm-sign-out', realm: 'acme', fields }, 'en', 'authorize');

    expect(html).toContain('<h1>Sign out of acme?</h1>');
    expect(html).toContain('<form method="post" action="logout">');
    expect(html).toContain('<input type="hidden" name="post_logout_redirect_uri" value="http://127.0.0.1:8765/out?a=1&amp;b=&quot;2&quot;">');
    expect(html).toContain('<input type="hidden" name="state" value="&lt;x&gt;">');
    expect(html).toContain('<input type="hidden" name="logout_confirm" value="1">');
    expect(html).toContain('<button type="submit">Sign out</button>');
    expect(html).not.toMatch(/<script/);
  });

  test('speaks every language of the pages', () => {
    expect(renderSignInPage({ kind: 'confirm-sign-out', realm: 'acme', fields }, 'es', 'authorize')).toContain('<h1>¿Cerrar la sesión en acme?</h1>');
    expect(renderSignInPage({ kind: 'confirm-sign-out', realm: 'acme', fields }, 'ja', 'authorize')).toContain('<h1>acme からサインアウトしますか?</h1>');
    expect(renderSignInPage({ kind: 'confirm-sign-out', realm: 'acme', fields }, 'pt', 'authorize')).toContain('<h1>Sair de acme?</h1>');
  });
});
