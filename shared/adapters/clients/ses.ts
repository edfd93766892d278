import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

/**
 * One attempt a call: the mailer retries SES's rate refusals with the kernel's policy
 * (`sesRetryPolicy`), and the mail queue redelivers a message whose send failed otherwise, so a retry
 * inside the SDK would only multiply the attempts.
 */
export const sesClient = lazy(() => withClientPlugins(new SESv2Client({ ...clientOptions(config().endpoints.ses), maxAttempts: 1 })));
