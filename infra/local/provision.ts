import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { GSI1 } from '../../shared/adapters/store/keys';
import { LOCAL_REGION } from './kernel/local-account';

export const LOCAL_TABLE = 'management-api';
export const LOCAL_BUCKET = 'management-api-bulk';
export const LOCAL_EVENT_BUS = 'management-api-events';
// The key pair the stack signs with; the POST policy check knows only this one (s3-post-policy.ts).
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

/** As the CDK table's: the `publisher` function reads each new item's image (infra/local/stream-poller.ts). */
const StreamSpecification = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } as const;

/** The same keys, index and stream as the CDK table (test/infra asserts that side); a restart finds it with one DescribeTable. */
export async function ensureTable(endpoint: string): Promise<void> {
  const dynamodb = new DynamoDBClient({ ...clientConfig, endpoint });
  try {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: LOCAL_TABLE })).catch((error: unknown) => {
      if (error instanceof ResourceNotFoundException) return { Table: undefined };
      throw error;
    });
    if (!Table) await createTable(dynamodb);
    // A table made before it had a stream gets one; its changes from now on are published.
    else if (!Table.StreamSpecification?.StreamEnabled) await dynamodb.send(new UpdateTableCommand({ TableName: LOCAL_TABLE, StreamSpecification }));
  } finally {
    dynamodb.destroy();
  }
}

const keySchema = (hash: string, range: string) => [
  { AttributeName: hash, KeyType: 'HASH' as const },
  { AttributeName: range, KeyType: 'RANGE' as const },
];

async function createTable(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: LOCAL_TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: keySchema('PK', 'SK'),
      StreamSpecification,
      GlobalSecondaryIndexes: [
        {
          IndexName: GSI1,
          KeySchema: keySchema('GSI1PK', 'GSI1SK'),
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
}

type PoolState = { userPoolId: string; clientId: string };

/** Creates the user pool and console client once; their ids are kept in `.local/` with the data. */
export async function ensureUserPool(endpoint: string, dataDir: string): Promise<PoolState> {
  const stateFile = join(dataDir, 'user-pool.json');
  const cognito = new CognitoIdentityProviderClient({ ...clientConfig, endpoint });
  try {
    if (existsSync(stateFile)) {
      const state = JSON.parse(readFileSync(stateFile, 'utf8')) as PoolState;
      const described = cognito.send(new DescribeUserPoolClientCommand({ UserPoolId: state.userPoolId, ClientId: state.clientId }));
      if (await described.then(() => true, () => false)) return state;
    }
    const PasswordPolicy = { MinimumLength: 6, RequireLowercase: true, RequireUppercase: true };
    const { UserPool } = await cognito.send(new CreateUserPoolCommand({ PoolName: 'management-api-local', Policies: { PasswordPolicy } }));
    const ExplicitAuthFlows = ['ALLOW_ADMIN_USER_PASSWORD_AUTH' as const, 'ALLOW_REFRESH_TOKEN_AUTH' as const];
    const { UserPoolClient } = await cognito.send(new CreateUserPoolClientCommand({ UserPoolId: UserPool!.Id!, ClientName: 'management-console', ExplicitAuthFlows }));
    const state = { userPoolId: UserPool!.Id!, clientId: UserPoolClient!.ClientId! };
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
    return state;
  } finally {
    cognito.destroy();
  }
}

/** The local token signing key: a P-256 private JWK generated once under `.local/` (KMS in AWS). */
export function ensureSigningKey(dataDir: string): string {
  const path = join(dataDir, 'signing-key.json');
  if (!existsSync(path)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path, JSON.stringify(privateKey.export({ format: 'jwk' })), { mode: 0o600 });
  }
  return path;
}
