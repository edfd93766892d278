import { createHash } from 'node:crypto';
import { escapeHtml as e, languages, type Language } from '../../adapters/mail/mail-terms';
import { accountCopies, type AccountCopy } from '../pages/account-copy';
import { PAGE_STYLE } from '../pages/page-style';
import { FORM_ERROR_ID, formAlert, newPasswordFields } from '../pages/page-fields';

/**
 * The account page's HTML: plain forms, no script, one inline style sheet allowed by its hash. Every
 * value is escaped. Links are relative, so the page works under whatever host and path the API has:
 * `at` says whether the answer is for `…/account` itself or for one of its forms (`…/account/<form>`).
 */
export type PageAt = 'page' | 'form';

export type Notice = 'password-saved' | 'signed-out' | 'session-ended' | 'offline-token-revoked';
export type FieldError = 'invalid-credentials' | 'provider-refused' | 'password-expired' | 'password-mismatch' | 'password-weak' | 'password-reused';

export interface Profile {
  name: string;
  email: string;
  realm: string;
  role: string;
}

/** One of the user's offline tokens (an offline session): its id and when it began and was last used, in epoch seconds. */
export interface OfflineToken {
  id: string;
  createdAt: number;
  lastUsedAt: number;
}

export type View =
  /** Signed out, or a sign-in that did not end well: what happened, and a link to sign in. */
  | { kind: 'sign-in'; realm: string; email?: string; error?: FieldError; notice?: Notice }
  | { kind: 'profile'; profile: Profile; csrf: string; offlineTokens?: OfflineToken[]; moreOfflineTokens?: string; error?: FieldError; notice?: Notice };



/**
 * The page's Content-Security-Policy: nothing but its own style sheet (by hash), forms that post to
 * this origin, no script, no image, no frame, no other site.
 */
export const ACCOUNT_PAGE_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const fieldErrorText = (copy: AccountCopy, error: FieldError) =>
  ({
    'invalid-credentials': copy.invalidCredentials,
    'password-expired': copy.passwordExpired,
    'provider-refused': copy.providerRefused,
    'password-mismatch': copy.passwordMismatch,
    'password-weak': copy.passwordWeak,
    'password-reused': copy.passwordReused,
  })[error];

const noticeText = (copy: AccountCopy, notice: Notice) =>
  ({ 'password-saved': copy.passwordSaved, 'signed-out': copy.signedOut, 'session-ended': copy.sessionEnded, 'offline-token-revoked': copy.offlineTokenRevoked })[notice];

/** Renders one view of the account page in one language. */
export function renderAccountPage(view: View, language: Language, at: PageAt): string {
  const copy = accountCopies[language];
  const page = at === 'page' ? 'account' : '../account';
  const action = (form: string) => `${at === 'page' ? 'account/' : ''}${form}?kc_locale=${language}`;
  const alert = view.error ? formAlert(fieldErrorText(copy, view.error)) : '';
  const notice = 'notice' in view && view.notice ? `<p class="notice" role="status">${e(noticeText(copy, view.notice))}</p>` : '';
  const invalid = (on: boolean) => (on ? ` aria-invalid="true" aria-describedby="${FORM_ERROR_ID}"` : '');

  let title: string;
  let body: string;
  switch (view.kind) {
    case 'sign-in':
      title = copy.signInTitle(view.realm);
      // The realm's sign-in page signs the person in; the page links there (through itself).
      body = `<h1>${e(title)}</h1>${notice}${alert}
<p><a href="${page}?kc_locale=${language}">${e(copy.signIn)}</a></p>`;
      break;
    case 'profile': {
      const { profile } = view;
      title = copy.profileTitle;
      body = `<h1>${e(title)}</h1>${notice}
<dl>
<dt>${e(copy.name)}</dt><dd>${e(profile.name)}</dd>
<dt>${e(copy.email)}</dt><dd>${e(profile.email)}</dd>
<dt>${e(copy.organization)}</dt><dd>${e(profile.realm)}</dd>
<dt>${e(copy.role)}</dt><dd>${e(profile.role)}</dd>
</dl>
<h2>${e(copy.changePasswordTitle)}</h2>${alert}
<form method="post" action="${action('password')}">
<input type="hidden" name="csrf" value="${e(view.csrf)}">
<label for="password">${e(copy.currentPassword)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid(view.error === 'invalid-credentials')}>${newPasswordFields(copy, view.error)}
<button type="submit">${e(copy.savePassword)}</button>
</form>${offlineTokensSection(copy, language, action, view.csrf, view.offlineTokens ?? [])}${moreOfflineTokensLink(copy, language, page, view.moreOfflineTokens)}${signOutForm(copy, action, view.csrf)}`;
      break;
    }
  }
  const languageLinks = languages
    .map((code) =>
      code === language
        ? `<li><span aria-current="true" lang="${code}">${e(accountCopies[code].languageName)}</span></li>`
        : `<li><a href="${page}?kc_locale=${code}" hreflang="${code}" lang="${code}">${e(accountCopies[code].languageName)}</a></li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${view.error ? `${e(copy.errorTitle)}: ` : ''}${e(title)} · ${e(copy.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>${body}
</main>
<nav aria-label="${e(copy.languages)}"><ul>${languageLinks}</ul></nav>
</body>
</html>
`;
}

/** A moment in the page's language, in UTC (the page has no script to learn the browser's zone). */
function moment(language: Language, epochSeconds: number): string {
  const date = new Date(epochSeconds * 1000);
  const shown = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date);
  return `<time datetime="${date.toISOString()}">${e(shown)} UTC</time>`;
}

/** The user's offline tokens, each with its own revoke form. */
function offlineTokensSection(copy: AccountCopy, language: Language, action: (form: string) => string, csrf: string, tokens: OfflineToken[]): string {
  const items = tokens
    .map(
      (token, index) => `
<li><dl id="offline-token-${index}">
<dt>${e(copy.created)}</dt><dd>${moment(language, token.createdAt)}</dd>
<dt>${e(copy.lastUsed)}</dt><dd>${moment(language, token.lastUsedAt)}</dd>
</dl>
<form method="post" action="${action('revoke-offline-token')}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<input type="hidden" name="session" value="${e(token.id)}">
<button type="submit" class="secondary" aria-describedby="offline-token-${index}">${e(copy.revoke)}</button>
</form></li>`,
    )
    .join('');
  return `
<h2>${e(copy.offlineTokensTitle)}</h2>
<p class="hint">${e(copy.offlineTokensLead)}</p>${tokens.length === 0 ? `
<p>${e(copy.noOfflineTokens)}</p>` : `
<ul>${items}
</ul>`}`;
}

/** The link to the next offline tokens, when there are more than the page lists. */
function moreOfflineTokensLink(copy: AccountCopy, language: Language, page: string, pageToken: string | undefined): string {
  if (pageToken === undefined) return '';
  return `
<p><a href="${e(`${page}?kc_locale=${language}&pageToken=${encodeURIComponent(pageToken)}`)}">${e(copy.moreOfflineTokens)}</a></p>`;
}

function signOutForm(copy: AccountCopy, action: (form: string) => string, csrf: string): string {
  return `
<form method="post" action="${action('sign-out')}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<button type="submit" class="secondary">${e(copy.signOut)}</button>
</form>`;
}
