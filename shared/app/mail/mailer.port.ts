import { MAIL_MAX_RECEIVES, queuedMailSchema, unsealPassword, type QueuedMail } from '../../adapters/mail/mail-queue';
import { sendMail, sesMailer, type Mailer, type MailLogContext, type MailMessage, type MailResult } from '../../adapters/mail/mailer';
import { rateLimited, readSendRate } from '../../adapters/mail/send-rate';
import { TokenBucket } from '../../kernel/retry';

export type { Mailer, MailResult, QueuedMail };

/** Port: the mail queue's consumer side and SES, as the delivery of e-mails to users needs them. */
export interface MailSending {
  /** The e-mail a queue message's body (parsed JSON) holds, or undefined when it holds none. */
  readMessage(body: unknown): QueuedMail | undefined;
  /** The receive on which the queue delivers a message for the last time (then its dead-letter queue). */
  maxReceives: number;
  /** The password a queued e-mail carries; throws when it cannot be opened. */
  unsealPassword(mail: QueuedMail): Promise<{ value: string; temporary: boolean } | undefined>;
  /** SES's mailer behind a token bucket at the account's send rate divided by `consumers` (the rate read now). */
  sharedMailer(consumers: number): Promise<Mailer>;
  /** Sends through `mailer`, never throwing: whether SES accepted the message (`sendMail`). */
  send(mailer: Mailer, message: MailMessage, context: MailLogContext): Promise<MailResult>;
}

/** SES (or its emulator) and the mail queue's messages. */
export const mailSending: MailSending = {
  readMessage: (body) => {
    const parsed = queuedMailSchema.safeParse(body);
    return parsed.success ? parsed.data : undefined;
  },
  maxReceives: MAIL_MAX_RECEIVES,
  unsealPassword,
  sharedMailer: (consumers) =>
    readSendRate().then(({ ratePerSecond }) => rateLimited(sesMailer(), new TokenBucket({ ratePerSecond: ratePerSecond / consumers }))),
  send: (mailer, message, context) => sendMail(mailer, message, context),
};
