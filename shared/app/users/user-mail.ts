import { randomUUID } from 'node:crypto';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import { reasonOf } from '../../adapters/mail/mail-errors';
import { enqueueMails, queuedMailOf, type MailRequest, type QueuedMail } from '../../adapters/mail/mail-queue';
import type { Language } from '../../kernel/messages/languages';
import type { MailKind } from '../../kernel/messages/mail-kinds';
import { keys } from '../../adapters/store/keys';
import { getItem, putItem, updateItem, type TableWrite } from '../../adapters/store/table';

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
export function settleWrite(mail: QueuedMail, outcome: MailOutcome, now = new Date()): TableWrite {
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
