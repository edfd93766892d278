import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

export const kmsClient = lazy(() => withClientPlugins(new KMSClient(clientOptions(config().endpoints.kms))));
