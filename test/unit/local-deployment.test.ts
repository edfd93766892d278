import type { S3Event } from 'aws-lambda';
import { functionEnvironments, toolEnvironment, UnresolvedVariableError } from '../../infra/local/deployment/function-environments';
import { localQueueNames, localQueueSettings } from '../../infra/local/deployment/local-queues';
import type { LocalResources } from '../../infra/local/deployment/overrides';
import { templateDeployment } from '../../infra/local/template/template-deployment';
import { notified } from '../../infra/local/event-sources';
import type { CfnTemplate } from '../../infra/local/template/cfn';

// The local stack reads each function's environment, limits and event sources, and the queues, from
// the synthesized template; only the overrides table's entries differ.

const path = (name: string) => ({ 'aws:cdk:path': `Stack/${name}/Resource` });
const fn = (group: string, variables: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: group, ...variables } }, ...more },
});

const template: CfnTemplate = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Pool: { Type: 'AWS::Cognito::UserPool', Properties: {} },
    UsersFn: fn('users', { TABLE_NAME: { Ref: 'Table' }, USER_POOL_ID: { Ref: 'Pool' }, MAIL_QUEUE_URL: { Ref: 'MailQueue' }, EVENT_TYPE_PREFIX: 'com.example' }, { Timeout: 20, MemorySize: 1024 }),
    DocsFn: fn('docs', { GENERATIVE_SUBPATH: 'generative' }),
    EventsFn: fn('publisher', { EVENT_BUS_NAME: { Ref: 'Bus' } }, { Timeout: 90 }),
    WorkerFn: fn('bulk-worker', {}, { Timeout: 900 }),
    MailFn: fn('mail', { MAIL_CONSUMERS: '2' }, { Timeout: 60 }),
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'bus' } },
    MailDeadLetters: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 1_209_600 }, Metadata: path('MailQueue/DeadLetters') },
    MailQueue: {
      Type: 'AWS::SQS::Queue',
      Properties: { VisibilityTimeout: 360, MessageRetentionPeriod: 345_600, RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['MailDeadLetters', 'Arn'] }, maxReceiveCount: 5 } },
      Metadata: path('MailQueue/Queue'),
    },
    Failures: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 5400 }, Metadata: path('BulkPipeline/Failures') },
    ChangeDeadLetters: { Type: 'AWS::SQS::Queue', Metadata: path('ChangeEvents/DeadLetters') },
    StreamMapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: {
        FunctionName: { Ref: 'EventsFn' },
        EventSourceArn: { 'Fn::GetAtt': ['Table', 'StreamArn'] },
        BatchSize: 100,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
        MaximumRecordAgeInSeconds: 86_400,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['ChangeDeadLetters', 'Arn'] } } },
        FilterCriteria: { Filters: [{ Pattern: '{"eventName":["INSERT"]}' }] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      },
    },
    MailMapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: 'MailFn' }, EventSourceArn: { 'Fn::GetAtt': ['MailQueue', 'Arn'] }, ScalingConfig: { MaximumConcurrency: 2 } },
    },
    WorkerInvokeConfig: {
      Type: 'AWS::Lambda::EventInvokeConfig',
      Properties: { FunctionName: { Ref: 'WorkerFn' }, MaximumRetryAttempts: 1, DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['Failures', 'Arn'] } } } },
    },
    Notifications: {
      Type: 'Custom::S3BucketNotifications',
      Properties: {
        BucketName: { Ref: 'Bucket' },
        NotificationConfiguration: {
          LambdaFunctionConfigurations: [
            {
              Events: ['s3:ObjectCreated:*'],
              Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '.csv' }, { Name: 'prefix', Value: 'uploads/' }] } },
              LambdaFunctionArn: { 'Fn::GetAtt': ['WorkerFn', 'Arn'] },
            },
          ],
        },
      },
    },
    Sweep: {
      Type: 'AWS::Events::Rule',
      Properties: { ScheduleExpression: 'rate(1 minute)', State: 'ENABLED', Targets: [{ Arn: { 'Fn::GetAtt': ['EventsFn', 'Arn'] }, Input: '{"sweep":"webhooks"}' }] },
      Metadata: path('ChangeEvents/WebhookSweepSchedule'),
    },
    DisabledRule: { Type: 'AWS::Events::Rule', Properties: { ScheduleExpression: 'rate(1 hour)', State: 'DISABLED', Targets: [{ Arn: { 'Fn::GetAtt': ['EventsFn', 'Arn'] } }] } },
  },
};

const deployment = templateDeployment(template, 'Stack');

const local: LocalResources = {
  apiUrl: 'http://127.0.0.1:3000',
  subpaths: { generative: 'generative', user: 'user-management' },
  tableName: 'local-table',
  bucketName: 'local-bucket',
  eventBusName: 'local-bus',
  userPoolId: 'local_pool',
  userPoolClientId: 'client',
  signingKeyFile: '/data/signing-key.json',
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  endpoints: { dynamodb: 'http://d', cognito: 'http://c', s3: 'http://s', ses: 'http://e', eventbridge: 'http://b', sqs: 'http://q', kms: 'http://k' },
  queueUrlOf: (reference) => `http://q/000000000000/${localQueueNames(deployment).get((reference as { Ref: string }).Ref)}`,
  processEnv: {},
};

describe('the deployment the template describes', () => {
  test("each function's environment as written, its timeout and memory (CloudFormation's 3 s and 128 MB when unset)", () => {
    const byGroup = Object.fromEntries(deployment.functions.map((f) => [f.group, f]));
    expect(byGroup.users).toMatchObject({ logicalId: 'UsersFn', timeoutSeconds: 20, memoryMb: 1024, environment: { TABLE_NAME: { Ref: 'Table' }, EVENT_TYPE_PREFIX: 'com.example' } });
    expect(byGroup.docs).toMatchObject({ timeoutSeconds: 3, memoryMb: 128 });
  });

  test('the stream mapping with its batch, bisect, retries, record age, on-failure queue and filter; the queue mapping with its concurrency', () => {
    expect(deployment.eventSources).toEqual([
      {
        logicalId: 'StreamMapping',
        group: 'publisher',
        source: { kind: 'table-stream', table: 'Table' },
        batchSize: 100,
        bisectOnError: true,
        retryAttempts: 10,
        maxRecordAgeSeconds: 86_400,
        onFailure: 'ChangeDeadLetters',
        reportBatchItemFailures: true,
        maxBatchingWindowSeconds: 0,
        filters: [{ eventName: ['INSERT'] }],
      },
      {
        logicalId: 'MailMapping',
        group: 'mail',
        source: { kind: 'queue', queue: 'MailQueue' },
        batchSize: 10,
        bisectOnError: false,
        retryAttempts: -1,
        maxRecordAgeSeconds: -1,
        reportBatchItemFailures: false,
        maxBatchingWindowSeconds: 0,
        maxConcurrency: 2,
        filters: [],
      },
    ]);
  });

  test("the worker's asynchronous invocation, the bucket's notification with its filter, and the enabled schedule with its input", () => {
    expect(deployment.asyncInvokes).toEqual([{ group: 'bulk-worker', retryAttempts: 1, maxEventAgeSeconds: 21_600, onFailure: 'Failures' }]);
    expect(deployment.notifications).toEqual([{ bucket: 'Bucket', group: 'bulk-worker', events: ['s3:ObjectCreated:*'], prefix: 'uploads/', suffix: '.csv' }]);
    expect(deployment.schedules).toEqual([
      { logicalId: 'Sweep', path: 'ChangeEvents/WebhookSweepSchedule', expression: 'rate(1 minute)', group: 'publisher', input: { sweep: 'webhooks' } },
    ]);
  });

  test('the queues: names from the overrides table or the construct path, the visibility timeout, retention and redrive policy', () => {
    expect(localQueueSettings(deployment)).toEqual([
      { name: 'mail-dead-letters', visibilityTimeoutSeconds: 30, retentionSeconds: 1_209_600 },
      { name: 'mail', visibilityTimeoutSeconds: 360, retentionSeconds: 345_600, deadLetterQueue: 'mail-dead-letters', maxReceiveCount: 5 },
      { name: 'bulk-pipeline-failures', visibilityTimeoutSeconds: 5400, retentionSeconds: 345_600 },
      { name: 'change-events-dead-letters', visibilityTimeoutSeconds: 30, retentionSeconds: 345_600 },
    ]);
  });

  test('LOCAL_MAIL_VISIBILITY_SECONDS sets the mail queue’s visibility timeout only', () => {
    process.env.LOCAL_MAIL_VISIBILITY_SECONDS = '3';
    try {
      expect(localQueueSettings(deployment).map((queue) => [queue.name, queue.visibilityTimeoutSeconds])).toEqual([
        ['mail-dead-letters', 30],
        ['mail', 3],
        ['bulk-pipeline-failures', 5400],
        ['change-events-dead-letters', 30],
      ]);
    } finally {
      delete process.env.LOCAL_MAIL_VISIBILITY_SECONDS;
    }
  });

  test("an object-created event reaches the worker only for a key the notification's prefix and suffix name", () => {
    const [notification] = deployment.notifications;
    const record = (key: string, eventName = 'ObjectCreated:Put') => ({ eventName, s3: { object: { key } } }) as S3Event['Records'][number];
    expect(notified(notification!, record('uploads/o/j.csv'))).toBe(true);
    expect(notified(notification!, record('uploads/o/my+file.csv'))).toBe(true);
    expect(notified(notification!, record('uploads/o/j.txt'))).toBe(false);
    expect(notified(notification!, record('results/o/j.csv'))).toBe(false);
    expect(notified(notification!, record('uploads/o/j.csv', 'ObjectRemoved:Delete'))).toBe(false);
  });
});

describe("each function's own environment", () => {
  const environments = functionEnvironments(deployment, local);

  test('a function gets what its template declares, references replaced by the local resources, and the local-only variables; nothing else', () => {
    const users = environments.get('users')!;
    expect(users).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'users',
      TABLE_NAME: 'local-table',
      USER_POOL_ID: 'local_pool',
      MAIL_QUEUE_URL: 'http://q/000000000000/mail',
      EVENT_TYPE_PREFIX: 'com.example',
      AWS_REGION: 'us-east-1',
      DYNAMODB_ENDPOINT: 'http://d',
      WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true',
    });
    const docs = environments.get('docs')!;
    expect(docs).not.toHaveProperty('TABLE_NAME');
    expect(docs).not.toHaveProperty('EVENT_TYPE_PREFIX');
    expect(environments.get('publisher')).not.toHaveProperty('TABLE_NAME');
    expect(environments.get('publisher')!.EVENT_BUS_NAME).toBe('local-bus');
    expect(environments.get('mail')!.MAIL_CONSUMERS).toBe('1');
  });

  test('an intrinsic the overrides table does not replace stops the start, naming the variable, the function and the table', () => {
    const broken = templateDeployment(
      { Resources: { ...template.Resources, DocsFn: fn('docs', { WIDGET_URL: { 'Fn::GetAtt': ['Widget', 'Url'] } }) } },
      'Stack',
    );

    expect(() => functionEnvironments(broken, local)).toThrow(UnresolvedVariableError);
    expect(() => functionEnvironments(broken, local)).toThrow(
      /^The docs function's WIDGET_URL is \{"Fn::GetAtt":\["Widget","Url"\]\} in the synthesized template, which the local stack cannot resolve: add WIDGET_URL to the overrides table \(infra\/local\/deployment\/overrides\.ts\)/,
    );
  });

  test('the tools’ environment holds the product variables the functions agree on, never one function’s own', () => {
    const tools = toolEnvironment(environments);

    expect(tools).toMatchObject({ TABLE_NAME: 'local-table', EVENT_TYPE_PREFIX: 'com.example', EVENT_BUS_NAME: 'local-bus', AWS_ACCESS_KEY_ID: 'S3RVER' });
    expect(tools).not.toHaveProperty('POWERTOOLS_SERVICE_NAME');
  });
});
