import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../config';
import { clientOptions, lazy } from './client-options';

export const kmsClient = lazy(() => new KMSClient(clientOptions(config().endpoints.kms)));
