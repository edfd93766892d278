import { Duration, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, RuleTargetInput, Schedule, type IEventBus } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { auditEventFilterPattern } from '../../shared/app/change-events/change-stream';
import { envNames } from '../../shared/kernel/config';
import { changeStreamReading } from './change-stream-reading';
import { alarmAtLeast } from './monitoring';

export interface ChangeEventsProps {
  /** The `publisher` function, which publishes each audit event the stream carries. */
  readonly publisher: LambdaFunction;
  readonly table: Table;
  /** An existing bus to publish to; unset, the stack's own. */
  readonly busName?: string;
  readonly typePrefix: string;
}

/**
 * Change events (docs/api/events.md): the table's stream, filtered to audit-event insertions, feeds
 * the `publisher` function, which puts one CloudEvent per change on the bus. A batch that still fails
 * after its retries goes, as a pointer to its stream records, to the dead-letter queue, which an
 * operator replays (docs/operations/change-events.md); its depth and the stream's iterator age alarm.
 */
export class ChangeEvents extends Construct {
  readonly bus: IEventBus;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    const { publisher } = props;
    this.bus = props.busName ? EventBus.fromEventBusName(this, 'Bus', props.busName) : new EventBus(this, 'Bus');
    this.bus.grantPutEventsTo(publisher);
    publisher.addEnvironment(envNames.eventBusName, this.bus.eventBusName);
    publisher.addEnvironment(envNames.eventTypePrefix, props.typePrefix);

    this.deadLetters = new Queue(this, 'DeadLetters', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    publisher.addEventSource(
      new DynamoEventSource(props.table, {
        // From the oldest record the stream keeps: a change committed while the mapping was created is published too.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: changeStreamReading.batchSize,
        retryAttempts: changeStreamReading.retryAttempts,
        maxRecordAge: Duration.hours(changeStreamReading.maxRecordAgeHours),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        // One poller per shard keeps the shard's order, which is each resource's order (its items share a partition).
        parallelizationFactor: 1,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [FilterCriteria.filter(auditEventFilterPattern as unknown as Record<string, unknown>)],
      }),
    );

    // The webhook sweep: each minute a sweep of about 75 s (the function's 90 s less the receivers' 10 s
    // and a margin), so two overlap and due deliveries never wait for the next one (shared/app/webhooks/delivery-engine.ts).
    new Rule(this, 'WebhookSweepSchedule', {
      schedule: Schedule.rate(Duration.minutes(1)),
      description: 'Sends the due webhook deliveries',
      targets: [new LambdaTarget(publisher, { event: RuleTargetInput.fromObject({ sweep: 'webhooks' }), retryAttempts: 0 })],
    });

    // An example for the integrator: every agent change of this stack, disabled until a target is added (docs/api/events.md#eventbridge).
    new Rule(this, 'ExampleAgentChangesRule', {
      eventBus: this.bus,
      enabled: false,
      description: 'Example: every agent change; add a target and enable it',
      eventPattern: { source: [props.typePrefix], detailType: [`${props.typePrefix}.agent.created`, `${props.typePrefix}.agent.updated`, `${props.typePrefix}.agent.restored`] },
    });

    alarmAtLeast(
      this,
      'DeadLettersAlarm',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      'Change events could not be published after their retries: replay the dead-letter queue (docs/operations/change-events.md)',
    );
    alarmAtLeast(
      this,
      'IteratorAgeAlarm',
      publisher.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
      'Change events are more than 5 minutes behind their changes: the publisher function is failing or throttled',
      5 * 60 * 1000,
    );
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This is the change stream's dead-letter queue; a dead-letter queue of its own would only move the problem.",
    });
  }
}
