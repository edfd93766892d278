import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { welcomeOutcomeWrite } from '../../shared/bulk/bulk-job';
import { config } from '../../shared/config';
import { logger } from '../../shared/logger';
import { MAIL_MAX_RECEIVES, queuedMailSchema } from '../../shared/mail/mail-queue';
import { sesMailer, type Mailer } from '../../shared/mail/mailer';
import { rateLimited, readSendRate, TokenBucket } from '../../shared/mail/send-rate';
import { count, publishMetrics } from '../../shared/metrics';
import { getOrganization } from '../../shared/org/org.repository';
import { deliverQueuedMail, type MailOutcome } from '../../shared/users/user-mail';

/**
 * The mail queue's consumer (docs/api/users.md#e-mails-to-users): each message is one e-mail to a
 * user, sent at this invocation's share of SES's send rate (the account's rate divided by the
 * `MAIL_CONSUMERS` invocations the queue's event source runs at once). A message SES refused for its
 * rate or its outage is answered as a batch item failure, so the queue delivers it again after its
 * visibility timeout; on its last receive any failure is settled (and a bulk job lists it). A message
 * that cannot be read goes the same way, to the dead-letter queue.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  try {
    const mailer = await pacedMailer();
    // A batch is mostly one organization's (a bulk job's welcomes): its realm is read once per invocation.
    const realms = new Map<string, Promise<string>>();
    const realmOf = (orgUuid: string) => {
      if (!realms.has(orgUuid)) realms.set(orgUuid, getOrganization(orgUuid).then((org) => org?.name ?? ''));
      return realms.get(orgUuid)!;
    };
    const outcomes = await Promise.all(event.Records.map((record) => deliver(record, mailer, realmOf)));
    return { batchItemFailures: event.Records.flatMap((record, index) => (outcomes[index] === 'retry' ? [{ itemIdentifier: record.messageId }] : [])) };
  } finally {
    publishMetrics('mail');
  }
}

let paced: Promise<Mailer> | undefined;

/** SES's mailer behind this container's token bucket, its rate read once. */
function pacedMailer(): Promise<Mailer> {
  paced ??= readSendRate().then(({ ratePerSecond }) => rateLimited(sesMailer(), new TokenBucket({ ratePerSecond: ratePerSecond / config().mailQueue.consumers })));
  return paced;
}

async function deliver(record: SQSRecord, mailer: Mailer, realmOf: (orgUuid: string) => Promise<string>): Promise<'sent' | 'failed' | 'skipped' | 'retry'> {
  const receives = Number(record.attributes.ApproximateReceiveCount) || 1;
  try {
    const parsed = queuedMailSchema.safeParse(JSON.parse(record.body));
    if (!parsed.success) {
      logger.error('mail queue message not readable: left to the dead-letter queue', { messageId: record.messageId, receives });
      return 'retry';
    }
    const mail = parsed.data;
    const job = mail.job;
    const alongside = job ? (outcome: MailOutcome) => [welcomeOutcomeWrite(mail.orgUuid, job.jobId, outcome.sent ? outcome : { sent: false, failure: { line: job.line, userUuid: mail.userUuid, reason: outcome.reason } })] : undefined;
    const outcome = await deliverQueuedMail(mail, { mailer, realmOf, final: receives >= MAIL_MAX_RECEIVES, ...(alongside ? { alongside } : {}) });
    if (outcome === 'skipped') count('MailsSkipped');
    if (outcome === 'retry') logger.warn('mail not sent yet: the queue delivers it again', { kind: mail.kind, orgUuid: mail.orgUuid, userUuid: mail.userUuid, receives });
    return outcome;
  } catch (error) {
    logger.error('mail queue message not settled: the queue delivers it again', { messageId: record.messageId, receives, errorType: (error as Error).name });
    return 'retry';
  }
}
