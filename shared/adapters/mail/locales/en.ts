import { TEMPORARY_PASSWORD_DAYS } from '../../identity/password-policy';
import type { MailCopy } from '../mail-copy';

export const en: MailCopy = {
  greeting: (name) => `Hello ${name},`,
  labels: { organization: 'Organization', email: 'Sign-in e-mail', signInUrl: 'Sign-in address' },
  colon: ': ',
  signInButton: 'Sign in',
  notExpected: "If you weren't expecting this e-mail, please contact your administrator.",
  automatic: 'This message was sent automatically; replies to it are not read.',
  welcome: {
    subject: (realm) => `Your ${realm} account is ready`,
    lead: (realm) => `An administrator of the ${realm} organization has created an account for you. Here is what you need to sign in:`,
    passwordLabel: 'Password',
    withPassword: 'You can change this password on your account page once you have signed in.',
    temporaryPasswordLabel: 'Temporary password',
    withTemporaryPassword:
      `This password is temporary and works for ${TEMPORARY_PASSWORD_DAYS} days: open the sign-in address and choose your own password. Until then, you cannot sign in to other applications.`,
    withoutPassword: 'Your administrator will share your password with you separately.',
  },
  reactivation: {
    subject: (realm) => `Your ${realm} account is active again`,
    lead: (realm) => `Your access to the ${realm} organization has been restored. You can sign in again with these details:`,
    passwordLabel: 'New password',
    withPassword: 'Please change this password after you sign in.',
    withoutPassword:
      "Your password hasn't changed: sign in with the one you chose before. If you never chose one, or don't remember it, ask your administrator to set a new one for you.",
  },
};
