import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../config';
import { clientOptions, lazy } from './client-options';

export const sesClient = lazy(() => new SESv2Client(clientOptions(config().endpoints.ses)));
