import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import type { AppMetric } from '../../shared/kernel/metrics';

/** The application metrics the code emits through Powertools (shared/kernel/metrics.ts), unit Count. */
export type AppMetricName = AppMetric;

/**
 * The functions' POWERTOOLS_METRICS_NAMESPACE: named for the stack, so two stacks in one account
 * (staging and production, say) never add up into one metric.
 */
export const metricsNamespace = (scope: IConstruct): string => `ManagementApi/${Stack.of(scope).stackName}`;

/** An application metric of one function, by Powertools' `service` dimension (its resource group). */
export function appMetric(scope: IConstruct, metricName: AppMetricName, service: string, period = Duration.minutes(5)): Metric {
  return new Metric({ namespace: metricsNamespace(scope), metricName, dimensionsMap: { service }, statistic: 'Sum', period });
}

/** An alarm raised as soon as the metric reaches `threshold` (default 1) in one period; no data is no alarm. */
export function alarmAtLeast(scope: Construct, id: string, metric: IMetric, description: string, threshold = 1): Alarm {
  return new Alarm(scope, id, {
    metric,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: description,
  });
}

export interface AlarmTopicProps {
  /** An existing topic: used instead of creating one. */
  readonly topicArn?: string;
  /** Subscribed to the stack's own topic (SNS mails a confirmation link first). */
  readonly email?: string;
}

/** Where every alarm of the stack goes: the stack's own encrypted topic, or an existing one. */
export class AlarmTopic extends Construct {
  readonly topic: ITopic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    if (props.topicArn) {
      if (props.email) throw new Error('Context values "alarmEmail" and "alarmTopicArn" exclude each other: subscribe to the existing topic directly');
      this.topic = Topic.fromTopicArn(this, 'Topic', props.topicArn);
      return;
    }
    // SNS's AWS managed key does not let CloudWatch publish to an encrypted topic: a key of our own does.
    const key = new Key(this, 'Key', {
      description: 'Encrypts the management API alarm topic',
      enableKeyRotation: true,
      // Holds no data at rest beyond messages in flight: nothing to keep once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'Topic', {
      displayName: `${Stack.of(this).stackName} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // enforceSSL writes a topic policy, which replaces SNS's default one (the one that let the
    // account's alarms publish): CloudWatch gets its own Allow, for this account's alarms only.
    const stack = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsOfThisAccount',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    if (props.email) topic.addSubscription(new EmailSubscription(props.email));
    this.topic = topic;
  }

  /**
   * Every alarm under `scope` notifies the topic when it goes into ALARM and when it is back to OK, so
   * the on-call engineer also learns that a problem ended. Call once, after every alarm is created.
   */
  notifyEveryAlarm(scope: IConstruct): void {
    const action = new SnsAction(this.topic);
    for (const construct of scope.node.findAll()) {
      if (!(construct instanceof Alarm)) continue;
      construct.addAlarmAction(action);
      construct.addOkAction(action);
    }
  }
}
