import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { clientOptions, lazy } from './client-options';

export const documentClient = lazy(() =>
  DynamoDBDocumentClient.from(new DynamoDBClient(clientOptions(config().endpoints.dynamodb)), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);
