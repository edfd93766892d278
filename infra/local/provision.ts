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
const REGION = LOCAL_REGION;
// The key pair the stack signs with; the POST policy check knows only this one (s3-post-policy.ts).
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const credentials = LOCAL_CREDENTIALS;

/** As the CDK table's: the `publisher` function reads each new item's image (infra/local/stream-poller.ts). */
const streamSpecification = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } as const;

/**
 * The same keys, index and stream as the CDK table (test/infra asserts that side). A restart finds the
 * table with one DescribeTable; only a new data directory creates it.
 */
export async function ensureTable(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: REGION, credentials });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE })).catch((error: unknown) => {
      if (error instanceof ResourceNotFoundException) return { Table: undefined };
      throw error;
    });
    if (!Table) {
      await createTable(client);
    } else if (!Table.StreamSpecification?.StreamEnabled) {
      // A table made before it had a stream gets one; its changes from now on are published.
      await client.send(new UpdateTableCommand({ TableName: LOCAL_TABLE, StreamSpecification: streamSpecification }));
    }
  } finally {
    client.destroy();
  }
}

async function createTable(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: LOCAL_TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      StreamSpecification: streamSpecification,
      GlobalSecondaryIndexes: [
        {
          IndexName: GSI1,
          KeySchema: [
            { AttributeName: 'GSI1PK', KeyType: 'HASH' },
            { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
}

interface PoolState {
  userPoolId: string;
  clientId: string;
}

/** Creates the user pool and console client once; their ids are kept in `.local/` with the data. */
export async function ensureUserPool(endpoint: string, dataDir: string): Promise<PoolState> {
  const stateFile = join(dataDir, 'user-pool.json');
  const client = new CognitoIdentityProviderClient({ endpoint, region: REGION, credentials });
  try {
    if (existsSync(stateFile)) {
      const state = JSON.parse(readFileSync(stateFile, 'utf8')) as PoolState;
      const found = await client
        .send(new DescribeUserPoolClientCommand({ UserPoolId: state.userPoolId, ClientId: state.clientId }))
        .then(() => true)
        .catch(() => false);
      if (found) return state;
    }
    const { UserPool } = await client.send(
      new CreateUserPoolCommand({
        PoolName: 'management-api-local',
        Policies: { PasswordPolicy: { MinimumLength: 6, RequireLowercase: true, RequireUppercase: true } },
      }),
    );
    const { UserPoolClient } = await client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: UserPool!.Id!,
        ClientName: 'management-console',
        ExplicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      }),
    );
    const state = { userPoolId: UserPool!.Id!, clientId: UserPoolClient!.ClientId! };
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
    return state;
  } finally {
    client.destroy();
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
