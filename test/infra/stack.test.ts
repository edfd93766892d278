import type { CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { readConfig } from '../../shared/kernel/config';
import { defaultRouteGroup, defaultSubpaths, resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { groupAccess } from '../../infra/cloud/group-access';
import { contextDefaults, throttleDefaults } from '../../infra/cloud/settings';
import { actionsOf, resolveIntrinsic, resourcesOf, statementsOfRole, synthesize, type PolicyStatementJson, type Synthesized } from './synth';

// One synthesis (with esbuild bundling) for the whole file.
let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
});

const template = () => synthesized.template;
const fnOf = (group: ResourceGroup) => synthesized.stack.functions.get(group)!;
const functionId = (group: ResourceGroup) => synthesized.logicalId(fnOf(group).node.defaultChild as CfnElement);
const roleId = (group: ResourceGroup) => synthesized.logicalId(fnOf(group).role!.node.defaultChild as CfnElement);
const singleId = (type: string) => {
  const ids = Object.keys(template().findResources(type));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};
/** The token-signing key (the alarm topic has a KMS key of its own). */
const signingKeyId = () => synthesized.logicalId(synthesized.stack.node.findChild('TokenSigning').node.findChild('Key').node.defaultChild as CfnElement);
const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });
/** What Lambda's pollers need to read a stream (the publisher function's event source mapping). */
const streamActions = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
const queueId = (name: 'Failures' | 'DeadLetters') =>
  synthesized.logicalId(synthesized.stack.node.findChild('BulkPipeline').node.findChild(name).node.defaultChild as CfnElement);
const changeEventsId = (name: 'Bus' | 'DeadLetters') =>
  synthesized.logicalId(synthesized.stack.node.findChild('ChangeEvents').node.findChild(name).node.defaultChild as CfnElement);
const mailQueueId = (name: 'Queue' | 'DeadLetters') =>
  synthesized.logicalId(synthesized.stack.node.findChild('MailQueue').node.findChild(name).node.defaultChild as CfnElement);
/** Every group but the API reference, which reads none of the stack's data (`noData`). */
const dataGroups = resourceGroups.filter((group) => !groupAccess[group]?.noData);
const environmentOf = (group: ResourceGroup): Record<string, unknown> =>
  template().findResources('AWS::Lambda::Function')[functionId(group)]!.Properties.Environment.Variables;

describe('synthesis', () => {
  test('cdk-nag and CloudFormation validation leave no finding unacknowledged (synth throws on any nag finding)', () => {
    expect(synthesized.violations).toEqual([]);
  });

  test('CDK itself warns about nothing (no deprecated API, no ignored setting)', () => {
    expect(synthesized.cdkMessages).toEqual([]);
  });

  // CloudFormation takes at most 500 resources a stack: 400 keeps a margin for what comes next.
  test('the stack stays well within CloudFormation\'s 500 resources (at most 400)', () => {
    expect(Object.keys(template().toJSON().Resources as object).length).toBeLessThanOrEqual(400);
  });
});

describe('table', () => {
  test('has PK/SK, GSI1 on GSI1PK/GSI1SK projecting all, TTL, on-demand, PITR, AWS-managed encryption, retained', () => {
    template().hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith([
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
          { AttributeName: 'GSI1PK', AttributeType: 'S' },
          { AttributeName: 'GSI1SK', AttributeType: 'S' },
        ]),
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        SSESpecification: { SSEEnabled: true },
      },
    });
  });
});

describe('bulk bucket', () => {
  const bucketId = () => synthesized.logicalId(synthesized.stack.node.findChild('BulkUploads').node.findChild('Bucket').node.defaultChild as CfnElement);

  test('blocks public access, is S3-encrypted, logs access and expires uploads and incomplete multipart uploads', () => {
    const bucket = template().findResources('AWS::S3::Bucket')[bucketId()]!;
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: expect.any(String) } },
      LifecycleConfiguration: {
        Rules: [{ Status: 'Enabled', ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
      },
    });
  });

  test('its policy denies every request not made over TLS', () => {
    template().hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('signing key', () => {
  test('is an asymmetric P-256 signing key, retained', () => {
    template().hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' },
    });
  });
});

describe('user pool', () => {
  test('has uuid usernames (no e-mail sign-in), e-mail attribute, admin-only sign-up, the spec password policy, retained', () => {
    const pool = template().findResources('AWS::Cognito::UserPool')[singleId('AWS::Cognito::UserPool')]!;
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties.UsernameAttributes).toBeUndefined();
    expect(pool.Properties.AliasAttributes).toBeUndefined();
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Schema: [{ Name: 'email', Required: true, Mutable: true }],
      Policies: {
        PasswordPolicy: {
          MinimumLength: 6,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: false,
          RequireSymbols: false,
        },
      },
    });
  });

  test('has one console client without secret that allows only admin password auth (and refresh)', () => {
    template().hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      AllowedOAuthFlowsUserPoolClient: false,
    });
  });
});

describe('mail', () => {
  test('has the sender identity in a configuration set', () => {
    template().hasResourceProperties('AWS::SES::EmailIdentity', {
      EmailIdentity: contextDefaults.senderEmail,
      ConfigurationSetAttributes: { ConfigurationSetName: { Ref: singleId('AWS::SES::ConfigurationSet') } },
    });
  });
});

describe('functions', () => {
  test('there is one per resource group', () => {
    expect([...synthesized.stack.functions.keys()].sort()).toEqual([...resourceGroups].sort());
    // Besides ours, only CDK's own handler that configures the bulk bucket's event notification.
    const others = Object.keys(template().findResources('AWS::Lambda::Function')).filter(
      (id) => !resourceGroups.some((group) => id === functionId(group)),
    );
    expect(others).toHaveLength(1);
    expect(others[0]).toMatch(/^BucketNotificationsHandler/);
  });

  /** 10 s, except the users area's and SCIM's (Cognito's throttling is retried), the bulk HTTP side (it waits up to 25 s for its worker, within API Gateway's 30), agents (a bundle's apply), the worker, the publisher function and the mail queue's consumer (10 e-mails at its share of SES's rate). */
  const timeouts: Partial<Record<ResourceGroup, number>> = { users: 20, scim: 20, agents: 29, bulk: 29, 'bulk-worker': 900, publisher: 90, mail: 60 };

  test.each(resourceGroups)('%s runs Node.js 24 on arm64 with 512 MB, its timeout, X-Ray and its own log group', (group) => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId(group)]!;
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: timeouts[group] ?? 10,
      TracingConfig: { Mode: 'Active' },
    });
    const logGroupId = fn.Properties.LoggingConfig.LogGroup.Ref as string;
    expect(template().findResources('AWS::Logs::LogGroup')[logGroupId]!.Properties.RetentionInDays).toBe(30);
  });

  test('only the bulk worker has reserved concurrency (workerConcurrency, default 2)', () => {
    const reserved = Object.fromEntries(
      resourceGroups.map((group) => [group, template().findResources('AWS::Lambda::Function')[functionId(group)]!.Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({ ...Object.fromEntries(resourceGroups.map((group) => [group, undefined])), 'bulk-worker': 2 });
  });

  test.each(resourceGroups)('%s is bundled by esbuild with a source map, leaving the AWS SDK to the runtime', (group) => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId(group)]!;
    const assetDir = path.join(synthesized.assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
    const code = readFileSync(path.join(assetDir, 'index.js'), 'utf8');
    expect(existsSync(path.join(assetDir, 'index.js.map'))).toBe(true);
    // The docs function serves the API description from the catalogue alone: no AWS client at all.
    if (group === 'docs') expect(code).not.toMatch(/require\("@aws-sdk\//);
    else expect(code).toContain('require("@aws-sdk/client-dynamodb")');
    expect(code.startsWith('"use strict";')).toBe(true); // CommonJS
    expect(code.length / code.split('\n').length).toBeGreaterThan(1000); // minified (license comments keep a few lines)
  });

  test.each(dataGroups)("%s gets every variable shared/kernel/config.ts requires, pointing at this stack's resources", (group) => {
    const environment = environmentOf(group);
    const config = readConfig(Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, resolveIntrinsic(v)])));
    const id = (type: string) => singleId(type);
    expect(config).toMatchObject({
      tableName: `<${id('AWS::DynamoDB::Table')}>`,
      userPoolId: `<${id('AWS::Cognito::UserPool')}>`,
      userPoolClientId: `<${id('AWS::Cognito::UserPoolClient')}>`,
      signingKey: { kind: 'kms', keyId: `<${signingKeyId()}.Arn>` },
      tokenIssuer: `<${id('AWS::ApiGatewayV2::Api')}.ApiEndpoint>/auth`,
      subpaths: defaultSubpaths,
    });
    expect(environment).toMatchObject({
      POWERTOOLS_SERVICE_NAME: group,
      // Powertools' namespace names the stack, so two stacks in one account never share a metric.
      POWERTOOLS_METRICS_NAMESPACE: 'ManagementApi/AgentPlatformManagementApi',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  test('docs, the API reference, gets only the routing settings and its runtime own: no table, pool, key nor token settings', () => {
    expect(resourceGroups.filter((group) => !dataGroups.includes(group))).toEqual(['docs']);
    expect(environmentOf('docs')).toEqual({
      POWERTOOLS_SERVICE_NAME: 'docs',
      POWERTOOLS_METRICS_NAMESPACE: 'ManagementApi/AgentPlatformManagementApi',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
      GENERATIVE_SUBPATH: defaultSubpaths.generative,
      USER_SUBPATH: defaultSubpaths.user,
    });
  });

  test('docs carries Swagger UI beside its bundle, where the code finds it, with its licences and nothing else of the package', () => {
    const fn = template().findResources('AWS::Lambda::Function')[functionId('docs')]!;
    const assetDir = path.join(synthesized.assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
    const packageDir = path.join(assetDir, 'node_modules', 'swagger-ui-dist');
    expect(readdirSync(packageDir).sort()).toEqual(['LICENSE', 'NOTICE', 'swagger-ui-bundle.js', 'swagger-ui-bundle.js.LICENSE.txt', 'swagger-ui.css']);
    expect(readFileSync(path.join(packageDir, 'swagger-ui-bundle.js'))).toEqual(readFileSync(path.join('node_modules', 'swagger-ui-dist', 'swagger-ui-bundle.js')));
  });

  test('only mail, the mail queue\'s consumer, may send mail, as the sender, through the configuration set, to any recipient', () => {
    const mailSettings = ['MAIL_FROM', 'SES_CONFIGURATION_SET', 'SIGN_IN_URL'];
    const environment = environmentOf('mail');
    expect(resolveIntrinsic(environment.SIGN_IN_URL)).toBe(
      `<${singleId('AWS::ApiGatewayV2::Api')}.ApiEndpoint>/auth/realms/{realm}/account?kc_locale={locale}`,
    );
    expect(environment).toMatchObject({
      MAIL_FROM: contextDefaults.senderEmail,
      SES_CONFIGURATION_SET: { Ref: singleId('AWS::SES::ConfigurationSet') },
    });
    for (const group of resourceGroups.filter((group) => group !== 'mail')) {
      expect([group, Object.keys(environmentOf(group)).filter((name) => mailSettings.includes(name))]).toEqual([group, []]);
    }
    const senders = resourceGroups.filter((group) =>
      statementsOfRole(template(), roleId(group)).some((s) => actionsOf(s).some((a) => a.startsWith('ses:'))),
    );
    expect(senders).toEqual(['mail']);
    const sesStatements = statementsOfRole(template(), roleId('mail')).filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')));
    // It reads the send quota to pace its sends: GetAccount has no resource-level permission.
    expect(sesStatements.flatMap(actionsOf)).toEqual(['ses:SendEmail', 'ses:SendEmail', 'ses:GetAccount']);
    const [asSender, toRecipients, quota] = sesStatements as [PolicyStatementJson, PolicyStatementJson, PolicyStatementJson];
    expect(resourcesOf(quota)).toEqual(['*']);
    expect(asSender.Condition).toBeUndefined();
    expect(resourcesOf(asSender).map(resolveIntrinsic)).toEqual([
      `arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/<${singleId('AWS::SES::EmailIdentity')}>`,
      `arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:configuration-set/<${singleId('AWS::SES::ConfigurationSet')}>`,
    ]);
    // The SES sandbox authorizes each recipient's identity too: any identity, only as our sender.
    expect(resourcesOf(toRecipients).map(resolveIntrinsic)).toEqual(['arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*']);
    expect(toRecipients.Condition).toEqual({ StringEquals: { 'ses:FromAddress': contextDefaults.senderEmail } });
  });
});

describe('mail queue', () => {
  /** The statements of a group's role that name the mail queue (or its dead-letter queue). */
  const mailQueueStatements = (group: ResourceGroup) =>
    statementsOfRole(template(), roleId(group)).filter((s) =>
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

describe('IAM', () => {
  const allStatements = () =>
    Object.values(template().findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Parameters<typeof actionsOf>[0][],
    );

  test('no statement allows the action "*" or "<service>:*"', () => {
    const actions = allStatements().flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action === '*' || action.endsWith(':*'))).toEqual([]);
  });

  test('only X-Ray, ses:GetAccount and dynamodb:ListStreams, which have no resource-level permissions, are granted on Resource "*"', () => {
    const onAnyResource = allStatements().filter((s) => resourcesOf(s).includes('*'));
    expect(new Set(onAnyResource.flatMap(actionsOf).filter((action) => !action.startsWith('xray:')))).toEqual(new Set(['ses:GetAccount', 'dynamodb:ListStreams']));
  });

  test('function roles carry no managed policy', () => {
    for (const group of resourceGroups) {
      expect(template().findResources('AWS::IAM::Role')[roleId(group)]!.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  test('docs, the API reference, is granted nothing but its own logs and X-Ray', () => {
    const actions = statementsOfRole(template(), roleId('docs')).flatMap(actionsOf);
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  /** The functions writing supervisors and agents check the bot's bundle lease in their transactions. */
  const conditionChecks: readonly ResourceGroup[] = ['supervisors', 'agents'];

  test.each(dataGroups)('%s gets item actions on the table and its indexes only', (group) => {
    const tableId = singleId('AWS::DynamoDB::Table');
    const statements = statementsOfRole(template(), roleId(group)).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:') && !streamActions.includes(a)));
    expect(statements).toHaveLength(1);
    expect(actionsOf(statements[0]!).sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        ...(conditionChecks.includes(group) ? ['dynamodb:ConditionCheckItem'] : []),
      ].sort(),
    );
    expect(resourcesOf(statements[0]!)).toEqual([getAtt(tableId), { 'Fn::Join': ['', [getAtt(tableId), '/index/*']] }]);
  });

  test.each(dataGroups)('%s may read the public key of the signing key; only auth may sign', (group) => {
    const statements = statementsOfRole(template(), roleId(group)).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
    expect(statements).toHaveLength(1);
    expect(resourcesOf(statements[0]!)).toEqual([getAtt(signingKeyId())]);
    expect(actionsOf(statements[0]!).sort()).toEqual(group === 'auth' ? ['kms:GetPublicKey', 'kms:Sign'] : ['kms:GetPublicKey']);
  });

  test('auth, users, scim, bulk and bulk-worker get exactly their Cognito actions, on the pool only; no other group gets any', () => {
    const expected: Partial<Record<ResourceGroup, string[]>> = {
      auth: ['cognito-idp:AdminInitiateAuth', 'cognito-idp:AdminSetUserPassword'],
      users: [
        'cognito-idp:AdminCreateUser',
        'cognito-idp:AdminDisableUser',
        'cognito-idp:AdminEnableUser',
        'cognito-idp:AdminSetUserPassword',
        'cognito-idp:AdminUpdateUserAttributes',
      ],
      // The SCIM service provider runs the users area's use cases.
      scim: [
        'cognito-idp:AdminCreateUser',
        'cognito-idp:AdminDisableUser',
        'cognito-idp:AdminEnableUser',
        'cognito-idp:AdminSetUserPassword',
        'cognito-idp:AdminUpdateUserAttributes',
      ],
      // bulk-delete deletes users as the users function does (disable, and enable again on rollback).
      bulk: ['cognito-idp:AdminDisableUser', 'cognito-idp:AdminEnableUser'],
      'bulk-worker': ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword'],
    };
    for (const group of resourceGroups) {
      const statements = statementsOfRole(template(), roleId(group)).filter((s) => actionsOf(s).some((a) => a.startsWith('cognito-idp:')));
      expect(statements.flatMap(actionsOf).sort()).toEqual(expected[group] ?? []);
      for (const statement of statements) {
        expect(resourcesOf(statement)).toEqual([getAtt(singleId('AWS::Cognito::UserPool'))]);
      }
    }
  });
});

describe('HTTP API', () => {
  const routesByKey = () =>
    new Map(Object.values(template().findResources('AWS::ApiGatewayV2::Route')).map((r) => [r.Properties.RouteKey as string, r.Properties]));
  const integrations = () => template().findResources('AWS::ApiGatewayV2::Integration');
  const integrationTarget = (group: ResourceGroup) => {
    const [id] = Object.entries(integrations()).find(
      ([, integration]) => JSON.stringify(integration.Properties.IntegrationUri) === JSON.stringify(getAtt(functionId(group))),
    )!;
    return { 'Fn::Join': ['', ['integrations/', { Ref: id }]] };
  };

  test('each group has one Lambda proxy integration with payload format 2.0', () => {
    const groupsWithRoutes = new Set([...resolveRoutes(defaultSubpaths).map((r) => r.group), defaultRouteGroup]);
    expect(Object.keys(integrations())).toHaveLength(groupsWithRoutes.size);
    for (const group of groupsWithRoutes) {
      template().hasResourceProperties('AWS::ApiGatewayV2::Integration', {
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: getAtt(functionId(group)),
        PayloadFormatVersion: '2.0',
      });
    }
  });

  test.each(resolveRoutes(defaultSubpaths).map((route) => [route.routeKey, route.group] as const))(
    '%s is routed to the %s function without a gateway authorizer',
    (routeKey, group) => {
      expect(routesByKey().get(routeKey)).toEqual({
        ApiId: { Ref: singleId('AWS::ApiGatewayV2::Api') },
        RouteKey: routeKey,
        AuthorizationType: 'NONE',
        Target: integrationTarget(group),
      });
    },
  );

  test('API Gateway may invoke each function through any route: one permission per function, not per route', () => {
    const permissions = Object.values(template().findResources('AWS::Lambda::Permission')).filter(
      (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
    );
    const groupsWithRoutes = new Set([...resolveRoutes(defaultSubpaths).map((r) => r.group), defaultRouteGroup]);
    const api = `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${singleId('AWS::ApiGatewayV2::Api')}>`;
    const sources = permissions.map((p) => resolveIntrinsic(p.Properties.SourceArn));
    // One for each function's routes, and one for `$default` (see below).
    expect(sources.filter((arn) => arn === `${api}/*/*/*`)).toHaveLength(groupsWithRoutes.size);
    expect(permissions).toHaveLength(groupsWithRoutes.size + 1);
  });

  test('$default goes to the default group, which API Gateway may invoke for it', () => {
    expect(routesByKey().get('$default')?.Target).toEqual(integrationTarget(defaultRouteGroup));
    expect(routesByKey().size).toBe(resolveRoutes(defaultSubpaths).length + 1);
    const sourceArns = Object.values(template().findResources('AWS::Lambda::Permission'))
      .filter((p) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify(getAtt(functionId(defaultRouteGroup))))
      .map((p) => resolveIntrinsic(p.Properties.SourceArn));
    // $default is invoked as <api>/<stage>/$default: only a two-segment pattern matches it.
    expect(sourceArns).toContain(`arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${singleId('AWS::ApiGatewayV2::Api')}>/*/$default`);
  });

  test('the token endpoint has its own throttling, every other route its group\'s (bulk reads the stage\'s); the stage waits for the routes', () => {
    const stage = template().findResources('AWS::ApiGatewayV2::Stage')[singleId('AWS::ApiGatewayV2::Stage')]!;
    // CloudFormation's RouteSettings keys are PascalCase (a raw JSON property: CDK does not convert it).
    const settings = stage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    const routes = resolveRoutes(defaultSubpaths);
    const polled = routes.filter((route) => route.group === 'bulk' && route.method === 'GET');
    expect(polled.map((route) => route.id).sort()).toEqual(['bulk.failedRows', 'bulk.job']);
    expect(Object.keys(settings).sort()).toEqual(routes.filter((route) => !polled.includes(route)).map((route) => route.routeKey).sort());
    for (const route of routes.filter((route) => !polled.includes(route))) {
      const expected = route.id === 'auth.token' ? throttleDefaults.token : throttleDefaults[route.group]!;
      expect([route.routeKey, settings[route.routeKey]]).toEqual([
        route.routeKey,
        { ThrottlingRateLimit: expected.rateLimit, ThrottlingBurstLimit: expected.burstLimit },
      ]);
    }
    expect(settings['POST /auth/realms/{realm}/protocol/openid-connect/token']).toEqual({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    const routeIds = Object.keys(template().findResources('AWS::ApiGatewayV2::Route'));
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('the $default stage deploys automatically, is throttled and writes JSON access logs', () => {
    const stage = template().findResources('AWS::ApiGatewayV2::Stage')[singleId('AWS::ApiGatewayV2::Stage')]!.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } },
    });
    expect(JSON.parse(stage.AccessLogSettings.Format as string)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
  });
});

describe('outputs', () => {
  test('name what the operator CLI reads', () => {
    const apiEndpoint = getAtt(singleId('AWS::ApiGatewayV2::Api'), 'ApiEndpoint');
    const outputs = template().toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown }>;
    expect(Object.fromEntries(Object.entries(outputs).map(([id, output]) => [id, output.Value]))).toEqual({
      ApiUrl: apiEndpoint,
      AuthUrl: apiEndpoint,
      UserPoolId: { Ref: singleId('AWS::Cognito::UserPool') },
      UserPoolClientId: { Ref: singleId('AWS::Cognito::UserPoolClient') },
      TableName: { Ref: singleId('AWS::DynamoDB::Table') },
      BulkBucketName: {
        Ref: synthesized.logicalId(synthesized.stack.node.findChild('BulkUploads').node.findChild('Bucket').node.defaultChild as CfnElement),
      },
      SigningKeyArn: getAtt(signingKeyId()),
      TokenIssuer: { 'Fn::Join': ['', [apiEndpoint, '/auth']] },
      GenerativeSubpath: defaultSubpaths.generative,
      UserSubpath: defaultSubpaths.user,
      AlarmTopicArn: { Ref: singleId('AWS::SNS::Topic') },
      DashboardName: { Ref: singleId('AWS::CloudWatch::Dashboard') },
      MailConfigurationSetName: { Ref: singleId('AWS::SES::ConfigurationSet') },
      BulkFailureQueueUrl: { Ref: queueId('Failures') },
      BulkDeadLetterQueueUrl: { Ref: queueId('DeadLetters') },
      EventBusName: { Ref: changeEventsId('Bus') },
      ChangeEventsDeadLetterQueueUrl: { Ref: changeEventsId('DeadLetters') },
      MailQueueUrl: { Ref: mailQueueId('Queue') },
      MailDeadLetterQueueUrl: { Ref: mailQueueId('DeadLetters') },
    });
    expect(Object.values(outputs).filter((output) => output.Export)).toEqual([]);
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
    const putters = resourceGroups.filter((group) => statementsOfRole(template(), roleId(group)).some((s) => actionsOf(s).includes('events:PutEvents')));
    expect(putters).toEqual(['publisher']);
    const put = statementsOfRole(template(), roleId('publisher')).find((s) => actionsOf(s).includes('events:PutEvents'))!;
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
      const s3Statements = statementsOfRole(template(), roleId(group)).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
      if (group !== 'bulk' && group !== 'bulk-worker') {
        expect(s3Statements).toEqual([]);
        continue;
      }
      expect(s3Statements.flatMap(actionsOf).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
      expect(environmentOf(group).BULK_BUCKET_NAME).toBeDefined();
    }
  });
});
