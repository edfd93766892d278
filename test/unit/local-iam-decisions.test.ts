import { IamRecorder } from '../../infra/local/iam/iam-report';
import { RoleChecker } from '../../infra/local/iam/role-checker';
import type { SdkCall } from '../../infra/local/iam/sdk-requests';
import { resolvePolicies, templatePolicies, type CfnTemplate } from '../../infra/local/template/template-policies';

const scope = { account: '000000000000', region: 'us-east-1', env: { TABLE_NAME: 'management-api' } };
const getItem = (table: string): SdkCall => ({ clientName: 'DynamoDBClient', commandName: 'GetItemCommand', input: { TableName: table, Key: { PK: 'x' } } });
const putItem = (table: string): SdkCall => ({ clientName: 'DynamoDBClient', commandName: 'PutItemCommand', input: { TableName: table, Item: { PK: 'x' } } });

/** A template whose one function (`users`) may call `actions` on the table. */
function checkerGranting(actions: string[]): RoleChecker {
  const template: CfnTemplate = {
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table' },
      Role: { Type: 'AWS::IAM::Role', Properties: {} },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: { Roles: [{ Ref: 'Role' }], PolicyDocument: { Statement: [{ Effect: 'Allow', Action: actions, Resource: { 'Fn::GetAtt': ['Table', 'Arn'] } }] } },
      },
      Fn: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] }, Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'users', TABLE_NAME: { Ref: 'Table' } } } } },
    },
  };
  return new RoleChecker(resolvePolicies(templatePolicies(template, 'Stack'), scope));
}

describe('local IAM decides a call at once when its verdicts are known', () => {
  test('a call is decided at once only after the same authorization was evaluated, with the same answer', async () => {
    const checker = checkerGranting(['dynamodb:GetItem']);
    expect(checker.decideKnown('users', getItem('management-api'))).toBeUndefined();

    const evaluated = await checker.decide('users', getItem('management-api'));
    const known = checker.decideKnown('users', getItem('management-api'));
    expect(evaluated.denied).toBeUndefined();
    expect(known).toEqual(evaluated);
    // Twice the same decision, with no further simulation; each call is counted.
    expect(checker.decideKnown('users', getItem('management-api'))).toBe(known);
    expect(checker.stats).toMatchObject({ calls: 3, simulations: 1, cacheHits: 2 });
  });

  test('another action, table or function is not answered from what was known of the first', async () => {
    const checker = checkerGranting(['dynamodb:GetItem']);
    await checker.decide('users', getItem('management-api'));
    expect(checker.decideKnown('users', getItem('management-api'))?.denied).toBeUndefined();

    expect(checker.decideKnown('users', putItem('management-api'))).toBeUndefined();
    expect((await checker.decide('users', putItem('management-api'))).denied?.action).toBe('dynamodb:PutItem');
    expect(checker.decideKnown('users', getItem('another-table'))).toBeUndefined();
    expect((await checker.decide('users', getItem('another-table'))).denied?.resource).toBe('arn:aws:dynamodb:us-east-1:000000000000:table/another-table');
    // A function the template does not have gets the error, never a decision known for another.
    expect(checker.decideKnown('agents', getItem('management-api'))).toBeUndefined();
    expect((await checker.decide('agents', getItem('management-api'))).error?.message).toMatch(/no function for the resource group agents/);
  });

  test('a refusal, once known, is given at once too', async () => {
    const checker = checkerGranting(['dynamodb:GetItem']);
    const refused = await checker.decide('users', putItem('management-api'));
    expect(checker.decideKnown('users', putItem('management-api'))?.denied).toEqual(refused.denied);
  });

  test('a checker of changed policies knows nothing of the former ones', async () => {
    const before = checkerGranting(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect((await before.decide('users', putItem('management-api'))).denied).toBeUndefined();

    const after = checkerGranting(['dynamodb:GetItem']);
    expect(after.decideKnown('users', putItem('management-api'))).toBeUndefined();
    expect((await after.decide('users', putItem('management-api'))).denied?.action).toBe('dynamodb:PutItem');
  });

  test('a call no mapping covers is never decided at once: it fails with its error', async () => {
    const checker = checkerGranting(['dynamodb:GetItem']);
    const partiql: SdkCall = { clientName: 'DynamoDBClient', commandName: 'ExecuteStatementCommand', input: { Statement: 'SELECT' } };
    expect(checker.decideKnown('users', partiql)).toBeUndefined();
    expect((await checker.decide('users', partiql)).error?.name).toBe('UnmappedCallError');
  });

  test('the report counts every call of a decision given again, with its resources', async () => {
    const checker = checkerGranting(['dynamodb:GetItem']);
    const recorder = new IamRecorder();
    recorder.record(await checker.decide('users', getItem('management-api')), 'call');
    recorder.record(checker.decideKnown('users', getItem('management-api'))!, 'call');
    recorder.record(checker.decideKnown('users', getItem('management-api'))!, 'presigned-url');
    recorder.record(await checker.decide('users', putItem('management-api')), 'call');
    recorder.record(checker.decideKnown('users', putItem('management-api'))!, 'call');

    const report = recorder.report({ policies: checker.policies, synthesized: false, loadMs: 0, stats: checker.stats });
    expect(report.stats).toMatchObject({ checkedCalls: 5, deniedCalls: 2 });
    expect(report.functions.users?.calls).toEqual([
      expect.objectContaining({ action: 'dynamodb:GetItem', outcome: 'allowed', count: 3, presignedUrls: 1, sdkCalls: ['DynamoDB GetItem'], resources: ['arn:aws:dynamodb:us-east-1:000000000000:table/management-api'] }),
      expect.objectContaining({ action: 'dynamodb:PutItem', outcome: 'denied', count: 2, presignedUrls: 0, sdkCalls: ['DynamoDB PutItem'] }),
    ]);
  });
});
