import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../kernel/config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

export const kmsClient = lazy(() => withClientPlugins(new KMSClient(clientOptions(config().endpoints.kms))));
