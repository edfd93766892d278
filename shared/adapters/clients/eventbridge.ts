import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

/**
 * PutEvents answers in milliseconds; an answer lost on the way is given up after 5 s and the call sent
 * again (the SDK retries a timeout), rather than holding the stream's batch until the function's own
 * timeout. A call sent twice puts its events twice, with the same CloudEvent ids.
 */
const requestHandler = { connectionTimeout: 2_000, requestTimeout: 5_000 };

export const eventBridgeClient = lazy(() => withClientPlugins(new EventBridgeClient({ ...clientOptions(config().endpoints.eventbridge), requestHandler })));
