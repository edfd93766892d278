import { renderLinkConfirmationPage } from '../../shared/app/sign-in/link-confirmation-page';

/** The pages of a first link through an identity provider: every value escaped, the refusal naming no e-mail. */

const hostile = '"><script>alert(1)</script>';

test('the confirmation page escapes the provider name, the e-mail and the confirmation; its form posts to the confirmation address', () => {
  const html = renderLinkConfirmationPage({ kind: 'confirm', confirmationId: hostile, provider: hostile, email: `${hostile}@corp.example` }, 'en', 'broker');
  expect(html).not.toContain('<script>');
  expect(html).toContain('&lt;script&gt;');
  expect(html).toMatch(/<form method="post" action="\.\.\/\.\.\/login-actions\/first-broker-login">/);
  expect(html).toContain('autocomplete="current-password"');
  expect(html).not.toContain('role="alert"');
  const again = renderLinkConfirmationPage({ kind: 'confirm', confirmationId: 'c', provider: 'Okta', email: 'a@corp.example', error: 'invalid-credentials' }, 'es', 'confirm');
  expect(again).toMatch(/<form method="post" action="first-broker-login">/);
  expect(again).toContain('role="alert"');
  expect(again).toContain('aria-invalid="true"');
  expect(again).toContain('<html lang="es">');
});

test('the refusal names the provider, escaped, and tells the person to ask an ADMIN, in each language', () => {
  for (const language of ['en', 'es', 'ja', 'pt'] as const) {
    const html = renderLinkConfirmationPage({ kind: 'refused', provider: hostile }, language, 'broker');
    expect(html).not.toContain('<script>');
    expect(html).toContain('ADMIN');
    expect(html).not.toContain('<form');
  }
});
