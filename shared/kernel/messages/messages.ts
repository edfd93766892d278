/**
 * Everything the service says to people in one language, pages and e-mails alike: one file per
 * language in this folder (`en.ts`, `es.ts`, …), as Keycloak keeps one `messages_<lang>.properties`
 * each. Adding a language is a file here and its code in `languages.ts`; changing a word, that file.
 * Functions receive values as they are: the page or e-mail escapes what they answer.
 */
export interface Messages {
  /** The language's own name, for language links. */
  languageName: string;
  mail: MailMessages;
  pages: PageMessages;
}

/** The words of one kind of e-mail. */
export interface KindMessages {
  subject: (realm: string) => string;
  /** The paragraph after the greeting: what happened and that the details follow. */
  lead: (realm: string) => string;
  passwordLabel: string;
  /** Shown under the details when a password is given. */
  withPassword: string;
  /** Shown instead of a password when none is given. */
  withoutPassword: string;
}

/** A welcome may carry a generated password, which is temporary (only for choosing one's own), for `days` days. */
export interface TemporaryPasswordMessages {
  temporaryPasswordLabel: string;
  withTemporaryPassword: (days: number) => string;
}

export interface MailMessages {
  greeting: (name: string) => string;
  labels: { organization: string; email: string; signInUrl: string };
  /** Between a label and its value in the text body (Japanese uses the full-width colon). */
  colon: string;
  signInButton: string;
  notExpected: string;
  automatic: string;
  welcome: KindMessages & TemporaryPasswordMessages;
  reactivation: KindMessages;
}

/** Why a sign-in or sign-out cannot go on, shown on a page because there is no safe address to send the person back to. */
export type PageProblem =
  | 'unknown-realm'
  | 'unknown-client'
  | 'bad-redirect'
  | 'expired'
  | 'cross-site'
  | 'provider-failed'
  | 'bad-parameter'
  | 'bad-id-token-hint'
  | 'logout-needs-client'
  | 'bad-post-logout-redirect';

/** The words of every page of the realm: its sign-in, its account page, its device verification, a first link's confirmation. */
export interface PageMessages {
  /** Put before the page title when a page shows an error (screen readers announce titles). */
  errorTitle: string;
  problemTitle: string;
  signOutProblemTitle: string;
  problems: Record<PageProblem, string>;
  signedOutTitle: string;
  signedOut: string;
  /** Another site asked to sign the browser out without saying whose session: the person confirms. */
  confirmSignOutTitle: (realm: string) => string;
  confirmSignOut: string;
  signIn: SignInMessages;
  account: AccountMessages;
  device: DeviceMessages;
  firstLink: FirstLinkMessages;
}

/** The sign-in's fields and errors, shared by the sign-in page, the account page and a first link's confirmation. */
export interface SignInMessages {
  signInTitle: (realm: string) => string;
  email: string;
  password: string;
  signIn: string;
  invalidCredentials: string;
  setPasswordTitle: string;
  setPasswordLead: string;
  newPassword: string;
  confirmPassword: string;
  passwordRule: string;
  savePassword: string;
  passwordMismatch: string;
  passwordWeak: string;
  passwordReused: string;
  passwordExpired: string;
  /** Back from the organization's identity provider without a sign-in. */
  providerRefused: string;
  signOut: string;
}

/** The account page's own words. */
export interface AccountMessages {
  title: string;
  changePasswordTitle: string;
  currentPassword: string;
  passwordSaved: string;
  profileTitle: string;
  name: string;
  organization: string;
  role: string;
  signedOut: string;
  sessionEnded: string;
  offlineTokensTitle: string;
  offlineTokensLead: string;
  noOfflineTokens: string;
  moreOfflineTokens: string;
  created: string;
  lastUsed: string;
  revoke: string;
  offlineTokenRevoked: string;
  /** The name of the language links' navigation. */
  languages: string;
}

export type DeviceCodeError = 'wrong-code' | 'too-many';
export type DeviceProblem = 'unknown-realm' | 'expired' | 'cross-site' | 'bad-parameter' | 'sign-in-failed';

/** The device verification page's words (RFC 8628 §3.3). */
export interface DeviceMessages {
  title: (realm: string) => string;
  lead: string;
  codeLabel: string;
  next: string;
  errors: Record<DeviceCodeError, string>;
  consentTitle: string;
  consentLead: (clientId: string) => string;
  signedInAs: string;
  codeShown: string;
  grants: string;
  scopes: { profile: string; openid: string; offline: string };
  warning: string;
  approve: string;
  deny: string;
  approvedTitle: string;
  approved: string;
  deniedTitle: string;
  denied: string;
  problemTitle: string;
  problems: Record<DeviceProblem, string>;
  startAgain: string;
}

/** The words of a first link through an identity provider: the password asked once, and the refusal of another account. */
export interface FirstLinkMessages {
  confirmTitle: string;
  confirmLead: (provider: string) => string;
  confirm: string;
  refusedTitle: string;
  refused: (provider: string) => string;
}
