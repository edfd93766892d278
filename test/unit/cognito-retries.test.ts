import { isThrottlingError } from '@smithy/core/retry';
import { COGNITO_MAX_ATTEMPTS, cognitoRetryStrategy, cognitoRetryWait } from '../../shared/adapters/clients/cognito';
import { mapError } from '../../shared/edge/http/error-mapper';

/** How the product's Cognito client backs off when Cognito refuses a call for its request rate. */

test("the SDK takes Cognito's over-quota answer (TooManyRequestsException, HTTP 400) for throttling, so it retries it", () => {
  const refusal = Object.assign(new Error('Too many requests'), { name: 'TooManyRequestsException', $metadata: { httpStatusCode: 400 } });
  expect(isThrottlingError(refusal as Parameters<typeof isThrottlingError>[0])).toBe(true);
});

test('six attempts; each wait doubles from 250 ms and is never under half its step; 7.75 s at most in all', async () => {
  const strategy = cognitoRetryStrategy();
  expect(COGNITO_MAX_ATTEMPTS).toBe(6);
  expect(await strategy.maxAttempts()).toBe(6);
  let longest = 0;
  for (let retry = 1; retry < COGNITO_MAX_ATTEMPTS; retry++) {
    const step = 250 * 2 ** (retry - 1);
    const waits = Array.from({ length: 1000 }, () => cognitoRetryWait(retry));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(step / 2);
    expect(Math.max(...waits)).toBeLessThanOrEqual(step);
    longest += step;
  }
  expect(longest).toBe(7750);
});

test('a call still refused for its rate after the retries is 503 SERVICE_BUSY with Retry-After, in words a client can act on', () => {
  const refusal = Object.assign(new Error('Too many requests'), { name: 'TooManyRequestsException' });
  expect(mapError(refusal)).toEqual({
    status: 503,
    code: 'SERVICE_BUSY',
    message: 'The service is taking more requests than it can right now and changed nothing; retry after the number of seconds in Retry-After',
    retryAfterSeconds: 1,
  });
  // Any other failure of an AWS call stays a generic 500.
  expect(mapError(Object.assign(new Error('boom'), { name: 'InternalErrorException' }))).toMatchObject({ status: 500, code: 'INTERNAL' });
});
