import type { Context, SQSRecord } from 'aws-lambda';
import { deliverMailMessage } from '../../shared/app/mail/mail-delivery.service';
import { DeliverAgain, eventFunction } from '../../shared/edge/http/event-function';

/**
 * The mail queue's consumer (docs/api/users.md#e-mails-to-users): each message is one e-mail to a
 * user, delivered by `deliverMailMessage`. A message SES refused for its rate or its outage, or one that
 * cannot be read, is answered as a batch item failure, so the queue delivers it again after its
 * visibility timeout (and finally to the dead-letter queue).
 */
export const handler = eventFunction('mail', {
  queue: { handle: deliver, failure: 'mail queue message not settled: the queue delivers it again' },
});

async function deliver(record: SQSRecord, context: Context): Promise<void> {
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  const outcome = await deliverMailMessage({ messageId: record.messageId, body: record.body, receives }, context);
  if (outcome === 'retry' || outcome === 'unreadable') throw new DeliverAgain();
}
