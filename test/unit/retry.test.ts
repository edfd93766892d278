import { TooManyRequestsException } from '@aws-sdk/client-cognito-identity-provider';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { backoffDelay, cognitoRetryPolicy, eachLimited, isThrottled, retryThrottled, sesRetryPolicy, sleep, type RetryPolicy } from '../../shared/kernel/retry';

/** The kernel's retries and pacing (`shared/kernel/retry.ts`), with no AWS at all. */

/** `policy` with waits recorded instead of slept and a fixed jitter. */
function recorded(policy: RetryPolicy, fraction: number): { policy: RetryPolicy; waits: number[] } {
  const waits: number[] = [];
  return { waits, policy: { ...policy, random: () => fraction, clock: { now: () => 0, sleep: async (ms) => void waits.push(ms) } } };
}

const named = (name: string) => Object.assign(new Error('x'), { name });

describe('what a refusal for a request rate is', () => {
  test.each([
    ['Cognito over a quota', new TooManyRequestsException({ message: 'Too many requests', $metadata: { httpStatusCode: 400 } })],
    ['DynamoDB over its throughput', new ProvisionedThroughputExceededException({ message: 'x', $metadata: {} })],
    ['SES v1 "Maximum sending rate exceeded"', named('Throttling')],
    ['any AWS error answered with HTTP 429', Object.assign(named('SomethingElse'), { $metadata: { httpStatusCode: 429 } })],
    ['an error of another realm (a plain object)', { name: 'ThrottlingException' }],
  ])('%s is one', (_, error) => {
    expect(isThrottled(error)).toBe(true);
  });

  test.each([
    ['a refusal of the request itself', named('ConditionalCheckFailedException')],
    ['a network error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a name alone', 'TooManyRequestsException'],
    ['nothing', undefined],
  ])('%s is not', (_, error) => {
    expect(isThrottled(error)).toBe(false);
  });
});

describe('the back-off', () => {
  test("SES's: full jitter, each step doubling from 500 ms up to 4 s", () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay({ ...sesRetryPolicy, random: () => 0.999 }, retry))).toEqual([499.5, 999, 1998, 3996, 3996]);
    expect(backoffDelay({ ...sesRetryPolicy, random: () => 0 }, 3)).toBe(0);
  });

  test("Cognito's: never under half its step, which doubles from 250 ms", () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay({ ...cognitoRetryPolicy, random: () => 0 }, retry))).toEqual([125, 250, 500, 1000, 2000]);
    expect(backoffDelay({ ...cognitoRetryPolicy, random: () => 0.999 }, 5)).toBeLessThan(4000);
  });

  test('retryThrottled tries a throttled call again after each wait, up to the policy\'s attempts, then throws the last refusal', async () => {
    const { policy, waits } = recorded(sesRetryPolicy, 1);
    let calls = 0;
    const refusal = named('TooManyRequestsException');
    const retried: number[] = [];

    const refused = async () => {
      calls += 1;
      throw refusal;
    };

    await expect(retryThrottled(refused, policy, (attempt) => retried.push(attempt))).rejects.toBe(refusal);

    expect(calls).toBe(5);
    expect(waits).toEqual([500, 1000, 2000, 4000]);
    expect(retried).toEqual([1, 2, 3, 4]);
  });

  test('a call that succeeds after refusals answers its result; any other error is thrown at once, untried', async () => {
    const { policy, waits } = recorded(sesRetryPolicy, 0.5);
    let calls = 0;
    await expect(retryThrottled(async () => (++calls < 3 ? Promise.reject(named('Throttling')) : 'sent'), policy)).resolves.toBe('sent');
    expect(waits).toEqual([250, 500]);

    calls = 0;
    const rejected = named('MessageRejected');
    await expect(retryThrottled(async () => (calls++, Promise.reject(rejected)), policy)).rejects.toBe(rejected);
    expect(calls).toBe(1);
  });
});

describe('eachLimited', () => {
  test('starts the items in order, never more than the limit at once, and waits for all', async () => {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const finished: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push(item);
      peak = Math.max(peak, ++running);
      await sleep(item % 2 === 0 ? 2 : 6);
      running -= 1;
      finished.push(item);
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(3);
    expect(finished.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  test('no items, no work', async () => {
    const work = jest.fn(async () => undefined);
    await eachLimited([], 4, work);
    expect(work).not.toHaveBeenCalled();
  });
});
