import type { Messages } from './messages';

export const en: Messages = {
  languageName: 'English',
  mail: {
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
      withTemporaryPassword: (days) =>
        `This password is temporary and works for ${days} days: open the sign-in address and choose your own password. Until then, you cannot sign in to other applications.`,
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
  },
  pages: {
    errorTitle: 'Error',
    problemTitle: 'Sign-in cannot continue',
    signOutProblemTitle: 'Sign-out cannot continue',
    problems: {
      'unknown-realm': 'There is no organization by this name. Check the address the application uses.',
      'unknown-client': 'The application that sent you here is not known (its client_id). Ask its developers to use the console client id.',
      'bad-redirect': 'The address the application asked to return to (its redirect_uri) is not allowed. Ask its developers to register it.',
      expired: 'This sign-in has expired or was already used. Go back to the application and sign in again.',
      'cross-site': 'The form was sent from another site. Go back to the application and sign in again.',
      'provider-failed': 'Your identity provider could not be reached. Try again in a moment, or ask your administrator.',
      'bad-parameter': 'The application sent a parameter more than once, or a state longer than 1,024 characters. Ask its developers to send each parameter once, within its length.',
      'bad-id-token-hint': "The application asked to sign you out with an ID token (id_token_hint) this organization did not issue to it. Ask its developers to send the ID token their sign-in received.",
      'logout-needs-client': 'The application asked to come back after signing you out (post_logout_redirect_uri) without saying which application it is. Ask its developers to send client_id or id_token_hint with it.',
      'bad-post-logout-redirect': 'The address the application asked to return to after signing you out (its post_logout_redirect_uri) is not allowed. Ask its developers to use one the deployment lists for sign-in, or a loopback address.',
    },
    signedOutTitle: 'You are signed out',
    signedOut: 'Your session has ended. Close this window, or go back to the application to sign in again.',
  },
};
