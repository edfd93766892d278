import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

// The document client shares the base client's middleware stack, so the base client carries the plugins.
export const documentClient = lazy(() =>
  DynamoDBDocumentClient.from(withClientPlugins(new DynamoDBClient(clientOptions(config().endpoints.dynamodb))), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);
