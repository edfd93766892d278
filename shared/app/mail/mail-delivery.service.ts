import { mailSettings } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { unsealPassword, type QueuedMail } from '../../adapters/mail/mail-queue';
import type { MailKind } from '../../kernel/messages/mail-kinds';
import { sendMail, type Mailer, type MailResult } from '../../adapters/mail/mailer';
import { transactWrite, type TableWrite } from '../../adapters/store/table';
import { getOrganization } from '../org/org.repository';
import type { UserRecord } from './user.entities';
import { getMailState, settleWrite, signInAddress, type MailContext, type MailOutcome } from './user-mail';
import { getUser, welcomedWrite } from './user.repository';

/**
 * The mail function's side of the e-mails to users: each queued e-mail rendered and sent through SES,
 * and its attempt settled. The functions that queue e-mails (`user-mail.ts`) carry none of it: not the
 * templates, not the mailer.
 */

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

export interface DeliveryOptions {
  mailer: Mailer;
  /** The queue will not deliver this message again: a failure SES may not repeat is settled now all the same. */
  final: boolean;
  /** Writes made in the same transaction as the outcome (a bulk job's counts). */
  alongside?: (outcome: MailOutcome) => TableWrite[];
  /** The organization's realm name, when the caller reads it once for many e-mails (a batch of the queue). */
  realmOf?: (orgUuid: string) => Promise<string>;
}

/** The failures decided before any call to SES (whose refusals `sendMail` logs). */
const NOT_SENT_TO_SES = new Set(['UserNotFound', 'PasswordNotReadable']);

/**
 * Sends one queued e-mail, once: a message whose attempt is no longer its user's current one, or
 * already settled (a duplicate delivery), is skipped. SES accepting it settles it as sent (a welcome
 * marks the user welcomed); a refusal of the message settles it as failed; a refusal SES may not repeat
 * (its rate, its outage) answers `retry`, for the queue to deliver it again, unless this delivery is
 * `final`.
 */
export async function deliverQueuedMail(mail: QueuedMail, options: DeliveryOptions): Promise<'sent' | 'failed' | 'skipped' | 'retry'> {
  const state = await getMailState(mail.orgUuid, mail.userUuid, mail.kind);
  if (state?.attempt !== mail.id || state.state !== 'QUEUED') return 'skipped';
  const user = await getUser(mail.orgUuid, mail.userUuid);
  let result: MailResult;
  if (!user) {
    result = { sent: false, reason: 'UserNotFound', retryable: false };
  } else {
    const password = await unsealPassword(mail).catch(() => null);
    result =
      password === null
        ? { sent: false, reason: 'PasswordNotReadable', retryable: false }
        : await mailUser(
            mail.kind,
            user,
            { language: mail.language, signInUrl: signInAddress(mailSettings().signInUrl), ...(options.realmOf ? { realm: await options.realmOf(mail.orgUuid) } : {}) },
            options.mailer,
            password,
          );
  }
  if (!result.sent && result.retryable && !options.final) {
    // Not a failure yet (the queue delivers it again), so not `MailsFailed`, which pages the on-call engineer.
    count('MailsRetried');
    return 'retry';
  }
  const outcome: MailOutcome = result.sent ? { sent: true } : { sent: false, reason: result.reason };
  const own = [settleWrite(mail, outcome), ...(result.sent && mail.kind === 'welcome' ? [welcomedWrite(mail.orgUuid, mail.userUuid)] : [])];
  const failed = await transactWrite([...own, ...(options.alongside?.(outcome) ?? [])]);
  if (failed.some((index) => index < own.length)) return 'skipped';
  // What was written alongside no longer exists (a job past its retention): the e-mail is settled alone.
  if (failed.length > 0 && (await transactWrite(own)).length > 0) return 'skipped';
  if (!result.sent) {
    const routine = result.reason === 'UserNotFound';
    if (NOT_SENT_TO_SES.has(result.reason)) logger[routine ? 'warn' : 'error']('mail not sent', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, reason: result.reason });
    // A user deleted before its e-mail left is routine: settled as failed (and listed on its job), not alarmed.
    if (!routine) count('MailsFailed');
  }
  return result.sent ? 'sent' : 'failed';
}
