import {
  CognitoIdentityProviderClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-cognito-identity-provider';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { Pluggable, RetryErrorInfo, RetryStrategyV2, StandardRetryToken } from '@smithy/types';
import { config } from '../../kernel/config';
import { count } from '../../kernel/metrics';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';
import { backoffDelay, cognitoRetryPolicy, isThrottled, type Pace } from '../../kernel/retry';

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

/**
 * How often a paced caller's call is tried in all while Cognito refuses it for its rate: each try
 * waits its turn under the caller's pace, so a refusal only delays the call.
 */
export const PACED_MAX_ATTEMPTS = 100;

/**
 * The retry strategy of a caller that paces its calls under a Cognito quota (the bulk worker): a call
 * refused for its rate is tried again when `pace` gives it a turn, so its retries count against the
 * caller's pace, never add to it, and a refused call gives Cognito's bucket back the turn it did not
 * use. The caller's rate is the quota, so a refusal comes from a burst and passes. Any other failure
 * is retried as the shared client retries it.
 */
class PacedRetryStrategy implements RetryStrategyV2 {
  private readonly standard = cognitoRetryStrategy();

  constructor(private readonly pace: Pace) {}

  acquireInitialRetryToken(scope: string): Promise<StandardRetryToken> {
    return this.standard.acquireInitialRetryToken(scope);
  }

  async refreshRetryTokenForRetry(token: StandardRetryToken, errorInfo: RetryErrorInfo): Promise<StandardRetryToken> {
    if (errorInfo.errorType !== 'THROTTLING') return this.standard.refreshRetryTokenForRetry(token, errorInfo);
    const retries = token.getRetryCount() + 1;
    if (retries >= PACED_MAX_ATTEMPTS) throw new Error('Retries spent');
    await this.pace.take();
    return { getRetryCount: () => retries, getRetryDelay: () => 0, getRetryCost: () => undefined };
  }

  recordSuccess(token: StandardRetryToken): void {
    this.standard.recordSuccess(token);
  }
}

/** A Cognito client of its own for a caller that paces its calls with `pace` (`PacedRetryStrategy`). */
export function pacedCognitoClient(pace: Pace): CognitoIdentityProviderClient {
  const client = withClientPlugins(new CognitoIdentityProviderClient({ ...clientOptions(config().endpoints.cognito), retryStrategy: new PacedRetryStrategy(pace) }));
  client.middlewareStack.use(countThrottles);
  return client;
}
