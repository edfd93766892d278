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

/**
 * Attempts per call. The SDK's standard retry strategy takes TooManyRequestsException (Cognito's answer
 * over a request-rate quota, HTTP 400) for throttling and waits a random time below 1 s, then 2 s, then
 * 4 s: up to 7 s in all (3.5 s on average), which a create (two calls) and its welcome e-mail's own
 * retries keep within the users function's 20 s. Cognito's quotas are per second, so a throttled call
 * usually passes on its first or second retry; one that still fails answers 503 with Retry-After.
 */
export const COGNITO_MAX_ATTEMPTS = 4;

export const cognitoClient = lazy(() => {
  const client = withClientPlugins(
    new CognitoIdentityProviderClient({ ...clientOptions(config().endpoints.cognito), retryMode: 'standard', maxAttempts: COGNITO_MAX_ATTEMPTS }),
  );
  client.middlewareStack.use(countThrottles);
  return client;
});
