import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../../kernel/config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

export const sqsClient = lazy(() => withClientPlugins(new SQSClient(clientOptions(config().endpoints.sqs))));
