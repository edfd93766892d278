import { createHash } from 'node:crypto';
import { renderAccountPage, renderAccountReturnPage, type FieldError, type Notice, type View } from '../../shared/app/account/account-page';
import { problemPage, signedOutPage } from '../../shared/app/pages/problem-pages';
import { renderDevicePage, type DeviceView } from '../../shared/app/sign-in/device-page';
import { renderLinkConfirmationPage, type LinkConfirmationView } from '../../shared/app/sign-in/link-confirmation-page';
import { renderSignInPage, type SignInError, type SignInView } from '../../shared/app/sign-in/sign-in-page';
import { html, UNSAFE_URL } from '../../shared/kernel/html/html';
import { PAGE_POLICY, renderPage } from '../../shared/kernel/html/layout';
import { languages, type Language } from '../../shared/kernel/messages/languages';
import type { Messages, PageProblem } from '../../shared/kernel/messages/messages';
import { messagesOf } from '../../shared/kernel/messages/messages-of';

/**
 * Every view of every page of the realm, in every language: one layout, one policy, every word from
 * the language's file, and every value a request or a record brings escaped.
 */

const signInErrors: SignInError[] = ['invalid-credentials', 'password-expired', 'password-mismatch', 'password-weak', 'password-reused'];
const fieldErrors: FieldError[] = ['invalid-credentials', 'provider-refused', 'password-expired', 'password-mismatch', 'password-weak', 'password-reused'];
const notices: Notice[] = ['password-saved', 'signed-out', 'session-ended', 'offline-token-revoked'];
const problems = Object.keys(messagesOf('en').pages.problems) as PageProblem[];
const deviceProblems = Object.keys(messagesOf('en').pages.device.problems) as (keyof Messages['pages']['device']['problems'])[];

/** Each page's every view, given the value every field a request or a record brings takes. */
function everyView(value: string): [string, (language: Language) => string][] {
  const profile = { name: value, email: value, realm: value, role: value };
  const offlineTokens = [{ id: value, createdAt: 1_795_000_000, lastUsedAt: 1_795_086_400 }];
  const signIn: SignInView[] = [
    { kind: 'sign-in', realm: value, requestId: value, email: value },
    ...signInErrors.map((error): SignInView => ({ kind: 'sign-in', realm: value, requestId: value, email: value, error })),
    ...signInErrors.map((error): SignInView => ({ kind: 'set-password', realm: value, requestId: value, email: value, error })),
    ...problems.flatMap((problem): SignInView[] => [{ kind: 'error', problem, realm: value }, { kind: 'error', problem, signOut: true }]),
    { kind: 'signed-out' },
    { kind: 'confirm-sign-out', realm: value, fields: { [value]: value, state: value } },
  ];
  const account: View[] = [
    { kind: 'sign-in', realm: value, email: value },
    ...notices.map((notice): View => ({ kind: 'sign-in', realm: value, notice })),
    ...fieldErrors.map((error): View => ({ kind: 'sign-in', realm: value, error })),
    { kind: 'profile', profile, csrf: value, offlineTokens, moreOfflineTokens: value },
    { kind: 'profile', profile, csrf: value, offlineTokens: [] },
    ...notices.map((notice): View => ({ kind: 'profile', profile, csrf: value, notice })),
    ...fieldErrors.map((error): View => ({ kind: 'profile', profile, csrf: value, error })),
  ];
  const device: DeviceView[] = [
    { kind: 'enter', realm: value, action: value, userCode: value },
    { kind: 'enter', realm: value, action: value, userCode: value, error: 'wrong-code' },
    { kind: 'enter', realm: value, action: value, error: 'too-many' },
    { kind: 'consent', realm: value, action: value, userCode: value, step: value, clientId: value, scope: 'openid offline_access', email: value },
    { kind: 'consent', realm: value, action: value, userCode: value, step: value, clientId: value, scope: undefined, email: value },
    { kind: 'done', approved: true },
    { kind: 'done', approved: false },
    ...deviceProblems.map((problem): DeviceView => ({ kind: 'problem', problem, again: value })),
  ];
  const firstLink: LinkConfirmationView[] = [
    { kind: 'confirm', confirmationId: value, provider: value, email: value },
    { kind: 'confirm', confirmationId: value, provider: value, email: value, error: 'invalid-credentials' },
    { kind: 'confirm', confirmationId: value, provider: value, email: value, error: 'password-expired' },
    { kind: 'refused', provider: value },
  ];
  return [
    ...signIn.flatMap((view, i) => (['authorize', 'authenticate'] as const).map((at) => [`sign-in ${view.kind} #${i} at ${at}`, (language: Language) => renderSignInPage(view, language, at)] as [string, (language: Language) => string])),
    ...account.flatMap((view, i) => (['page', 'form'] as const).map((at) => [`account ${view.kind} #${i} at ${at}`, (language: Language) => renderAccountPage(view, language, at)] as [string, (language: Language) => string])),
    ['account return', (language) => renderAccountReturnPage(language, `../account?kc_locale=${language}&x=${encodeURIComponent(value)}`)],
    ...device.map((view, i) => [`device ${view.kind} #${i}`, (language: Language) => renderDevicePage(view, language)] as [string, (language: Language) => string]),
    ...firstLink.flatMap((view, i) => (['broker', 'confirm'] as const).map((at) => [`first link ${view.kind} #${i} at ${at}`, (language: Language) => renderLinkConfirmationPage(view, language, at)] as [string, (language: Language) => string])),
    ...problems.map((problem) => [`problem ${problem}`, (language: Language) => problemPage(problem, language)] as [string, (language: Language) => string]),
    ['signed out', (language) => signedOutPage(language)],
  ];
}

/** Every word of a language's file, by its path: a function is called with a realm's name. */
function words(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (typeof value === 'function') return [[path, String((value as (arg: string | number) => string)('acme'))]];
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, inner]) => words(inner, path ? `${path}.${key}` : key));
  return [[path, String(value)]];
}

describe('the words: one file per language', () => {
  test.each(languages)('%s says every word English says, each one something', (language) => {
    const english = words(messagesOf('en')).map(([path]) => path);
    const own = words(messagesOf(language));

    expect(own.map(([path]) => path)).toEqual(english);
    for (const [path, word] of own) expect([path, word]).toEqual([path, expect.stringMatching(/\S/)]);
    for (const [path, word] of own) expect([path, word]).not.toEqual([path, expect.stringMatching(/undefined|\[object/)]);
  });
});

describe('every view of every page, in every language', () => {
  const views = everyView('Ada');
  const style = PAGE_POLICY.match(/style-src ('sha256-[^']+')/)![1];

  test.each(languages)('%s: the one layout, under the one policy, its words all there', (language) => {
    for (const [name, render] of views) {
      const page = render(language);
      const inline = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`);

      expect([name, page.startsWith(`<!doctype html>\n<html lang="${language}">\n<head>\n<meta charset="utf-8">\n<title>`)]).toEqual([name, true]);
      expect([name, inline]).toEqual([name, [style]]);
      expect([name, page.match(/<head>/g)?.length, page.match(/<main>/g)?.length]).toEqual([name, 1, 1]);
      expect([name, page]).not.toEqual([name, expect.stringMatching(/undefined|\[object|\bNaN\b/)]);
      expect([name, page]).not.toEqual([name, expect.stringMatching(/<script|<link|<img|<iframe|\sstyle=|\son[a-z]+=/i)]);
    }
  });

  test('the layout refreshes only to an address of this site', () => {
    for (const away of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)', ' java\tscript:x', '../account\n']) {
      expect(() => renderPage({ language: 'en', title: 't', body: html``, refresh: away })).toThrow(/relative address/);
    }
    expect(renderAccountReturnPage('en', '../account?kc_locale=en&status=x')).toContain('<meta http-equiv="refresh" content="0;url=../account?kc_locale=en&amp;status=x">');
  });
});

describe('a hostile value, wherever it appears, comes out escaped', () => {
  const hostile = `"'><script>alert(1)</script><img src=x onerror=alert(2)>&amp;`;
  const escaped = '&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;';

  test.each(languages)('%s: no page opens a tag or leaves an attribute for it', (language) => {
    for (const [name, render] of everyView(hostile)) {
      const page = render(language);

      expect([name, page.includes('<script'), page.includes('<img'), page.includes(hostile)]).toEqual([name, false, false, false]);
    }
  });

  test('where a page shows the value, it shows it escaped: the realm, the e-mail, the provider, the client, the code', () => {
    const shown = [
      renderSignInPage({ kind: 'sign-in', realm: hostile, requestId: hostile, email: hostile }, 'en', 'authorize'),
      renderSignInPage({ kind: 'set-password', realm: hostile, requestId: hostile, email: hostile }, 'ja', 'authenticate'),
      renderSignInPage({ kind: 'confirm-sign-out', realm: hostile, fields: { state: hostile } }, 'es', 'authorize'),
      renderAccountPage({ kind: 'profile', profile: { name: hostile, email: hostile, realm: hostile, role: hostile }, csrf: hostile, offlineTokens: [{ id: hostile, createdAt: 1, lastUsedAt: 2 }] }, 'pt', 'page'),
      renderAccountPage({ kind: 'sign-in', realm: hostile }, 'en', 'form'),
      renderDevicePage({ kind: 'consent', realm: hostile, action: 'decision', userCode: hostile, step: hostile, clientId: hostile, scope: 'openid', email: hostile }, 'en'),
      renderDevicePage({ kind: 'enter', realm: hostile, action: 'code', userCode: hostile }, 'ja'),
      renderLinkConfirmationPage({ kind: 'confirm', confirmationId: hostile, provider: hostile, email: hostile }, 'es', 'broker'),
      renderLinkConfirmationPage({ kind: 'refused', provider: hostile }, 'pt', 'confirm'),
    ];
    for (const page of shown) expect(page).toContain(escaped);
    expect(shown[0]).toContain(`<title>${messagesOf('en').pages.signIn.signInTitle(escaped)}</title>`);
    expect(shown[0]).toContain(`<input id="username" name="username" type="email" autocomplete="username" required value="${escaped}">`);
  });

  test('an address a page links or posts to never takes the browser to another scheme', () => {
    const device = renderDevicePage({ kind: 'enter', realm: 'acme', action: 'javascript:alert(1)' }, 'en');
    const problem = renderDevicePage({ kind: 'problem', problem: 'expired', again: ' JAVA\tSCRIPT:alert(1)' }, 'en');

    expect(device).toContain(`<form method="post" action="${UNSAFE_URL}">`);
    expect(problem).toContain(`<a href="${UNSAFE_URL}">`);
    expect(renderAccountPage({ kind: 'profile', profile: { name: 'a', email: 'b', realm: 'c', role: 'd' }, csrf: 't', moreOfflineTokens: `"><script>x</script>` }, 'en', 'page')).toContain(
      'href="account?kc_locale=en&amp;pageToken=%22%3E%3Cscript%3Ex%3C%2Fscript%3E"',
    );
  });
});
