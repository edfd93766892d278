import type { Language, MailKind } from '../mail/mail.templates';
import { sendMail, type Mailer, type MailResult } from '../mail/mailer';
import { getOrganization } from '../org/org.repository';
import type { UserRecord } from './user.entities';

/** Where and how the request's user e-mails are written: the `language` header and the sign-in address. */
export interface MailContext {
  language: Language;
  /** The sign-in address for a realm and language (the realm's account page, or a console). */
  signInUrl: (realm: string, language: Language) => string;
  /** The organization's realm name, when the caller has it already (a bulk job reads it once). */
  realm?: string;
}

/**
 * The sign-in address of a realm, from a template where `{realm}` stands for the realm's name and
 * `{locale}` for the e-mail's language (the account page opens in it).
 */
export const signInAddress =
  (template: string) =>
  (realm: string, language: Language): string =>
    template.replaceAll('{realm}', encodeURIComponent(realm)).replaceAll('{locale}', language);

/** Sends a user the e-mail of `kind`; never throws, and says whether SES accepted it (see `sendMail`). */
async function mailUser(
  kind: MailKind,
  user: UserRecord,
  mail: MailContext,
  mailer: Mailer,
  password?: { value: string; temporary: boolean },
): Promise<MailResult> {
  const realm = mail.realm ?? (await getOrganization(user.orgUuid))?.name ?? '';
  return sendMail(
    mailer,
    {
      to: user.email,
      kind,
      language: mail.language,
      vars: {
        name: user.name,
        realm,
        email: user.email,
        signInUrl: mail.signInUrl(realm, mail.language),
        ...(password ? { password: password.value, temporaryPassword: password.temporary } : {}),
      },
    },
    { orgUuid: user.orgUuid, userUuid: user.uuid },
  );
}

/**
 * Sends a new user its welcome e-mail with its sign-in details (a generated password is `temporary`);
 * never throws, and says whether SES accepted it.
 */
export async function sendWelcome(
  user: UserRecord,
  password: { value: string; temporary: boolean },
  mail: MailContext,
  mailer: Mailer,
): Promise<MailResult> {
  return mailUser('welcome', user, mail, mailer, password);
}

/** Sends a restored user its reactivation e-mail, with its new password if one was set; never throws, and says whether SES accepted it. */
export async function sendReactivation(user: UserRecord, password: string | undefined, mail: MailContext, mailer: Mailer): Promise<MailResult> {
  return mailUser('reactivation', user, mail, mailer, password === undefined ? undefined : { value: password, temporary: false });
}
