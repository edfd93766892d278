import type { Context, SQSRecord } from 'aws-lambda';
import { welcomeOutcomeWrite } from '../../shared/app/bulk/bulk-job-welcomes';
import { config } from '../../shared/kernel/config';
import { DeliverAgain, eventFunction } from '../../shared/edge/http/event-function';
import { TokenBucket } from '../../shared/kernel/retry';
import { logger } from '../../shared/kernel/logger';
import { MAIL_MAX_RECEIVES, queuedMailSchema, type QueuedMail } from '../../shared/adapters/mail/mail-queue';
import { sesMailer, type Mailer } from '../../shared/adapters/mail/mailer';
import { rateLimited, readSendRate } from '../../shared/adapters/mail/send-rate';
import { count } from '../../shared/kernel/metrics';
import { getOrganization } from '../../shared/domain/org/org.repository';
import type { TableWrite } from '../../shared/adapters/store/table';
import type { MailOutcome } from '../../shared/domain/users/user-mail';
import { deliverQueuedMail } from '../../shared/domain/users/user-mail-delivery';

/**
 * The mail queue's consumer (docs/api/users.md#e-mails-to-users): each message is one e-mail to a
 * user, sent at this invocation's share of SES's send rate (the account's rate divided by the
 * `MAIL_CONSUMERS` invocations the queue's event source runs at once). A message SES refused for its
 * rate or its outage is answered as a batch item failure, so the queue delivers it again after its
 * visibility timeout; on its last receive any failure is settled (and a bulk job lists it). A message
 * that cannot be read goes the same way, to the dead-letter queue.
 */
export const handler = eventFunction('mail', {
  queue: { handle: deliver, failure: 'mail queue message not settled: the queue delivers it again' },
});

async function deliver(record: SQSRecord, context: Context): Promise<void> {
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  const parsed = queuedMailSchema.safeParse(JSON.parse(record.body));
  if (!parsed.success) {
    logger.error('mail queue message not readable: left to the dead-letter queue', { messageId: record.messageId, receives });
    throw new DeliverAgain();
  }
  const mail = parsed.data;
  const outcome = await deliverQueuedMail(mail, { mailer: await pacedMailer(), realmOf: realmsOf(context), final: receives >= MAIL_MAX_RECEIVES, alongside: jobTally(mail) });
  if (outcome === 'skipped') count('MailsSkipped');
  if (outcome === 'retry') {
    logger.warn('mail not sent yet: the queue delivers it again', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, receives });
    throw new DeliverAgain();
  }
}

let paced: Promise<Mailer> | undefined;

/** SES's mailer behind this container's token bucket, its rate read once. */
function pacedMailer(): Promise<Mailer> {
  paced ??= readSendRate().then(({ ratePerSecond }) => rateLimited(sesMailer(), new TokenBucket({ ratePerSecond: ratePerSecond / config().mailQueue.consumers })));
  return paced;
}

const realms = new WeakMap<Context, Map<string, Promise<string>>>();

/** An organization's realm name, read once per invocation: a batch is mostly one organization's (a bulk job's welcomes). */
function realmsOf(context: Context): (orgUuid: string) => Promise<string> {
  const read = realms.get(context) ?? new Map<string, Promise<string>>();
  realms.set(context, read);
  return (orgUuid) => {
    if (!read.has(orgUuid)) read.set(orgUuid, getOrganization(orgUuid).then((org) => org?.name ?? ''));
    return read.get(orgUuid)!;
  };
}

/** A bulk job's welcome counts its outcome, written with it. */
function jobTally(mail: QueuedMail): ((outcome: MailOutcome) => TableWrite[]) | undefined {
  const { job } = mail;
  if (!job) return undefined;
  return (outcome) => [welcomeOutcomeWrite(mail.orgUuid, job.jobId, outcome.sent ? outcome : { sent: false, failure: { line: job.line, userUuid: mail.userUuid, reason: outcome.reason } })];
}
