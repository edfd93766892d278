import { Duration, Validations } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmAtLeast } from './monitoring';

export interface BulkPipelineProps {
  /** The bulk worker, which the bulk bucket's object-created events invoke asynchronously. */
  readonly worker: LambdaFunction;
}

const retention = Duration.days(14);

/**
 * Makes every bulk job end, even when its worker cannot (docs/api/bulk.md#jobs-always-end).
 * An S3 event whose every attempt failed (the first and Lambda's 2 retries: a crash, a timeout, an
 * out-of-memory) goes to the failure queue as a Lambda destination record, whose `requestPayload`
 * is the original S3 event. The worker itself consumes that queue and marks the job failed
 * (functions/bulk-worker/handler.ts). A record it cannot settle either goes, after 3 receives, to
 * the dead-letter queue, kept 14 days for the on-call engineer. Both depths alarm.
 */
export class BulkPipeline extends Construct {
  readonly failures: Queue;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: BulkPipelineProps) {
    super(scope, id);
    const queue = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: retention };
    this.deadLetters = new Queue(this, 'DeadLetters', queue);
    this.failures = new Queue(this, 'Failures', {
      ...queue,
      // Six times the worker's timeout, as Lambda advises for a queue a function consumes.
      visibilityTimeout: Duration.seconds(props.worker.timeout!.toSeconds() * 6),
      // At least 5 receives, as AWS advises for a queue a function consumes (a throttled poll counts as one).
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
    });

    props.worker.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(this.failures),
    });
    props.worker.addEventSource(
      new SqsEventSource(this.failures, {
        batchSize: 5,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(5),
        // No more pollers' invocations than the worker's own slots (the mapping's minimum is 2).
        maxConcurrency: 2,
      }),
    );

    const depth = (queue: Queue) => queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' });
    alarmAtLeast(
      this,
      'FailuresAlarm',
      depth(this.failures),
      'A bulk upload failed in the worker after its retries: the worker marks that job failed from the failure queue',
    );
    alarmAtLeast(
      this,
      'DeadLettersAlarm',
      depth(this.deadLetters),
      'A failed bulk upload could not be settled (its job may still show running): see the dead-letter queue',
    );
    alarmAtLeast(
      this,
      'AsyncEventsDroppedAlarm',
      props.worker.metric('AsyncEventsDropped', { period: Duration.minutes(5), statistic: 'Sum' }),
      'Lambda discarded an upload event of the bulk worker (retries spent or too old): it went to the failure queue, which marks its job failed',
    );
    alarmAtLeast(
      this,
      'DestinationDeliveryFailuresAlarm',
      props.worker.metric('DestinationDeliveryFailures', { period: Duration.minutes(5), statistic: 'Sum' }),
      'Lambda could not deliver a failed upload to the failure queue: that job stays queued or running until it expires',
    );

    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This is the dead-letter queue of the bulk failure queue; a dead-letter queue of its own would only move the problem.',
    });
  }
}
