import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { config } from '../config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

export const eventBridgeClient = lazy(() => withClientPlugins(new EventBridgeClient(clientOptions(config().endpoints.eventbridge))));
