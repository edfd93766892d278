import { Match } from 'aws-cdk-lib/assertions';
import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { getAtt, synthesizedStack } from './stack-template';
import { actionsOf, resolveIntrinsic, resourcesOf } from './synth';

/** The asynchronous paths of the template: the mail queue, change events from the table's stream, bulk uploads to the worker. */

const { template, functionId, singleId, environmentOf, statementsOf, changeEventsId, mailQueueId } = synthesizedStack();

describe('mail queue', () => {
  /** The statements of a group's role that name the mail queue (or its dead-letter queue). */
  const mailQueueStatements = (group: ResourceGroup) =>
    statementsOf(group).filter((s) =>
      resourcesOf(s).some((r) => [getAtt(mailQueueId('Queue')), getAtt(mailQueueId('DeadLetters'))].some((q) => JSON.stringify(r) === JSON.stringify(q))),
    );
  const queuers: ResourceGroup[] = ['users', 'scim', 'bulk-worker'];

  test('is SQS-encrypted and TLS-only, hides a message 6 × the consumer\'s 60 s, keeps it 4 days, then 5 receives send it to the dead-letter queue (14 days)', () => {
    const queues = template().findResources('AWS::SQS::Queue');
    expect(queues[mailQueueId('Queue')]!.Properties).toEqual({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * 60,
      MessageRetentionPeriod: 4 * 86_400,
      RedrivePolicy: { deadLetterTargetArn: getAtt(mailQueueId('DeadLetters')), maxReceiveCount: 5 },
    });
    expect(queues[mailQueueId('DeadLetters')]!.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    for (const name of ['Queue', 'DeadLetters'] as const) {
      template().hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: mailQueueId(name) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  test('the mail function consumes it: batches of 10, reporting failed items, two invocations at most (which it is told)', () => {
    const mappings = Object.values(template().findResources('AWS::Lambda::EventSourceMapping')).filter(
      (m) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify(getAtt(mailQueueId('Queue'))),
    );
    expect(mappings.map((m) => m.Properties)).toEqual([
      {
        FunctionName: { Ref: functionId('mail') },
        EventSourceArn: getAtt(mailQueueId('Queue')),
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 2 },
      },
    ]);
    expect(environmentOf('mail').MAIL_CONSUMERS).toBe('2');
    expect(mailQueueStatements('mail').flatMap(actionsOf).sort()).toEqual(
      ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
    );
    for (const statement of mailQueueStatements('mail')) expect(resourcesOf(statement)).toEqual([getAtt(mailQueueId('Queue'))]);
  });

  test('only users, scim and bulk-worker queue e-mails: they may send messages to the mail queue alone, whose URL they are given', () => {
    for (const group of resourceGroups.filter((group) => group !== 'mail')) {
      const statements = mailQueueStatements(group);
      if (!queuers.includes(group)) {
        expect([group, statements, environmentOf(group).MAIL_QUEUE_URL]).toEqual([group, [], undefined]);
        continue;
      }
      expect(statements.flatMap(actionsOf).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      for (const statement of statements) expect(resourcesOf(statement)).toEqual([getAtt(mailQueueId('Queue'))]);
      expect(environmentOf(group).MAIL_QUEUE_URL).toEqual({ Ref: mailQueueId('Queue') });
    }
    // No other function, the consumer included, may send to it.
    const sendersToMail = resourceGroups.filter((group) => mailQueueStatements(group).some((s) => actionsOf(s).includes('sqs:SendMessage')));
    expect(sendersToMail.sort()).toEqual([...queuers].sort());
  });

  test('dead letters and an e-mail waiting over an hour alarm', () => {
    const alarms = Object.values(template().findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const on = (queue: 'Queue' | 'DeadLetters', metricName: string) =>
      alarms.filter((a) => a.MetricName === metricName && JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'QueueName', Value: getAtt(mailQueueId(queue), 'QueueName') }]));
    expect(on('DeadLetters', 'ApproximateNumberOfMessagesVisible')).toEqual([
      expect.objectContaining({ Namespace: 'AWS/SQS', Statistic: 'Maximum', Period: 60, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }),
    ]);
    expect(on('Queue', 'ApproximateAgeOfOldestMessage')).toEqual([
      expect.objectContaining({ Namespace: 'AWS/SQS', Statistic: 'Maximum', Period: 300, Threshold: 3_600, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }),
    ]);
  });
});

describe('change events', () => {
  test('the table streams new images to the publisher function: audit-event insertions only, from the oldest record, split and retried, then the dead-letter queue', () => {
    expect(template().findResources('AWS::DynamoDB::Table')[singleId('AWS::DynamoDB::Table')]!.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const mappings = Object.values(template().findResources('AWS::Lambda::EventSourceMapping')).filter((m) => JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.Properties).toMatchObject({
      FunctionName: { Ref: functionId('publisher') },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86_400,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: getAtt(changeEventsId('DeadLetters')) } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['AUDIT_EVENT'] } } } }) }] },
    });
  });

  test('only the publisher function may put events, on the stack\'s bus, which it is told with the type prefix', () => {
    const putters = resourceGroups.filter((group) => statementsOf(group).some((s) => actionsOf(s).includes('events:PutEvents')));
    expect(putters).toEqual(['publisher']);
    const put = statementsOf('publisher').find((s) => actionsOf(s).includes('events:PutEvents'))!;
    expect(resourcesOf(put)).toEqual([getAtt(changeEventsId('Bus'))]);
    expect(environmentOf('publisher')).toMatchObject({ EVENT_BUS_NAME: { Ref: changeEventsId('Bus') }, EVENT_TYPE_PREFIX: 'com.agentplatform' });
    // Webhook pings and subscriptions' full types, in the users function, are typed under the same prefix.
    expect(environmentOf('users')).toMatchObject({ EVENT_TYPE_PREFIX: 'com.agentplatform' });
  });

  test('the dead-letter queue\'s depth and the stream\'s iterator age alarm; the example rule is disabled; a schedule starts the webhook sweep each minute', () => {
    const alarms = Object.values(template().findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === 'IteratorAge')).toEqual([expect.objectContaining({ Threshold: 300_000, Statistic: 'Maximum' })]);
    expect(alarms.some((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(a.Dimensions).includes(changeEventsId('DeadLetters')))).toBe(true);
    const rules = Object.values(template().findResources('AWS::Events::Rule')).map((r) => r.Properties);
    expect(rules).toHaveLength(2);
    expect(rules).toContainEqual(expect.objectContaining({ State: 'DISABLED', EventBusName: { Ref: changeEventsId('Bus') } }));
    const schedule = rules.find((rule) => rule.ScheduleExpression)!;
    expect(schedule).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(schedule.Targets).toEqual([expect.objectContaining({ Arn: getAtt(functionId('publisher')), Input: JSON.stringify({ sweep: 'webhooks' }) })]);
  });
});

describe('bulk uploads', () => {
  test('an object created under uploads/ (a .csv) starts the bulk worker, and nothing else does', () => {
    const notifications = Object.values(template().findResources('Custom::S3BucketNotifications'));
    expect(notifications).toHaveLength(1);
    const configuration = notifications[0]!.Properties.NotificationConfiguration as {
      LambdaFunctionConfigurations: { Events: string[]; LambdaFunctionArn: unknown; Filter: { Key: { FilterRules: { Name: string; Value: string }[] } } }[];
    };
    expect(configuration.LambdaFunctionConfigurations).toHaveLength(1);
    const [trigger] = configuration.LambdaFunctionConfigurations;
    expect(trigger!.Events).toEqual(['s3:ObjectCreated:*']);
    expect(resolveIntrinsic(trigger!.LambdaFunctionArn)).toBe(`<${functionId('bulk-worker')}.Arn>`);
    expect(trigger!.Filter.Key.FilterRules).toEqual(
      expect.arrayContaining([
        { Name: 'prefix', Value: 'uploads/' },
        { Name: 'suffix', Value: '.csv' },
      ]),
    );
  });

  test('only bulk and bulk-worker reach the bulk bucket, and only its objects', () => {
    for (const group of resourceGroups) {
      const s3Statements = statementsOf(group).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
      if (group !== 'bulk' && group !== 'bulk-worker') {
        expect(s3Statements).toEqual([]);
        continue;
      }
      expect(s3Statements.flatMap(actionsOf).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
      expect(environmentOf(group).BULK_BUCKET_NAME).toBeDefined();
    }
  });
});
