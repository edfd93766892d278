import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';

/**
 * AWS clients, one per process, created on first use with the endpoint from configuration: the local
 * stack points them at the emulators, AWS leaves the endpoints unset.
 */
function lazy<T>(create: () => T): () => T {
  let instance: T | undefined;
  return () => (instance ??= create());
}

const common = (endpoint: string | undefined) => ({
  region: config().region,
  ...(endpoint ? { endpoint } : {}),
});

export const documentClient = lazy(() =>
  DynamoDBDocumentClient.from(new DynamoDBClient(common(config().endpoints.dynamodb)), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);

export const cognitoClient = lazy(() => new CognitoIdentityProviderClient(common(config().endpoints.cognito)));

export const kmsClient = lazy(() => new KMSClient(common(config().endpoints.kms)));
