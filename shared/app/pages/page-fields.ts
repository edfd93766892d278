import { html, type Html } from '../../kernel/html/html';
import type { SignInMessages } from '../../kernel/messages/messages';

/**
 * The fields the realm's pages share (the account page, the authorization flow's sign-in page, a first
 * link's confirmation): the e-mail and password of a sign-in, and a new password with its confirmation.
 * A field the form's error is about says so (`aria-invalid`) and points at the error (`form-error`).
 */
export const FORM_ERROR_ID = 'form-error';

/** The attributes of a field the form's error is about. */
export const invalid = (on: boolean): Html | undefined => (on ? html` aria-invalid="true" aria-describedby="${FORM_ERROR_ID}"` : undefined);

/** The error of a form, shown above it and named by its fields. */
export const formAlert = (text: string | undefined): Html | undefined => (text ? html`<p class="alert" role="alert" id="${FORM_ERROR_ID}">${text}</p>` : undefined);

/** E-mail and password; the password may be left out by a person whose organization signs them in elsewhere. */
export function credentialFields(words: SignInMessages, email: string | undefined, error: string | undefined): Html {
  return html`<label for="username">${words.email}</label>
<input id="username" name="username" type="email" autocomplete="username" required value="${email ?? ''}"${invalid(error === 'invalid-credentials')}>
<label for="password">${words.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password"${invalid(error === 'invalid-credentials' || error === 'password-expired')}>`;
}

/** A new password, its rule, and its confirmation. */
export function newPasswordFields(words: SignInMessages, error: string | undefined): Html {
  const wrong = error === 'password-weak' || error === 'password-reused';
  const describedBy = wrong || error === 'password-mismatch' ? `password-rule ${FORM_ERROR_ID}` : 'password-rule';
  return html`
<label for="password-new">${words.newPassword}</label>
<input id="password-new" name="password-new" type="password" autocomplete="new-password" required aria-describedby="${describedBy}"${wrong ? html` aria-invalid="true"` : undefined}>
<p class="hint" id="password-rule">${words.passwordRule}</p>
<label for="password-confirm">${words.confirmPassword}</label>
<input id="password-confirm" name="password-confirm" type="password" autocomplete="new-password" required${invalid(error === 'password-mismatch')}>`;
}
