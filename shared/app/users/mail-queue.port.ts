import { reasonOf } from '../../adapters/mail/mail-errors';
import { enqueueMails, queuedMailOf, type MailRequest, type QueuedMail } from '../../adapters/mail/mail-queue';

export type { MailRequest, QueuedMail };

/** Port: the queue e-mails to users wait in (SQS), each message's password sealed on the way in. */
export interface MailQueue {
  /** The message of an e-mail to queue, its password sealed for it. */
  messageOf(request: MailRequest, now: Date): Promise<QueuedMail>;
  /** Queues messages; answers those the queue did not take, by id, with why. */
  enqueue(mails: QueuedMail[]): Promise<Map<string, string>>;
  /** Why a call failed, as a user's mail state records it. */
  reasonOf(error: unknown): string;
}

/** The mail queue of the stack (`MAIL_QUEUE_URL`). */
export const mailQueue: MailQueue = { messageOf: queuedMailOf, enqueue: enqueueMails, reasonOf };
