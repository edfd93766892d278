import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

export const sqsClient = lazy(() => withClientPlugins(new SQSClient(clientOptions(config().endpoints.sqs))));
