import { html } from '../../kernel/html/html';
import { renderPage } from '../../kernel/html/layout';
import type { Language } from '../../kernel/messages/languages';
import { messagesOf } from '../../kernel/messages/messages-of';
import { formAlert, invalid } from '../pages/page-fields';

/**
 * The pages of a first link through an identity provider (Keycloak's first broker login): the form
 * that asks the user's current password once before the link is written, and the refusal of a
 * provider account other than the one the user is bound to. A plain form on the one layout, served
 * under its `PAGE_POLICY`. The refusal never names the e-mail the provider gave.
 */

export type LinkConfirmationError = 'invalid-credentials' | 'password-expired';

export type LinkConfirmationView =
  | { kind: 'confirm'; confirmationId: string; provider: string; email: string; error?: LinkConfirmationError }
  | { kind: 'refused'; provider: string };

/** Where the page is answered: the broker endpoint (after the provider) or the form's own address. */
export type LinkConfirmationAt = 'broker' | 'confirm';

export function renderLinkConfirmationPage(view: LinkConfirmationView, language: Language, at: LinkConfirmationAt): string {
  const pages = messagesOf(language).pages;
  const words = pages.firstLink;
  if (view.kind === 'refused') {
    const title = words.refusedTitle;
    return renderPage({ language, title, body: html`<h1>${title}</h1><p class="alert" role="alert">${words.refused(view.provider)}</p>` });
  }
  const title = words.confirmTitle;
  const errorText = view.error === undefined ? undefined : view.error === 'invalid-credentials' ? pages.signIn.invalidCredentials : pages.signIn.passwordExpired;
  const action = at === 'broker' ? '../../login-actions/first-broker-login' : 'first-broker-login';
  return renderPage({
    language,
    title: errorText ? `${pages.errorTitle}: ${title}` : title,
    body: html`<h1>${title}</h1><p>${words.confirmLead(view.provider)}</p>${formAlert(errorText)}
<form method="post" action="${action}">
<input type="hidden" name="confirmation" value="${view.confirmationId}"><input type="hidden" name="kc_locale" value="${language}">
<input type="email" name="username" autocomplete="username" value="${view.email}" hidden readonly>
<label for="password">${pages.signIn.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus${invalid(errorText !== undefined)}>
<button type="submit">${words.confirm}</button>
</form>`,
  });
}
