/** The words of one kind of e-mail in one language. Functions receive values already made safe for the output. */
export interface KindCopy {
  subject: (realm: string) => string;
  /** The paragraph after the greeting: what happened and that the details follow. */
  lead: (realm: string) => string;
  passwordLabel: string;
  /** Shown under the details when a password is given. */
  withPassword: string;
  /** Shown instead of a password when none is given. */
  withoutPassword: string;
}

/** A welcome may carry a generated password, which is temporary (only for choosing one's own). */
export interface TemporaryPasswordCopy {
  temporaryPasswordLabel: string;
  withTemporaryPassword: string;
}

/** Everything one language says, in every kind of e-mail. */
export interface MailCopy {
  greeting: (name: string) => string;
  labels: { organization: string; email: string; signInUrl: string };
  /** Between a label and its value in the text body (Japanese uses the full-width colon). */
  colon: string;
  signInButton: string;
  notExpected: string;
  automatic: string;
  welcome: KindCopy & TemporaryPasswordCopy;
  reactivation: KindCopy;
}
