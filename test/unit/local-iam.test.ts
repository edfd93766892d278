import type { IamReport } from '../../infra/local/iam/iam-report';
import { iamRequestsFor, UnmappedCallError, type SdkCall } from '../../infra/local/iam/sdk-requests';
import { resolvePolicies, templatePolicies, type CfnTemplate } from '../../infra/local/template/template-policies';
import type { UnexercisedGrant } from '../../infra/local/iam/unexercised-grants';
import { iamReportProblems } from '../support/local-report-checks';

const scope = { account: '000000000000', region: 'us-east-1' };
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/management-api';
const call = (clientName: string, commandName: string, input: Record<string, unknown>): SdkCall => ({ clientName, commandName, input });

describe('the IAM requests AWS makes for an SDK call', () => {
  test('DynamoDB: item actions on the table, Query on the index it names, batches per table', () => {
    expect(iamRequestsFor(call('DynamoDBClient', 'PutItemCommand', { TableName: 'management-api' }))).toEqual([
      { action: 'dynamodb:PutItem', resource: table },
    ]);
    expect(iamRequestsFor(call('DynamoDBClient', 'QueryCommand', { TableName: 'management-api', IndexName: 'GSI1' }))).toEqual([
      { action: 'dynamodb:Query', resource: `${table}/index/GSI1` },
    ]);
    expect(iamRequestsFor(call('DynamoDBClient', 'BatchGetItemCommand', { RequestItems: { 'management-api': {}, other: {} } }))).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: table },
      { action: 'dynamodb:BatchGetItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/other' },
    ]);
    expect(iamRequestsFor(call('DynamoDBClient', 'BatchWriteItemCommand', { RequestItems: { 'management-api': [] } }))).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: table },
    ]);
  });

  test('DynamoDB: a transaction is each item’s own action on its table, once per action and table', () => {
    const TransactItems = [
      { Put: { TableName: 'management-api' } },
      { Update: { TableName: 'management-api' } },
      { Update: { TableName: 'management-api' } },
      { Delete: { TableName: 'management-api' } },
      { ConditionCheck: { TableName: 'other' } },
    ];
    expect(iamRequestsFor(call('DynamoDBClient', 'TransactWriteItemsCommand', { TransactItems }))).toEqual([
      { action: 'dynamodb:PutItem', resource: table },
      { action: 'dynamodb:UpdateItem', resource: table },
      { action: 'dynamodb:DeleteItem', resource: table },
      { action: 'dynamodb:ConditionCheckItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/other' },
    ]);
    expect(iamRequestsFor(call('DynamoDBClient', 'TransactGetItemsCommand', { TransactItems: [{ Get: { TableName: 'management-api' } }] }))).toEqual([
      { action: 'dynamodb:GetItem', resource: table },
    ]);
  });

  test('S3: reads and writes of objects by the action IAM checks; listings on the bucket', () => {
    const object = { Bucket: 'bulk', Key: 'uploads/a b.csv' };
    const requests = (commandName: string, input: Record<string, unknown> = object) => iamRequestsFor(call('S3Client', commandName, input));
    expect(requests('HeadObjectCommand')).toEqual([{ action: 's3:GetObject', resource: 'arn:aws:s3:::bulk/uploads/a b.csv' }]);
    for (const name of ['PutObjectCommand', 'CreateMultipartUploadCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand']) {
      expect(requests(name)).toEqual([{ action: 's3:PutObject', resource: 'arn:aws:s3:::bulk/uploads/a b.csv' }]);
    }
    expect(requests('ListObjectsV2Command', { Bucket: 'bulk', Prefix: 'uploads/' })).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::bulk' }]);
    expect(requests('DeleteObjectsCommand', { Bucket: 'bulk', Delete: { Objects: [{ Key: 'a' }, { Key: 'b' }] } })).toEqual([
      { action: 's3:DeleteObject', resource: 'arn:aws:s3:::bulk/a' },
      { action: 's3:DeleteObject', resource: 'arn:aws:s3:::bulk/b' },
    ]);
  });

  test('SES v2: SendEmail on the sender identity and on the configuration set it names', () => {
    const input = { FromEmailAddress: 'Management API <no-reply@example.com>', ConfigurationSetName: 'mail' };
    expect(iamRequestsFor(call('SESv2Client', 'SendEmailCommand', input))).toEqual([
      { action: 'ses:SendEmail', resource: 'arn:aws:ses:us-east-1:000000000000:identity/no-reply@example.com' },
      { action: 'ses:SendEmail', resource: 'arn:aws:ses:us-east-1:000000000000:configuration-set/mail' },
    ]);
  });

  test('Cognito on the user pool, KMS on the key', () => {
    expect(iamRequestsFor(call('CognitoIdentityProviderClient', 'AdminDisableUserCommand', { UserPoolId: 'us-east-1_x', Username: 'u' }))).toEqual([
      { action: 'cognito-idp:AdminDisableUser', resource: 'arn:aws:cognito-idp:us-east-1:000000000000:userpool/us-east-1_x' },
    ]);
    expect(iamRequestsFor(call('KMSClient', 'SignCommand', { KeyId: 'k1' }))).toEqual([
      { action: 'kms:Sign', resource: 'arn:aws:kms:us-east-1:000000000000:key/k1' },
    ]);
  });

  test('a call with no known mapping fails loudly instead of passing unchecked', () => {
    expect(() => iamRequestsFor(call('DynamoDBClient', 'ExecuteStatementCommand', { Statement: 'SELECT 1' }))).toThrow(UnmappedCallError);
    expect(() => iamRequestsFor(call('SQSClient', 'SendMessageCommand', {}))).toThrow(/add it to infra\/local\/iam\/sdk-requests.ts/);
  });
});

describe("a function's role, from the template to local ARNs", () => {
  const template: CfnTemplate = {
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table' },
      Pool: { Type: 'AWS::Cognito::UserPool' },
      Sender: { Type: 'AWS::SES::EmailIdentity', Properties: { EmailIdentity: 'no-reply@example.com' } },
      Role: { Type: 'AWS::IAM::Role', Properties: { Policies: [{ PolicyName: 'Inline', PolicyDocument: { Statement: { Effect: 'Allow', Action: 'cognito-idp:AdminDisableUser', Resource: { 'Fn::GetAtt': ['Pool', 'Arn'] } } } }] } },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: {
            Statement: [
              { Sid: 'Items', Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [{ 'Fn::GetAtt': ['Table', 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/*']] }] },
              { Effect: 'Allow', Action: 'ses:SendEmail', Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${Sender}' } },
              { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Select': [1, { 'Fn::Split': ['|', 'a|arn:aws:s3:::x/*'] }] } },
            ],
          },
        },
      },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
          Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'bulk', TABLE_NAME: { Ref: 'Table' }, USER_POOL_ID: { Ref: 'Pool' } } },
        },
      },
    },
  };

  test('inline and attached policies; Ref, GetAtt, Join, Sub and Select resolve to the local resources', () => {
    const env = { TABLE_NAME: 'management-api', USER_POOL_ID: 'local_1', MAIL_FROM: 'Local <no-reply@local.test>' };
    const { roles, unresolved } = resolvePolicies(templatePolicies(template, 'Stack'), { ...scope, env });

    const role = roles.get('bulk')!;
    expect(role.principal).toBe('arn:aws:sts::000000000000:assumed-role/Stack-Role/local-bulk');
    expect(role.statements.map((s) => [s.id, s.statement.Resource])).toEqual([
      ['Role/Inline#1', 'arn:aws:cognito-idp:us-east-1:000000000000:userpool/local_1'],
      ['Policy#1 (Items)', [table, `${table}/index/*`]],
      ['Policy#2', 'arn:aws:ses:us-east-1:000000000000:identity/no-reply@local.test'],
      ['Policy#3', 'arn:aws:s3:::x/*'],
    ]);
    expect(unresolved).toEqual([]);
  });

  test('a reference with no local counterpart is named, and matches nothing', () => {
    const broken: CfnTemplate = JSON.parse(JSON.stringify(template)) as CfnTemplate;
    (broken.Resources.Policy!.Properties!.PolicyDocument as { Statement: { Resource: unknown }[] }).Statement[2]!.Resource = { 'Fn::GetAtt': ['Api', 'ApiEndpoint'] };
    const { unresolved } = resolvePolicies(templatePolicies(broken, 'Stack'), { ...scope, env: {} });
    expect(unresolved).toEqual(['GetAtt Api.ApiEndpoint']);
  });
});

describe("the integration run's verdict on the IAM report", () => {
  const report = (calls: IamReport['functions'][keyof IamReport['functions']]): IamReport => ({
    generatedAt: '',
    account: '000000000000',
    region: 'us-east-1',
    policies: { synthesized: false, loadMs: 0, unresolved: [] },
    stats: { checkedCalls: 0, deniedCalls: 0, checkMsMean: 0, checkMsMax: 0, simulations: 0, simulationMsMean: 0, cacheHits: 0 },
    functions: { bulk: calls },
  });
  const use = { count: 2, presignedUrls: 0, sdkCalls: ['CognitoIdentityProvider AdminDisableUser'], resources: ['arn:pool'], moreResources: 0 };
  const grant = (action: string, exercised: boolean) => ({ action, statement: 'Policy#1', resources: ['*'], exercised });
  const allowList: UnexercisedGrant[] = [{ action: 'logs:PutLogEvents', functions: 'all', reason: 'Lambda writes logs' }];

  test('a refused call is a problem, in any run', () => {
    const denied = report({ role: 'r', externalManagedPolicies: [], grants: [], calls: [{ ...use, action: 'cognito-idp:AdminDisableUser', outcome: 'denied' }] });
    expect(iamReportProblems(denied, [], { coverage: false })).toEqual([expect.stringMatching(/^bulk: cognito-idp:AdminDisableUser refused 2 time\(s\)/)]);
  });

  test('on a whole run, an unexercised grant is a problem unless allow-listed, and an entry excusing nothing is stale', () => {
    const fn = { role: 'r', externalManagedPolicies: [], calls: [{ ...use, action: 's3:GetObject', outcome: 'allowed' as const }] };
    const unused = report({ ...fn, grants: [grant('s3:GetObject', true), grant('s3:DeleteObject', false), grant('logs:PutLogEvents', false)] });
    expect(iamReportProblems(unused, allowList, { coverage: false })).toEqual([]);
    expect(iamReportProblems(unused, allowList, { coverage: true })).toEqual([expect.stringMatching(/^bulk: s3:DeleteObject is granted \(Policy#1\) but no test/)]);

    const exercised = report({ ...fn, grants: [grant('s3:GetObject', true), grant('logs:PutLogEvents', true)] });
    expect(iamReportProblems(exercised, allowList, { coverage: true })).toEqual([expect.stringMatching(/excuses logs:PutLogEvents for all functions, but a test exercises it now/)]);

    const perFunction: UnexercisedGrant[] = [{ action: 's3:GetObject', functions: ['bulk'], reason: 'r' }, { action: 's3:PutObject', functions: ['bulk'], reason: 'r' }];
    expect(iamReportProblems(exercised, [...allowList, ...perFunction], { coverage: true })).toEqual([
      expect.stringMatching(/excuses logs:PutLogEvents for all functions, but a test exercises it now/),
      expect.stringMatching(/excuses s3:GetObject for bulk, but a test exercises it now/),
      expect.stringMatching(/excuses s3:PutObject for bulk, but no role grants it any more/),
    ]);
  });
});
