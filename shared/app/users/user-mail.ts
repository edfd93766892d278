import { randomUUID } from 'node:crypto';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import type { Language } from '../../kernel/messages/languages';
import { recordAllQueued, recordQueued, settleNotQueued } from '../../domain/users/user-mail.repository';
import { mailQueue, type MailRequest } from './mail-queue.port';

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

/** The e-mail a user of an organization is to get: `queueUserMails` gives it its id. */
export type UserMailRequest = Omit<MailRequest, 'id'>;

/**
 * Queues e-mails to users (docs/api/users.md#e-mails-to-users): each becomes its user's current attempt
 * of its kind (superseding an earlier one), then goes to the queue. Never throws: the request that
 * created or reactivated the user has done so. Answers the e-mails not queued, each with its reason
 * (their attempts recorded as failed where the table took it), logged and counted.
 */
export async function queueUserMails(requests: UserMailRequest[], options: QueueOptions = {}): Promise<{ request: UserMailRequest; reason: string }[]> {
  if (requests.length === 0) return [];
  try {
    return await queueOrList(requests, options);
  } catch (error) {
    const reason = mailQueue.reasonOf(error);
    for (const request of requests) {
      count('MailsFailed');
      logger.error('mail not queued', { kind: request.kind, orgUuid: request.orgUuid, userUuid: request.userUuid, reason, metric: 'MailNotSent', value: 1 });
    }
    return requests.map((request) => ({ request, reason }));
  }
}

/** How e-mails are queued: `alongside`, written with their records (a bulk job's count of them), all written once by one transaction. */
export interface QueueOptions {
  alongside?: Parameters<typeof recordAllQueued>[2];
}

async function queueOrList(requests: UserMailRequest[], options: QueueOptions): Promise<{ request: UserMailRequest; reason: string }[]> {
  const now = new Date();
  const queued = await Promise.all(requests.map((request) => mailQueue.messageOf({ ...request, id: randomUUID() }, now)));
  // One write for a batch of e-mails to different users; each its own write otherwise.
  const users = new Set(queued.map((mail) => `${mail.orgUuid}/${mail.userUuid}/${mail.kind}`));
  if (options.alongside || (queued.length > 1 && users.size === queued.length)) await recordAllQueued(queued, now, options.alongside ?? []);
  else await Promise.all(queued.map((mail) => recordQueued(mail, now)));
  const notQueued = await mailQueue.enqueue(queued);
  const failures = queued.flatMap((mail, index) => (notQueued.has(mail.id) ? [{ mail, request: requests[index]!, reason: notQueued.get(mail.id)! }] : []));
  await Promise.all(failures.map(({ mail, reason }) => settleNotQueued(mail, reason, now)));
  for (const { mail, reason } of failures) {
    count('MailsFailed');
    logger.error('mail not queued', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, reason, metric: 'MailNotSent', value: 1 });
  }
  return failures.map(({ request, reason }) => ({ request, reason }));
}
