import { Match } from 'aws-cdk-lib/assertions';
import { resourceGroups } from '../../shared/edge/api/routes';
import { synthesizedStack } from './stack-template';

const { template, singleId, functionId } = synthesizedStack();

type Alarm = { Properties: Record<string, unknown> & { Dimensions?: { Name: string; Value: unknown }[] } };
const alarms = () => Object.values(template().findResources('AWS::CloudWatch::Alarm')) as Alarm[];
const namespace = 'ManagementApi/AgentPlatformManagementApi';
const alarmsOn = (metricName: string) => alarms().filter((alarm) => alarm.Properties.MetricName === metricName);
const serviceOf = (alarm: Alarm) => alarm.Properties.Dimensions?.find((d) => d.Name === 'service')?.Value;

describe('alarm topic', () => {
  test("the stack owns an SNS topic, encrypted with a key CloudWatch may use, and TLS-only", () => {
    const topic = template().findResources('AWS::SNS::Topic')[singleId('AWS::SNS::Topic')]!;
    const keyId = (topic.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const key = template().findResources('AWS::KMS::Key')[keyId]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const statements = key.Properties.KeyPolicy.Statement as { Principal?: { Service?: string }; Action: string[] }[];
    expect(statements.find((s) => s.Principal?.Service === 'cloudwatch.amazonaws.com')?.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    template().hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    // The topic policy replaces SNS's default one: CloudWatch alarms of this account may still publish.
    template().hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnLike: { 'aws:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
    expect(template().findResources('AWS::SNS::Subscription')).toEqual({});
  });

  test('every alarm notifies the topic when it goes into ALARM and when it is OK again', () => {
    const topic = { Ref: singleId('AWS::SNS::Topic') };
    expect(alarms().length).toBeGreaterThan(20);
    for (const alarm of alarms()) {
      expect([alarm.Properties.AlarmName ?? alarm.Properties.AlarmDescription, alarm.Properties.AlarmActions, alarm.Properties.OKActions]).toEqual([
        alarm.Properties.AlarmName ?? alarm.Properties.AlarmDescription,
        [topic],
        [topic],
      ]);
    }
  });
});

describe('alarms', () => {
  test.each(resourceGroups)('%s has an errors and a throttles alarm', (group) => {
    for (const metricName of ['Errors', 'Throttles']) {
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: metricName,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(group) } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  test('the API 5xx alarm is a share of requests (metric math), 1% by default', () => {
    const apiId = { Ref: singleId('AWS::ApiGatewayV2::Api') };
    const rate = alarms().filter((alarm) =>
      (alarm.Properties.Metrics as { Expression?: string }[] | undefined)?.some((m) => m.Expression?.includes('errors / requests')),
    );
    expect(rate).toHaveLength(1);
    const metrics = rate[0]!.Properties.Metrics as { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } } }[];
    expect(metrics.find((m) => m.Expression)).toMatchObject({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' });
    expect(Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat!.Metric.MetricName]))).toEqual({ requests: 'Count', errors: '5xx' });
    for (const m of metrics.filter((m) => m.MetricStat)) expect(m.MetricStat!.Metric.Dimensions).toEqual([{ Name: 'ApiId', Value: apiId }]);
    expect(rate[0]!.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarms().filter((alarm) => alarm.Properties.MetricName === '5xx')).toEqual([]);
  });

  test('the API p99 latency alarm: above 5000 ms for three 5-minute periods', () => {
    expect(alarmsOn('Latency').map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({ Namespace: 'AWS/ApiGateway', ExtendedStatistic: 'p99', Threshold: 5000, EvaluationPeriods: 3, Period: 300 }),
    ]);
  });

  test('failed mail alarms, from Powertools metrics in the stack namespace, for mail (not sent) and users, scim and bulk-worker (not queued); no log metric filter', () => {
    expect(alarmsOn('MailsFailed').map((alarm) => [alarm.Properties.Namespace, serviceOf(alarm), alarm.Properties.Statistic, alarm.Properties.Threshold]).sort()).toEqual([
      [namespace, 'bulk-worker', 'Sum', 1],
      [namespace, 'mail', 'Sum', 1],
      [namespace, 'scim', 'Sum', 1],
      [namespace, 'users', 'Sum', 1],
    ]);
    expect(template().findResources('AWS::Logs::MetricFilter')).toEqual({});
  });

  test('Cognito throttles seen by the code alarm, for each function that calls Cognito', () => {
    expect(alarmsOn('IdentityProviderThrottled').map((alarm) => [alarm.Properties.Namespace, serviceOf(alarm)]).sort()).toEqual(
      ['auth', 'bulk', 'bulk-worker', 'scim', 'users'].map((service) => [namespace, service]),
    );
  });

  test("the table's throttled requests and system errors alarm, summed over the operations the code makes", () => {
    const tableId = { Ref: singleId('AWS::DynamoDB::Table') };
    for (const metricName of ['ThrottledRequests', 'SystemErrors']) {
      const matching = alarms().filter((alarm) =>
        (alarm.Properties.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[] | undefined)?.some((m) => m.MetricStat?.Metric.MetricName === metricName),
      );
      expect(matching).toHaveLength(1);
      const stats = (matching[0]!.Properties.Metrics as { MetricStat?: { Metric: { Dimensions: { Name: string; Value: unknown }[] } } }[]).filter((m) => m.MetricStat);
      expect(stats.map((m) => m.MetricStat!.Metric.Dimensions.find((d) => d.Name === 'Operation')?.Value).sort()).toEqual(
        ['BatchGetItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query', 'TransactWriteItems', 'UpdateItem'],
      );
      for (const m of stats) expect(m.MetricStat!.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: tableId });
    }
  });

  test("the bulk worker's failed deliveries to its failure queue alarm", () => {
    expect(alarmsOn('DestinationDeliveryFailures').map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({ Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('bulk-worker') } }], Threshold: 1 }),
    ]);
  });

  test("the bulk worker's dropped asynchronous events alarm", () => {
    expect(alarmsOn('AsyncEventsDropped').map((alarm) => alarm.Properties)).toEqual([
      expect.objectContaining({ Namespace: 'AWS/Lambda', Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('bulk-worker') } }], Threshold: 1 }),
    ]);
  });
});

describe('dashboard', () => {
  const body = () => {
    const dashboard = template().findResources('AWS::CloudWatch::Dashboard')[singleId('AWS::CloudWatch::Dashboard')]!;
    return { name: dashboard.Properties.DashboardName as string, text: JSON.stringify(dashboard.Properties.DashboardBody) };
  };

  test('is named for the stack', () => {
    expect(body().name).toBe('AgentPlatformManagementApi-operations');
  });

  test('shows golden signals per function, the API, the bulk pipeline and the application metrics', () => {
    const { text } = body();
    for (const group of resourceGroups) {
      for (const title of ['invocations', 'errors, throttles', 'duration (ms)']) expect(text).toContain(`${group}: ${title}`);
      expect(text).toContain(`\\"${group}\\"`);
    }
    for (const metric of ['Invocations', 'Errors', 'Throttles', 'Duration', 'p50', 'p99', '4xx', '5xx', 'Latency', 'AsyncEventsDropped', 'ApproximateNumberOfMessagesVisible']) {
      expect(text).toContain(metric);
    }
    for (const metric of ['BulkRowsCreated', 'BulkRowsFailed', 'MailsSent', 'MailsFailed', 'TokensGranted', 'UsersCreated']) {
      expect(text).toContain(`\\"${namespace}\\",\\"${metric}\\"`);
    }
  });

  /**
   * The one graph titled `title`, as [namespace, metric, its dimension's value, label] per series. The
   * body is a Fn::Join of JSON text and references (each inside a JSON string): each reference stands
   * for the logical id it names.
   */
  const graphSeries = (title: string) => {
    const dashboard = template().findResources('AWS::CloudWatch::Dashboard')[singleId('AWS::CloudWatch::Dashboard')]!;
    const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const idOf = (part: unknown) => {
      const reference = part as { 'Fn::GetAtt'?: [string, string]; Ref?: string };
      return reference['Fn::GetAtt']?.[0] ?? reference.Ref ?? 'ref';
    };
    const { widgets } = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : idOf(part))).join('')) as {
      widgets: { properties: { title?: string; metrics?: unknown[][] } }[];
    };
    const graphs = widgets.filter((widget) => widget.properties.title === title);
    expect(graphs).toHaveLength(1);
    return graphs[0]!.properties.metrics!.map((metric) => [metric[0], metric[1], metric[3], (metric.at(-1) as { label: string }).label]);
  };

  test("the mail queue graph shows the messages waiting, the dead letters and the oldest message's age, of the stack's mail queues", () => {
    const queues = Object.keys(template().findResources('AWS::SQS::Queue'));
    const [queue, deadLetters] = [queues.find((id) => /^MailQueue[0-9A-F]{8}$/.test(id)), queues.find((id) => /^MailQueueDeadLetters/.test(id))];
    expect([queue, deadLetters]).toEqual([expect.any(String), expect.any(String)]);
    expect(graphSeries('Mail queue')).toEqual([
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', queue, 'waiting'],
      ['AWS/SQS', 'ApproximateNumberOfMessagesNotVisible', queue, 'in flight'],
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', deadLetters, 'dead letters'],
      ['AWS/SQS', 'ApproximateAgeOfOldestMessage', queue, 'oldest waiting (s)'],
    ]);
  });

  test("the mail graph shows the mail function's sent and failed e-mails, and those each queuing function could not queue", () => {
    expect(graphSeries('Mail').map(([, metric, service, label]) => [metric, service, label])).toEqual([
      ['MailsSent', 'mail', 'sent'],
      ['MailsFailed', 'mail', 'failed'],
      ['MailsRetried', 'mail', 'to be delivered again'],
      ...['users', 'scim', 'bulk-worker'].map((service) => ['MailsFailed', service, `not queued (${service})`]),
    ]);
  });
});
