import {
  CognitoIdentityProviderClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-cognito-identity-provider';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { Pluggable } from '@smithy/types';
import { config } from '../../kernel/config';
import { count } from '../../kernel/metrics';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';
import { backoffDelay, cognitoRetryPolicy, isThrottled } from '../../kernel/retry';

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

export const COGNITO_MAX_ATTEMPTS = cognitoRetryPolicy.maxAttempts;

/**
 * How the client retries a call Cognito refused for its request rate (TooManyRequestsException, HTTP
 * 400, which the SDK classifies as throttling): the kernel's `cognitoRetryPolicy`. This client is the
 * one layer that retries Cognito's throttling, for every caller: it repeats only the refused call, and
 * counts one it still refused. A caller paces itself (the bulk worker's token bucket) and never
 * retries around it. A call still refused answers 503 SERVICE_BUSY with Retry-After
 * (shared/edge/http/error-mapper.ts).
 */
export const cognitoRetryWait = (retry: number): number => backoffDelay(cognitoRetryPolicy, retry);

export const cognitoRetryStrategy = () => new ConfiguredRetryStrategy(COGNITO_MAX_ATTEMPTS, cognitoRetryWait);

export const cognitoClient = lazy(() => {
  const client = withClientPlugins(
    new CognitoIdentityProviderClient({ ...clientOptions(config().endpoints.cognito), retryStrategy: cognitoRetryStrategy() }),
  );
  client.middlewareStack.use(countThrottles);
  return client;
});
