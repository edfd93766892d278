import { AccessDeniedException, AdminGetUserCommand } from '@aws-sdk/client-cognito-identity-provider';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { runAsFunction } from '../../infra/local/kernel/function-context';
import { enableLocalIam } from '../../infra/local/iam';
import { cognitoClient } from '../../shared/adapters/clients/cognito';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { s3Client } from '../../shared/adapters/clients/s3';
import { sesClient } from '../../shared/adapters/clients/ses';
import { config } from '../../shared/kernel/config';
import { cognitoIdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { keys } from '../../shared/adapters/store/keys';
import { getItem, transactWrite } from '../../shared/adapters/store/table';
import { createTestUser } from '../support/auth-helpers';
import { stack, unique } from '../support/stack';

// Local IAM in this test process, as the local stack runs it: calls made inside `runAsFunction` are
// checked against that function's role in the synthesized template; calls outside are not.
const iam = enableLocalIam();
beforeAll(() => iam.ready);

const refusal = (group: string, action: string, resource: string) =>
  new RegExp(
    `^User: arn:aws:sts::000000000000:assumed-role/AgentPlatformManagementApi-${group}FunctionRole[0-9A-F]{8}/local-${group.toLowerCase()} ` +
      `is not authorized to perform: ${action} on resource: ${resource.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ` +
      `because no identity-based policy allows the ${action} action$`,
  );

async function refused(call: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number }; $fault?: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('The call was allowed');
  return error;
}

const enabledInCognito = async (username: string) =>
  (await cognitoClient().send(new AdminGetUserCommand({ UserPoolId: config().userPoolId, Username: username }))).Enabled;

const tableArn = () => `arn:aws:dynamodb:us-east-1:000000000000:table/${config().tableName}`;

describe('local IAM refuses what the calling function’s role does not grant, as AWS does', () => {
  test('Cognito: AdminDisableUser as agents is an AccessDeniedException (400) that never reaches the user pool', async () => {
    const { user } = await createTestUser();

    const error = await refused(runAsFunction('agents', () => cognitoIdentityProvider.disable(user.uuid)));

    expect(error).toBeInstanceOf(AccessDeniedException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect(error.$fault).toBe('client');
    const pool = `arn:aws:cognito-idp:us-east-1:000000000000:userpool/${config().userPoolId}`;
    expect(error.message).toMatch(refusal('Agents', 'cognito-idp:AdminDisableUser', pool));
    expect(await enabledInCognito(user.uuid)).toBe(true);
  });

  test('Cognito: bulk may disable a user and enable it again (bulk-delete and its rollback)', async () => {
    const { user } = await createTestUser();

    await runAsFunction('bulk', () => cognitoIdentityProvider.disable(user.uuid));
    expect(await enabledInCognito(user.uuid)).toBe(false);
    await runAsFunction('bulk', () => cognitoIdentityProvider.enable(user.uuid));
    expect(await enabledInCognito(user.uuid)).toBe(true);
  });

  test('DynamoDB: Scan (never granted) is an AccessDeniedException (400); items of the table are allowed', async () => {
    const error = await refused(runAsFunction('supervisors', () => documentClient().send(new ScanCommand({ TableName: config().tableName, Limit: 1 }))));

    expect(error.name).toBe('AccessDeniedException');
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect(error.message).toMatch(refusal('Supervisors', 'dynamodb:Scan', tableArn()));
    const org = stack().orgs[0]!;
    await expect(runAsFunction('supervisors', () => getItem(keys.organization(org.uuid)))).resolves.toMatchObject({ name: org.name });
  });

  test('DynamoDB: a transaction is authorized item by item, on each item’s table', async () => {
    const org = stack().orgs[0]!;
    // A write that leaves the item as it is: the transaction needs dynamodb:UpdateItem on the table.
    const touch = {
      Update: {
        Key: keys.organization(org.uuid),
        UpdateExpression: 'SET #name = #name',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#name': 'name' },
      },
    };
    await expect(runAsFunction('agents', () => transactWrite([touch]))).resolves.toEqual([]);

    // Only the functions writing supervisors and agents are granted dynamodb:ConditionCheckItem (the
    // bot's bundle lease): the configurations function's condition-only item is refused.
    const check = { ConditionCheck: { Key: keys.organization(org.uuid), ConditionExpression: 'attribute_exists(PK)' } };
    await expect(runAsFunction('agents', () => transactWrite([check]))).resolves.toEqual([]);
    const unchecked = await refused(runAsFunction('configurations', () => transactWrite([check])));
    expect(unchecked.message).toMatch(refusal('Configurations', 'dynamodb:ConditionCheckItem', tableArn()));

    const elsewhere = `other-table-${unique()}`;
    const error = await refused(
      runAsFunction('agents', () =>
        documentClient().send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: { TableName: config().tableName, ...touch.Update } },
              { Put: { TableName: elsewhere, Item: { PK: 'A', SK: 'B' } } },
            ],
          }),
        ),
      ),
    );
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toMatch(refusal('Agents', 'dynamodb:PutItem', `arn:aws:dynamodb:us-east-1:000000000000:table/${elsewhere}`));
  });

  test('S3: a function without the bulk bucket gets AccessDenied (403); bulk reaches the bucket', async () => {
    const key = `results/${unique()}.json`;
    const object = `arn:aws:s3:::${config().bulkBucket}/${key}`;

    const error = await refused(runAsFunction('agents', () => s3Client().send(new GetObjectCommand({ Bucket: config().bulkBucket, Key: key }))));

    expect(error.name).toBe('AccessDenied');
    expect(error.$metadata?.httpStatusCode).toBe(403);
    expect(error.message).toMatch(refusal('Agents', 's3:GetObject', `"${object}"`));
    // Allowed: the request reaches the emulator, which has no such object.
    const missing = await refused(runAsFunction('bulk', () => s3Client().send(new GetObjectCommand({ Bucket: config().bulkBucket, Key: key }))));
    expect(missing.name).toBe('NoSuchKey');
  });

  test('SES: users may not send mail (403 AccessDeniedException: its e-mails go through the mail queue); mail may', async () => {
    const send = () =>
      sesClient().send(
        new SendEmailCommand({
          FromEmailAddress: config().mail.from,
          Destination: { ToAddresses: [`iam-${unique()}@mail.example`] },
          Content: { Simple: { Subject: { Data: 'local IAM' }, Body: { Text: { Data: 'local IAM' } } } },
        }),
      );

    const error = await refused(runAsFunction('users', send));

    expect(error.name).toBe('AccessDeniedException');
    expect(error.$metadata?.httpStatusCode).toBe(403);
    expect(error.message).toMatch(refusal('Users', 'ses:SendEmail', 'arn:aws:ses:us-east-1:000000000000:identity/no-reply@management-api.local'));
    await expect(runAsFunction('mail', send)).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  });

  test('calls made outside any function (set-up, seeding, tests) are not checked', async () => {
    await expect(documentClient().send(new ScanCommand({ TableName: config().tableName, Limit: 1 }))).resolves.toBeDefined();
  });

  test('a presigned URL is made either way, as in AWS; the report holds the verdict its upload would get', async () => {
    const presign = () => getSignedUrl(s3Client(), new PutObjectCommand({ Bucket: config().bulkBucket, Key: `uploads/${unique()}.csv` }), { expiresIn: 60 });

    await expect(runAsFunction('agents', presign)).resolves.toMatch(/^http/);
    await expect(runAsFunction('bulk', presign)).resolves.toMatch(/^http/);

    const report = iam.report()!;
    const uses = (group: 'agents' | 'bulk') => report.functions[group]!.calls.filter((use) => use.action === 's3:PutObject');
    expect(uses('agents')).toEqual([expect.objectContaining({ outcome: 'denied', presignedUrls: 1 })]);
    expect(uses('bulk')).toEqual([expect.objectContaining({ outcome: 'allowed', presignedUrls: 1, allowedBy: expect.stringMatching(/^BulkFunctionRoleDefaultPolicy[0-9A-F]{8}#\d+$/) })]);
  });

  test('the report names the statement that allowed each call, and each refusal with its message', () => {
    const report = iam.report()!;

    const bulk = report.functions.bulk!.calls.find((use) => use.action === 'cognito-idp:AdminDisableUser');
    expect(bulk).toMatchObject({ outcome: 'allowed', count: 1, sdkCalls: ['CognitoIdentityProvider AdminDisableUser'] });
    expect(bulk!.allowedBy).toMatch(/^BulkFunctionRoleDefaultPolicy[0-9A-F]{8}#\d+$/);
    const scan = report.functions.supervisors!.calls.find((use) => use.action === 'dynamodb:Scan');
    expect(scan).toMatchObject({ outcome: 'denied', count: 1, resources: [tableArn()] });
    expect(scan!.message).toMatch(refusal('Supervisors', 'dynamodb:Scan', tableArn()));
    expect(report.functions.bulk!.grants).toContainEqual(expect.objectContaining({ action: 'cognito-idp:AdminEnableUser', exercised: true }));
    expect(report.policies.unresolved).toEqual([]);
  });
});
