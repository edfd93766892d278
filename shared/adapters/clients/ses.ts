import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../../kernel/config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

export const sesClient = lazy(() => withClientPlugins(new SESv2Client(clientOptions(config().endpoints.ses))));
