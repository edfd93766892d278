import {
  CognitoIdentityProviderClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-cognito-identity-provider';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { Pluggable } from '@smithy/types';
import { config } from '../config';
import { count } from '../metrics';
import { clientOptions, lazy, withClientPlugins } from './client-options';
import { isThrottled } from '../errors';

/** Counts each call that still fails for throttling after the SDK's own retries (metric `IdentityProviderThrottled`). */
const countThrottles: Pluggable<ServiceInputTypes, ServiceOutputTypes> = {
  applyToStack: (stack) =>
    stack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (isThrottled(error)) count('IdentityProviderThrottled');
          throw error;
        }
      },
      { step: 'initialize', name: 'countIdentityProviderThrottles' },
    ),
};

export const COGNITO_MAX_ATTEMPTS = 6;

/**
 * How the client retries a call Cognito refused for its request rate (TooManyRequestsException, HTTP
 * 400, which the SDK classifies as throttling): six attempts, the waits doubling from 250 ms, each
 * between half and all of its step (125-250 ms, 250-500 ms, up to 2-4 s): at most 7.75 s in all,
 * about what the SDK's standard strategy spends on four attempts. The floor on each wait is the
 * point: Cognito's quotas are rates per second, and full jitter (a wait anywhere from 0 to 1, 2, 4 s)
 * spends attempts before a token can have come back. A call still refused answers 503 SERVICE_BUSY
 * with Retry-After (shared/http/error-mapper.ts).
 */
export const cognitoRetryWait = (retry: number): number => 250 * 2 ** (retry - 1) * (0.5 + Math.random() / 2);

export const cognitoRetryStrategy = () => new ConfiguredRetryStrategy(COGNITO_MAX_ATTEMPTS, cognitoRetryWait);

export const cognitoClient = lazy(() => {
  const client = withClientPlugins(
    new CognitoIdentityProviderClient({ ...clientOptions(config().endpoints.cognito), retryStrategy: cognitoRetryStrategy() }),
  );
  client.middlewareStack.use(countThrottles);
  return client;
});
