import { randomUUID } from 'node:crypto';
import { mailSettings } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { reasonOf } from '../../adapters/mail/mail-errors';
import { enqueueMails, queuedMailOf, unsealPassword, type MailRequest, type QueuedMail } from '../../adapters/mail/mail-queue';
import type { Language, MailKind } from '../../adapters/mail/mail-terms';
import { sendMail, type Mailer, type MailResult } from '../../adapters/mail/mailer';
import { getOrganization } from '../org/org.repository';
import { keys } from '../../adapters/store/keys';
import { getItem, putItem, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import type { UserRecord } from './user.entities';
import { getUser, welcomedWrite } from './user.repository';

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

/** A user's latest queued e-mail of a kind (one item per user and kind): the current attempt and how it ended. */
export interface MailState {
  attempt: string;
  state: 'QUEUED' | 'SENT' | 'FAILED';
  /** Why it failed: SES's error name, or why it was never queued or sent. */
  reason?: string;
  queuedAt: string;
  settledAt?: string;
}

/** How long a user's mail item is kept after its last attempt: long past any retry. */
const MAIL_STATE_DAYS = 30;

/** The e-mail a user of an organization is to get: `queueUserMails` gives it its id. */
export type UserMailRequest = Omit<MailRequest, 'id'>;

export async function getMailState(orgUuid: string, userUuid: string, kind: MailKind): Promise<MailState | undefined> {
  return getItem<MailState>(keys.userMail(orgUuid, userUuid, kind), { consistent: true });
}

/**
 * Queues e-mails to users (docs/api/users.md#e-mails-to-users): each becomes its user's current attempt
 * of its kind (superseding an earlier one), then goes to the queue. Never throws: the request that
 * created or reactivated the user has done so. Answers the e-mails not queued, each with its reason
 * (their attempts recorded as failed where the table took it), logged and counted.
 */
export async function queueUserMails(requests: UserMailRequest[]): Promise<{ request: UserMailRequest; reason: string }[]> {
  if (requests.length === 0) return [];
  try {
    return await queueOrList(requests);
  } catch (error) {
    const reason = reasonOf(error);
    for (const request of requests) {
      count('MailsFailed');
      logger.error('mail not queued', { kind: request.kind, orgUuid: request.orgUuid, userUuid: request.userUuid, reason, metric: 'MailNotSent', value: 1 });
    }
    return requests.map((request) => ({ request, reason }));
  }
}

async function queueOrList(requests: UserMailRequest[]): Promise<{ request: UserMailRequest; reason: string }[]> {
  const now = new Date();
  const ttl = Math.floor(now.getTime() / 1000) + MAIL_STATE_DAYS * 86_400;
  const queued = await Promise.all(requests.map((request) => queuedMailOf({ ...request, id: randomUUID() }, now)));
  await Promise.all(
    queued.map((mail) =>
      putItem({ ...keys.userMail(mail.orgUuid, mail.userUuid, mail.kind), type: 'MAIL', attempt: mail.id, state: 'QUEUED', queuedAt: mail.queuedAt, ttl }),
    ),
  );
  const notQueued = await enqueueMails(queued);
  const failures = queued.flatMap((mail, index) => (notQueued.has(mail.id) ? [{ mail, request: requests[index]!, reason: notQueued.get(mail.id)! }] : []));
  await Promise.all(failures.map(({ mail, reason }) => updateItem(settleWrite(mail, { sent: false, reason }, now).Update!)));
  for (const { mail, reason } of failures) {
    count('MailsFailed');
    logger.error('mail not queued', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, reason, metric: 'MailNotSent', value: 1 });
  }
  return failures.map(({ request, reason }) => ({ request, reason }));
}

/** What became of a queued e-mail. */
export type MailOutcome = { sent: true } | { sent: false; reason: string };

/** Settles the attempt `mail` is, if it is still its user's current one and queued. */
function settleWrite(mail: QueuedMail, outcome: MailOutcome, now = new Date()): TableWrite {
  return {
    Update: {
      Key: keys.userMail(mail.orgUuid, mail.userUuid, mail.kind),
      UpdateExpression: `SET #state = :state, settledAt = :now${outcome.sent ? '' : ', reason = :reason'}`,
      ConditionExpression: 'attempt = :attempt AND #state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': outcome.sent ? 'SENT' : 'FAILED',
        ':now': now.toISOString(),
        ':attempt': mail.id,
        ':queued': 'QUEUED',
        ...(outcome.sent ? {} : { ':reason': outcome.reason }),
      },
    },
  };
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

/**
 * Sends one queued e-mail, once: a message whose attempt is no longer its user's current one, or
 * already settled (a duplicate delivery), is skipped. SES accepting it settles it as sent (a welcome
 * marks the user welcomed); a refusal of the message settles it as failed; a refusal SES may not repeat
 * (its rate, its outage) answers `retry`, for the queue to deliver it again, unless this delivery is
 * `final`.
 */
/** The failures decided before any call to SES (whose refusals `sendMail` logs). */
const NOT_SENT_TO_SES = new Set(['UserNotFound', 'PasswordNotReadable']);

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
