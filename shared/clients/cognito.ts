import {
  CognitoIdentityProviderClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-cognito-identity-provider';
import type { Pluggable } from '@smithy/types';
import { config } from '../config';
import { count } from '../metrics';
import { clientOptions, lazy, withClientPlugins } from './client-options';

const throttlingErrors = new Set(['TooManyRequestsException', 'ThrottlingException', 'LimitExceededException', 'RequestLimitExceeded']);

/** Whether Cognito refused a call for its rate (quota) rather than for the request itself. */
export const isThrottling = (error: unknown): boolean => error instanceof Error && throttlingErrors.has(error.name);

/** Counts each call that still fails for throttling after the SDK's own retries (metric `IdentityProviderThrottled`). */
const countThrottles: Pluggable<ServiceInputTypes, ServiceOutputTypes> = {
  applyToStack: (stack) =>
    stack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (isThrottling(error)) count('IdentityProviderThrottled');
          throw error;
        }
      },
      { step: 'initialize', name: 'countIdentityProviderThrottles' },
    ),
};

export const cognitoClient = lazy(() => {
  const client = withClientPlugins(new CognitoIdentityProviderClient(clientOptions(config().endpoints.cognito)));
  client.middlewareStack.use(countThrottles);
  return client;
});
