import { html } from '../../shared/kernel/html/html';
import { isLanguage, languages, mailKinds, renderMail, type MailVars } from '../../shared/adapters/mail/mail.templates';

/** What the e-mails' `html` template makes of one value in text or a quoted attribute. */
const escapeHtml = (value: string) => html`${value}`.markup;

const vars: MailVars = {
  name: 'Ana Souza',
  realm: 'acme',
  email: 'ana.souza@acme.example',
  signInUrl: 'https://console.example/realms/acme',
  password: 'Tmp-Passw0rd!',
};

const combinations = mailKinds.flatMap((kind) => languages.map((language) => [kind, language] as const));

describe.each(combinations)('%s e-mail in %s', (kind, language) => {
  const mail = renderMail(kind, language, vars);

  test('has a subject, an HTML body and a text body', () => {
    expect(mail.subject.trim()).not.toBe('');
    expect(mail.html).toMatch(/^<!doctype html>/);
    expect(mail.html).toContain(`<html lang="${language}">`);
    expect(mail.text.trim()).not.toBe('');
  });

  test('names the realm in the subject and every sign-in detail in both bodies', () => {
    expect(mail.subject).toContain(vars.realm);
    for (const value of [vars.name, vars.realm, vars.email, vars.signInUrl, vars.password!]) {
      expect(mail.html).toContain(value);
      expect(mail.text).toContain(value);
    }
    expect(mail.html).toContain(`<a href="${vars.signInUrl}"`);
  });

  test('the text body is plain text', () => {
    expect(mail.text).not.toMatch(/<\/?[a-z][^>]*>/i);
    expect(mail.text).not.toMatch(/&(amp|lt|gt|quot|#39);/);
  });

  test('without a password, shows none and says what to do instead', () => {
    const { password: _password, ...rest } = vars;
    const without = renderMail(kind, language, rest);
    expect(without.html).not.toContain(vars.password);
    expect(without.text).not.toContain(vars.password);
    expect(without.text).not.toBe(mail.text);
    expect(renderMail(kind, language, { ...rest, password: '' }).text).toBe(without.text);
  });
});

describe('languages', () => {
  // Words of the English copy that a translation must not keep (the realm is the only shared word).
  const english = /\b(your|account|ready|active|again|hello|sign|password|organization|administrator)\b/i;

  test.each(mailKinds)('each language has its own %s subject and body, with no English left', (kind) => {
    const mails = languages.map((language) => renderMail(kind, language, vars));
    expect(new Set(mails.map((m) => m.subject)).size).toBe(languages.length);
    expect(new Set(mails.map((m) => m.text)).size).toBe(languages.length);
    for (const language of languages.filter((l) => l !== 'en')) {
      const { subject, text } = renderMail(kind, language, vars);
      expect(subject.replace(vars.realm, '')).not.toMatch(english);
      const withoutValues = [vars.name, vars.email, vars.signInUrl, vars.password!].reduce((t, v) => t.split(v).join(''), text);
      expect(withoutValues).not.toMatch(english);
    }
    expect(renderMail(kind, 'en', vars).subject).toMatch(english);
  });

  test('Japanese is written in Japanese script', () => {
    for (const kind of mailKinds) {
      expect(renderMail(kind, 'ja', vars).subject).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
  });

  test('the welcome and the reactivation say different things', () => {
    for (const language of languages) {
      expect(renderMail('welcome', language, vars).subject).not.toBe(renderMail('reactivation', language, vars).subject);
    }
  });

  test('isLanguage accepts exactly the four languages', () => {
    expect(languages.filter(isLanguage)).toEqual(['en', 'es', 'ja', 'pt']);
    for (const other of ['EN', 'fr', 'pt-BR', '', undefined, 1]) expect(isLanguage(other)).toBe(false);
  });
});

describe('hostile values', () => {
  const hostile: MailVars = {
    name: `<script>alert(1)</script> O'Brien & Co`,
    realm: 'acme"><img src=x onerror=alert(1)>',
    email: 'x"onmouseover="alert(1)@evil.example',
    signInUrl: 'https://console.example/?a=1&b="><script>',
    password: '<b>Pa&ss\'1"',
  };

  test.each(combinations)('%s in %s escapes every value in the HTML body', (kind, language) => {
    const { html, text } = renderMail(kind, language, hostile);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('"onmouseover');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; O&#39;Brien &amp; Co');
    expect(html).toContain(escapeHtml(hostile.realm));
    expect(html).toContain(escapeHtml(hostile.email));
    expect(html).toContain(`href="${escapeHtml(hostile.signInUrl)}"`);
    expect(html).toContain(escapeHtml(hostile.password!));
    // The text body keeps the values as typed.
    expect(text).toContain(hostile.name);
    expect(text).toContain(hostile.password);
  });

  test('a sign-in address that is not a web address is shown, never linked', () => {
    const { html } = renderMail('welcome', 'en', { ...vars, signInUrl: 'javascript:alert(1)' });
    expect(html).toContain('javascript:alert(1)');
    expect(html).not.toContain('href="javascript:');
  });

  test('line breaks in a value cannot add lines to the subject or the text body', () => {
    const { subject, text } = renderMail('welcome', 'en', { ...vars, name: 'Ana\r\nTemporary password: 123', realm: 'acme\nBcc: x' });
    expect(subject).not.toMatch(/[\r\n]/);
    expect(text).not.toMatch(/^Temporary password: 123$/m);
    expect(text).not.toMatch(/^Bcc:/m);
  });
});

test('html escapes the five HTML-significant characters', () => {
  expect(escapeHtml(`<a href="x">O'Brien & Co</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;O&#39;Brien &amp; Co&lt;/a&gt;');
});
