import { html, type Html } from '../../kernel/html/html';
import { renderPage } from '../../kernel/html/layout';
import type { Language } from '../../kernel/messages/languages';
import type { PageProblem, SignInMessages } from '../../kernel/messages/messages';
import { messagesOf } from '../../kernel/messages/messages-of';
import { credentialFields, formAlert, newPasswordFields } from '../pages/page-fields';
import { problemPage, signedOutPage } from '../pages/problem-pages';

export type { PageProblem } from '../../kernel/messages/messages';

/**
 * The authorization endpoint's pages: the sign-in form, the set-password step of a user whose password
 * is still the temporary one, the error page of a request that cannot go back to its application, and
 * the end-session endpoint's signed-out page and confirmation. Plain forms on the one layout, served
 * under its `PAGE_POLICY`.
 */
export type SignInError = 'invalid-credentials' | 'password-expired' | 'password-mismatch' | 'password-weak' | 'password-reused';

export type SignInView =
  | { kind: 'sign-in'; realm: string; requestId: string; email?: string; error?: SignInError }
  | { kind: 'set-password'; realm: string; requestId: string; email: string; error?: SignInError }
  | { kind: 'error'; problem: PageProblem; realm?: string; signOut?: true }
  | { kind: 'signed-out' }
  /** Another site asked to sign the browser out without saying whose session (no ID token hint): the person confirms. */
  | { kind: 'confirm-sign-out'; realm: string; fields: Record<string, string> };

/** The form's address, relative to the page (`…/protocol/openid-connect/auth` or `…/login-actions/authenticate`). */
export type PageAt = 'authorize' | 'authenticate';

/** The words of a field error. */
export const signInErrorText = (words: SignInMessages, error: SignInError): string =>
  ({
    'invalid-credentials': words.invalidCredentials,
    'password-expired': words.passwordExpired,
    'password-mismatch': words.passwordMismatch,
    'password-weak': words.passwordWeak,
    'password-reused': words.passwordReused,
  })[error];

export function renderSignInPage(view: SignInView, language: Language, at: PageAt): string {
  const pages = messagesOf(language).pages;
  const words = pages.signIn;
  const action = at === 'authorize' ? '../../login-actions/authenticate' : 'authenticate';
  const hidden = (requestId: string) => html`<input type="hidden" name="request" value="${requestId}"><input type="hidden" name="kc_locale" value="${language}">`;
  const page = (title: string, body: Html, error?: SignInError) => {
    const errorText = error && signInErrorText(words, error);
    return renderPage({ language, title: errorText ? `${pages.errorTitle}: ${title}` : title, body: html`<h1>${title}</h1>${body}` });
  };
  switch (view.kind) {
    case 'sign-in':
      return page(
        words.signInTitle(view.realm),
        html`${formAlert(view.error && signInErrorText(words, view.error))}
<form method="post" action="${action}">
${hidden(view.requestId)}
${credentialFields(words, view.email, view.error)}
<button type="submit">${words.signIn}</button>
</form>`,
        view.error,
      );
    case 'set-password':
      return page(
        words.setPasswordTitle,
        html`<p>${words.setPasswordLead}</p>${formAlert(view.error && signInErrorText(words, view.error))}
<form method="post" action="${action}">
${hidden(view.requestId)}
<input type="email" name="username" autocomplete="username" value="${view.email}" hidden readonly>${newPasswordFields(words, view.error)}
<button type="submit">${words.savePassword}</button>
</form>`,
        view.error,
      );
    case 'error':
      return problemPage(view.problem, language, { signOut: view.signOut === true });
    case 'signed-out':
      return signedOutPage(language);
    case 'confirm-sign-out': {
      // Posted to the same address (`…/protocol/openid-connect/logout`) from this page: a request of this site.
      const fields = Object.entries(view.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
      return page(
        pages.confirmSignOutTitle(view.realm),
        html`<p>${pages.confirmSignOut}</p>
<form method="post" action="logout">
${fields.map((field, i) => (i === 0 ? field : html`\n${field}`))}
<button type="submit">${words.signOut}</button>
</form>`,
      );
    }
  }
}
