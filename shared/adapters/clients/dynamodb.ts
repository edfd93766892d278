import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

/** The base client, for libraries that send DynamoDB's own commands (Powertools' idempotency store). */
export const dynamodbClient = lazy(() => withClientPlugins(new DynamoDBClient(clientOptions(config().endpoints.dynamodb))));

// The document client shares the base client's middleware stack, so the base client carries the plugins.
export const documentClient = lazy(() =>
  DynamoDBDocumentClient.from(dynamodbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);
