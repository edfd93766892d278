import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import '../../kernel/schemas/zod-messages';
import { sqsClient } from '../clients/sqs';
import { config, ConfigError, envNames } from '../../kernel/config';
import { sleep } from '../../kernel/retry';
import { keys } from '../store/keys';
import { openUnderTableKey } from '../store/table-secret';
import { isEnvelope, mailPasswordsKey, open, seal as sealUnder } from '../sealing/envelope';
import { languages, type Language } from '../../kernel/messages/languages';
import { mailKinds, type MailKind } from '../../kernel/messages/mail-kinds';

/**
 * The mail queue (docs/api/users.md#e-mails-to-users): each e-mail to a user (welcome, reactivation)
 * waits in SQS until the `mail` function sends it at SES's rate. A message names the user by ids, never
 * by address or name (the consumer reads the user), and carries its password sealed under the
 * mail-passwords KMS key (envelope encryption, bound to the message's id), so a queue message or a dead
 * letter shows no password to whoever cannot use that key: only the `mail` function may open it.
 */
export const queuedMailSchema = z.strictObject({
  /** The attempt: the user's mail item names the current one, so a duplicate or superseded message is skipped. */
  id: z.uuid(),
  kind: z.enum(mailKinds),
  orgUuid: z.string().check(z.minLength(1)),
  userUuid: z.string().check(z.minLength(1)),
  language: z.enum(languages),
  password: z.optional(z.strictObject({ sealed: z.string().check(z.minLength(1)), temporary: z.boolean() })),
  /** The bulk job the user came from, and its line: the job counts the e-mail's outcome. */
  job: z.optional(z.strictObject({ jobId: z.string().check(z.minLength(1)), line: z.int() })),
  queuedAt: z.string(),
});

export type QueuedMail = z.infer<typeof queuedMailSchema>;

/** An e-mail to queue, its password in clear (sealed on the way in). */
export interface MailRequest {
  id: string;
  kind: MailKind;
  orgUuid: string;
  userUuid: string;
  language: Language;
  password?: { value: string; temporary: boolean };
  job?: { jobId: string; line: number };
}

/** The message id as associated data: a sealed password opens only in its own message. */
const seal = (value: string, id: string): Promise<string> => sealUnder(mailPasswordsKey, value, id);

/**
 * The password a queued e-mail carries; throws when it was not sealed for this message under the
 * mail-passwords key, or altered. A message queued before that key (sealed under the key an item of
 * the table kept) still opens while that item exists: docs/architecture.md#sealed-secrets.
 */
export async function unsealPassword(mail: QueuedMail): Promise<{ value: string; temporary: boolean } | undefined> {
  if (!mail.password) return undefined;
  const { sealed } = mail.password;
  const value = isEnvelope(sealed) ? await open(mailPasswordsKey, sealed, mail.id) : await openUnderTableKey(keys.mailSealKey(), sealed, mail.id);
  return { value, temporary: mail.password.temporary };
}

/** The queued form of a request: ids, language, the sealed password. */
export async function queuedMailOf(request: MailRequest, now = new Date()): Promise<QueuedMail> {
  const { password, job, ...rest } = request;
  return {
    ...rest,
    ...(password ? { password: { sealed: await seal(password.value, request.id), temporary: password.temporary } } : {}),
    ...(job ? { job } : {}),
    queuedAt: now.toISOString(),
  };
}

/**
 * How many times the queue delivers a message (its dead-letter queue's `maxReceiveCount`): a send SES
 * refused for its rate or its outage is tried again on each, and settled as failed on the last.
 */
export const MAIL_MAX_RECEIVES = 5;

/** SendMessageBatch's limit. */
const BATCH = 10;
const SEND_ATTEMPTS = 3;

function queueUrl(): string {
  const url = config().mailQueue.url;
  if (!url) throw new ConfigError(`Missing environment variable ${envNames.mailQueueUrl}: the queue e-mails to users wait in`);
  return url;
}

/**
 * Sends the e-mails to the queue, ten a call, trying entries SQS did not take again (3 attempts); never
 * throws. Answers the ids of the e-mails not queued, each with the reason (an error's name only).
 */
export async function enqueueMails(mails: QueuedMail[]): Promise<Map<string, string>> {
  const url = queueUrl();
  const notQueued = new Map<string, string>();
  const batches: QueuedMail[][] = [];
  for (let i = 0; i < mails.length; i += BATCH) batches.push(mails.slice(i, i + BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt++) {
        let failed: { id: string; reason: string }[];
        try {
          const answer = await sqsClient().send(
            new SendMessageBatchCommand({ QueueUrl: url, Entries: pending.map((mail, index) => ({ Id: String(index), MessageBody: JSON.stringify(mail) })) }),
          );
          failed = (answer.Failed ?? []).map((entry) => ({ id: pending[Number(entry.Id)]!.id, reason: entry.Code ?? 'SendMessageBatchFailed' }));
        } catch (error) {
          const name = (error as { name?: unknown }).name;
          failed = pending.map((mail) => ({ id: mail.id, reason: typeof name === 'string' ? name : 'UnknownError' }));
        }
        const failedIds = new Set(failed.map((entry) => entry.id));
        pending = pending.filter((mail) => failedIds.has(mail.id));
        if (attempt >= SEND_ATTEMPTS) {
          for (const entry of failed) notQueued.set(entry.id, entry.reason);
          return;
        }
        if (pending.length > 0) await sleep(100 * 2 ** attempt);
      }
    }),
  );
  return notQueued;
}
