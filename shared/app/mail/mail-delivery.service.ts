import { config, mailSettings } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import type { MailKind } from '../../kernel/messages/mail-kinds';
import { welcomeOutcomeWrite } from '../../domain/bulk/bulk-job-welcomes.repository';
import { getOrganization } from '../../domain/org/org.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { getMailState, settleMail, type MailOutcome } from '../../domain/users/user-mail.repository';
import { getUser } from '../../domain/users/user.repository';
import { signInAddress, type MailContext } from '../users/user-mail';
import { mailSending, type Mailer, type MailResult, type QueuedMail } from './mailer.port';

/**
 * The mail function's side of the e-mails to users (docs/api/users.md#e-mails-to-users): each queued
 * e-mail rendered and sent through SES, and its attempt settled. The functions that queue e-mails
 * (`user-mail.ts`) carry none of it: not the templates, not the mailer.
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
  return mailSending.send(
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
  alongside?: (outcome: MailOutcome) => ReturnType<typeof welcomeOutcomeWrite>[];
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
    const password = await mailSending.unsealPassword(mail).catch(() => null);
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
  if ((await settleMail(mail, outcome, options.alongside?.(outcome) ?? [])) === 'skipped') return 'skipped';
  if (!result.sent) {
    const routine = result.reason === 'UserNotFound';
    if (NOT_SENT_TO_SES.has(result.reason)) logger[routine ? 'warn' : 'error']('mail not sent', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, reason: result.reason });
    // A user deleted before its e-mail left is routine: settled as failed (and listed on its job), not alarmed.
    if (!routine) count('MailsFailed');
  }
  return result.sent ? 'sent' : 'failed';
}

/** A message of the mail queue, as its consumer receives it. */
export interface MailQueueMessage {
  messageId: string;
  body: string;
  /** How many times the queue has delivered it, this time included. */
  receives: number;
}

/**
 * Delivers one message of the mail queue (the `mail` function's record handler): each is one e-mail to
 * a user, sent at this invocation's share of SES's send rate (the account's rate divided by the
 * `MAIL_CONSUMERS` invocations the queue's event source runs at once). `retry` when SES refused it for
 * its rate or its outage (the queue delivers it again after its visibility timeout; on its last receive
 * any failure is settled, and a bulk job lists it); `unreadable` for a message that holds no e-mail
 * (left to the dead-letter queue). `invocation` is the invocation's own object: realms are read once per
 * invocation.
 */
export async function deliverMailMessage(message: MailQueueMessage, invocation: object): Promise<'sent' | 'failed' | 'skipped' | 'retry' | 'unreadable'> {
  const { receives } = message;
  const mail = mailSending.readMessage(JSON.parse(message.body));
  if (!mail) {
    logger.error('mail queue message not readable: left to the dead-letter queue', { messageId: message.messageId, receives });
    return 'unreadable';
  }
  const outcome = await deliverQueuedMail(mail, { mailer: await pacedMailer(), realmOf: realmsOf(invocation), final: receives >= mailSending.maxReceives, alongside: jobTally(mail) });
  if (outcome === 'skipped') count('MailsSkipped');
  if (outcome === 'retry') logger.warn('mail not sent yet: the queue delivers it again', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, receives });
  return outcome;
}

let paced: Promise<Mailer> | undefined;

/** SES's mailer behind this container's token bucket, its rate read once. */
function pacedMailer(): Promise<Mailer> {
  paced ??= mailSending.sharedMailer(config().mailQueue.consumers);
  return paced;
}

const realms = new WeakMap<object, Map<string, Promise<string>>>();

/** An organization's realm name, read once per invocation: a batch is mostly one organization's (a bulk job's welcomes). */
function realmsOf(invocation: object): (orgUuid: string) => Promise<string> {
  const read = realms.get(invocation) ?? new Map<string, Promise<string>>();
  realms.set(invocation, read);
  return (orgUuid) => {
    if (!read.has(orgUuid)) read.set(orgUuid, getOrganization(orgUuid).then((org) => org?.name ?? ''));
    return read.get(orgUuid)!;
  };
}

/** A bulk job's welcome counts its outcome, written with it. */
function jobTally(mail: QueuedMail): DeliveryOptions['alongside'] {
  const { job } = mail;
  if (!job) return undefined;
  return (outcome) => [welcomeOutcomeWrite(mail.orgUuid, job.jobId, outcome.sent ? outcome : { sent: false, failure: { line: job.line, userUuid: mail.userUuid, reason: outcome.reason } })];
}
