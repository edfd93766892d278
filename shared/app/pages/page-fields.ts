import { escapeHtml as e } from '../../adapters/mail/mail-terms';
import type { AccountCopy } from './account-copy';

/**
 * The fields the realm's pages share (the account page, the authorization flow's sign-in page): the
 * e-mail and password of a sign-in, and a new password with its confirmation. A field the form's error
 * is about says so (`aria-invalid`) and points at the error (`form-error`).
 */
export const FORM_ERROR_ID = 'form-error';

const invalid = (on: boolean) => (on ? ` aria-invalid="true" aria-describedby="${FORM_ERROR_ID}"` : '');

/** The error of a form, shown above it and named by its fields. */
export const formAlert = (text: string | undefined) => (text ? `<p class="alert" role="alert" id="${FORM_ERROR_ID}">${e(text)}</p>` : '');

/** E-mail and password; the password may be left out by a person whose organization signs them in elsewhere. */
export function credentialFields(copy: AccountCopy, email: string | undefined, error: string | undefined): string {
  return `<label for="username">${e(copy.email)}</label>
<input id="username" name="username" type="email" autocomplete="username" required value="${e(email ?? '')}"${invalid(error === 'invalid-credentials')}>
<label for="password">${e(copy.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password"${invalid(error === 'invalid-credentials' || error === 'password-expired')}>`;
}

/** A new password, its rule, and its confirmation. */
export function newPasswordFields(copy: AccountCopy, error: string | undefined): string {
  const wrong = error === 'password-weak' || error === 'password-reused';
  return `
<label for="password-new">${e(copy.newPassword)}</label>
<input id="password-new" name="password-new" type="password" autocomplete="new-password" required aria-describedby="password-rule${wrong || error === 'password-mismatch' ? ` ${FORM_ERROR_ID}` : ''}"${wrong ? ' aria-invalid="true"' : ''}>
<p class="hint" id="password-rule">${e(copy.passwordRule)}</p>
<label for="password-confirm">${e(copy.confirmPassword)}</label>
<input id="password-confirm" name="password-confirm" type="password" autocomplete="new-password" required${invalid(error === 'password-mismatch')}>`;
}
