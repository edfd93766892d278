import { Duration, Validations } from 'aws-cdk-lib';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';
import { MAIL_MAX_RECEIVES } from '../../shared/adapters/mail/mail-queue';
import { alarmAtLeast, appMetric } from './monitoring';
import { bindSealingKey } from './sealing-keys';

export interface MailQueueProps {
  /** The `mail` function, which drains the queue at SES's send rate. */
  readonly consumer: LambdaFunction;
  /** The key that seals the passwords messages carry: senders seal with it, the consumer opens. */
  readonly passwords: Key;
}

/**
 * The queue e-mails to users wait in (docs/api/users.md#e-mails-to-users). The `mail` function drains
 * it, two invocations at most (the event source's minimum), each at half SES's send rate; a message
 * SES refused for its rate or outage comes back after the visibility timeout, up to
 * `MAIL_MAX_RECEIVES` receives, the last of which settles it as failed; one that could not be settled
 * even then goes to the dead-letter queue, kept 14 days. Messages hold ids and a sealed password only.
 */
export class MailQueue extends Construct {
  /** Invocations of the consumer at once: the event source's `maxConcurrency`, and the share of SES's rate each takes. */
  static readonly CONSUMERS = 2;
  readonly queue: Queue;
  readonly deadLetters: Queue;
  private readonly passwords: Key;

  constructor(scope: Construct, id: string, props: MailQueueProps) {
    super(scope, id);
    const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
    this.deadLetters = new Queue(this, 'DeadLetters', { ...secure, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'Queue', {
      ...secure,
      // A welcome older than four days is past use: its temporary password has expired in Cognito too.
      retentionPeriod: Duration.days(4),
      // Six times the consumer's timeout, as Lambda advises for a queue a function consumes.
      visibilityTimeout: Duration.seconds(props.consumer.timeout!.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAIL_MAX_RECEIVES },
    });
    props.consumer.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: MailQueue.CONSUMERS }),
    );
    props.consumer.addEnvironment(envNames.mailConsumers, String(MailQueue.CONSUMERS));
    this.passwords = props.passwords;
    bindSealingKey(props.consumer, props.passwords, envNames.mailPasswordsKey, 'open');

    alarmAtLeast(
      this,
      'DeadLettersAlarm',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      'An e-mail to a user could not be settled after its receives (see the mail dead-letter queue): its user may wait for it',
    );
    alarmAtLeast(
      this,
      'OldestMailAlarm',
      this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      'An e-mail to a user has waited in the mail queue for over an hour: SES is refusing or the mail function is failing',
      3_600,
    );
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the mail queue; a dead-letter queue of its own would only move the problem.',
    });
  }

  /**
   * Lets a function queue e-mails and seal their passwords (and names the queue and the key in its
   * environment); alarms when one could not be queued (the code counts `MailsFailed`, records the
   * attempt as failed and goes on).
   */
  bindSender(fn: LambdaFunction, service: string): void {
    this.queue.grantSendMessages(fn);
    fn.addEnvironment(envNames.mailQueueUrl, this.queue.queueUrl);
    bindSealingKey(fn, this.passwords, envNames.mailPasswordsKey, 'seal');
    alarmAtLeast(
      fn,
      'MailsFailedAlarm',
      appMetric(fn, 'MailsFailed', service),
      `The ${service} function could not queue a welcome or reactivation e-mail (metric MailsFailed; its log's "mail not queued" says why)`,
    );
  }
}
