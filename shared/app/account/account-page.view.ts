import { html, type Html } from '../../kernel/html/html';
import { renderPage } from '../../kernel/html/layout';
import { languages, type Language } from '../../kernel/messages/languages';
import type { PageMessages } from '../../kernel/messages/messages';
import { messagesOf } from '../../kernel/messages/messages-of';
import { formAlert, invalid, newPasswordFields } from '../pages/page-fields';

/**
 * The account page's HTML: plain forms on the one layout, served under its `PAGE_POLICY`. Links are
 * relative, so the page works under whatever host and path the API has: `at` says whether the answer
 * is for `…/account` itself or for one of its forms (`…/account/<form>`).
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

const fieldErrorText = (words: PageMessages, error: FieldError) =>
  ({
    'invalid-credentials': words.signIn.invalidCredentials,
    'password-expired': words.signIn.passwordExpired,
    'provider-refused': words.signIn.providerRefused,
    'password-mismatch': words.signIn.passwordMismatch,
    'password-weak': words.signIn.passwordWeak,
    'password-reused': words.signIn.passwordReused,
  })[error];

const noticeText = ({ account }: PageMessages, notice: Notice) =>
  ({ 'password-saved': account.passwordSaved, 'signed-out': account.signedOut, 'session-ended': account.sessionEnded, 'offline-token-revoked': account.offlineTokenRevoked })[notice];

/** Renders one view of the account page in one language. */
export function renderAccountPage(view: View, language: Language, at: PageAt): string {
  const words = messagesOf(language).pages;
  const page = at === 'page' ? 'account' : '../account';
  const action = (form: string) => `${at === 'page' ? 'account/' : ''}${form}?kc_locale=${language}`;
  const alert = view.error ? formAlert(fieldErrorText(words, view.error)) : undefined;
  const notice = view.notice ? html`<p class="notice" role="status">${noticeText(words, view.notice)}</p>` : undefined;

  let title: string;
  let body: Html;
  switch (view.kind) {
    case 'sign-in':
      title = words.signIn.signInTitle(view.realm);
      // The realm's sign-in page signs the person in; the page links there (through itself).
      body = html`<h1>${title}</h1>${notice}${alert}
<p><a href="${`${page}?kc_locale=${language}`}">${words.signIn.signIn}</a></p>`;
      break;
    case 'profile': {
      const { profile } = view;
      title = words.account.profileTitle;
      body = html`<h1>${title}</h1>${notice}
<dl>
<dt>${words.account.name}</dt><dd>${profile.name}</dd>
<dt>${words.signIn.email}</dt><dd>${profile.email}</dd>
<dt>${words.account.organization}</dt><dd>${profile.realm}</dd>
<dt>${words.account.role}</dt><dd>${profile.role}</dd>
</dl>
<h2>${words.account.changePasswordTitle}</h2>${alert}
<form method="post" action="${action('password')}">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="password">${words.account.currentPassword}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid(view.error === 'invalid-credentials')}>${newPasswordFields(words.signIn, view.error)}
<button type="submit">${words.signIn.savePassword}</button>
</form>${offlineTokensSection(words, language, action, view.csrf, view.offlineTokens ?? [])}${moreOfflineTokensLink(words, language, page, view.moreOfflineTokens)}${signOutForm(words, action, view.csrf)}`;
      break;
    }
  }
  const languageLinks = languages.map((code) =>
    code === language
      ? html`<li><span aria-current="true" lang="${code}">${messagesOf(code).languageName}</span></li>`
      : html`<li><a href="${`${page}?kc_locale=${code}`}" hreflang="${code}" lang="${code}">${messagesOf(code).languageName}</a></li>`,
  );
  return renderPage({
    language,
    title: `${view.error ? `${words.errorTitle}: ` : ''}${title} · ${words.account.title}`,
    body,
    after: html`
<nav aria-label="${words.account.languages}"><ul>${languageLinks}</ul></nav>`,
  });
}

/** A moment in the page's language, in UTC (the page has no script to learn the browser's zone). */
function moment(language: Language, epochSeconds: number): Html {
  const date = new Date(epochSeconds * 1000);
  const shown = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date);
  return html`<time datetime="${date.toISOString()}">${shown} UTC</time>`;
}

/** The user's offline tokens, each with its own revoke form. */
function offlineTokensSection({ account }: PageMessages, language: Language, action: (form: string) => string, csrf: string, tokens: OfflineToken[]): Html {
  const items = tokens.map(
    (token, index) => html`
<li><dl id="offline-token-${index}">
<dt>${account.created}</dt><dd>${moment(language, token.createdAt)}</dd>
<dt>${account.lastUsed}</dt><dd>${moment(language, token.lastUsedAt)}</dd>
</dl>
<form method="post" action="${action('revoke-offline-token')}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="session" value="${token.id}">
<button type="submit" class="secondary" aria-describedby="offline-token-${index}">${account.revoke}</button>
</form></li>`,
  );
  return html`
<h2>${account.offlineTokensTitle}</h2>
<p class="hint">${account.offlineTokensLead}</p>${
    tokens.length === 0
      ? html`
<p>${account.noOfflineTokens}</p>`
      : html`
<ul>${items}
</ul>`
  }`;
}

/** The link to the next offline tokens, when there are more than the page lists. */
function moreOfflineTokensLink({ account }: PageMessages, language: Language, page: string, pageToken: string | undefined): Html | undefined {
  if (pageToken === undefined) return undefined;
  return html`
<p><a href="${`${page}?kc_locale=${language}&pageToken=${encodeURIComponent(pageToken)}`}">${account.moreOfflineTokens}</a></p>`;
}

function signOutForm({ signIn }: PageMessages, action: (form: string) => string, csrf: string): Html {
  return html`
<form method="post" action="${action('sign-out')}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" class="secondary">${signIn.signOut}</button>
</form>`;
}

/**
 * The page that takes the browser on to the account page at once (`target`, relative), with a link
 * for a browser that does not follow: back from the organization's identity provider, where a
 * redirect would come without the page session's SameSite=Strict cookie.
 */
export function renderAccountReturnPage(language: Language, target: string): string {
  const { account } = messagesOf(language).pages;
  return renderPage({ language, title: account.title, refresh: target, body: html`<p><a href="${target}">${account.title}</a></p>` });
}
