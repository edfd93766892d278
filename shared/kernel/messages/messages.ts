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

/** The words of the realm's pages that are not the account page's (whose words are still `shared/app/pages/account-copy.ts`). */
export interface PageMessages {
  /** Put before the page title when a page shows an error (screen readers announce titles). */
  errorTitle: string;
  problemTitle: string;
  signOutProblemTitle: string;
  problems: Record<PageProblem, string>;
  signedOutTitle: string;
  signedOut: string;
}
