/**
 * Retries and pacing, in one place: which AWS errors are a refusal for a request rate, how a call is
 * tried again after one, how work is paced under a rate and how many run at once. It imports nothing
 * of the project, so every layer may use it. One rule goes with it: a call is retried by one layer
 * only. An AWS client that retries (Cognito's, `shared/adapters/clients/cognito.ts`) is never wrapped in
 * `retryThrottled`; its callers pace themselves with a `TokenBucket` instead.
 */

/** Time as the pacing and the back-off see it; tests inject one that never waits. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const systemClock: Clock = { now: () => Date.now(), sleep };

/**
 * The names the AWS SDKs give a call a service refused for its request rate, as the SDK's own retry
 * strategy classifies them: Cognito's TooManyRequestsException over a user-pool quota (and its
 * LimitExceededException), SES's TooManyRequestsException, LimitExceededException or, from the v1
 * endpoints, Throttling ("Maximum sending rate exceeded"), DynamoDB's ThrottlingException and
 * ProvisionedThroughputExceededException, EC2-style RequestLimitExceeded.
 */
export const throttlingErrorNames: ReadonlySet<string> = new Set([
  'TooManyRequestsException',
  'ThrottlingException',
  'Throttling',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/**
 * Whether `error` is an AWS service's refusal for its request rate: one of the names above, or an
 * HTTP 429. Duck-typed, not `instanceof Error`: errors from another realm (Node's sockets under jest)
 * are errors too.
 */
export function isThrottled(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, $metadata } = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return (typeof name === 'string' && throttlingErrorNames.has(name)) || $metadata?.httpStatusCode === 429;
}

/**
 * How a call refused for its rate is tried again: up to `maxAttempts` in all, the wait before attempt
 * n+1 a step of `baseDelayMs · 2^(n-1)` (at most `maxDelayMs`), of which `floor` is always waited and
 * the rest is random ("full jitter" at 0, so callers refused together do not return together).
 */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The share of each step always waited, in [0, 1]. */
  floor: number;
  clock: Clock;
  /** In [0, 1); `Math.random` but in tests. */
  random: () => number;
}

/**
 * SES's send rate, retried by the mailer (`shared/adapters/mail/mailer.ts`), each attempt through the send-rate
 * bucket: five attempts, at most 0.5 + 1 + 2 + 4 = 7.5 s of waiting, within the users function's 20 s
 * (infra/cloud/group-access.ts).
 */
export const sesRetryPolicy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 4_000, floor: 0, clock: systemClock, random: Math.random };

/**
 * Cognito's request-rate quotas, retried by its SDK client (`shared/adapters/clients/cognito.ts`) for every
 * caller, the bulk worker included: six attempts, the waits doubling from 250 ms, each between half
 * and all of its step (125-250 ms, up to 2-4 s), at most 7.75 s in all. The floor is the point:
 * Cognito's quotas are rates per second, and a wait anywhere from 0 spends attempts before a token can
 * have come back.
 */
export const cognitoRetryPolicy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 4_000, floor: 0.5, clock: systemClock, random: Math.random };

/** The wait before retry `retry` (1 for the second attempt) under `policy`, in ms. */
export function backoffDelay(policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'floor' | 'random'>, retry: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return step * (policy.floor + (1 - policy.floor) * policy.random());
}

/**
 * Runs `work`, and again after a throttling error, as `policy` says; throws the last error, or at once
 * any other. For a call whose client does not retry throttling itself.
 */
export async function retryThrottled<T>(work: () => Promise<T>, policy: RetryPolicy, onRetry?: (attempt: number, delayMs: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isThrottled(error) || attempt >= policy.maxAttempts) throw error;
      const delayMs = Math.round(backoffDelay(policy, attempt));
      onRetry?.(attempt, delayMs);
      await policy.clock.sleep(delayMs);
    }
  }
}

export interface TokenBucketOptions {
  /** Tokens added per second: the rate to keep under. */
  ratePerSecond: number;
  /** Tokens the bucket holds when full (taken at once after a pause); default one second's worth, at least 1. */
  burst?: number;
  clock?: Clock;
}

/**
 * A token bucket: `take()` resolves when the caller may make one call. Each call reserves the next
 * token before it waits (the bucket goes into debt), so concurrent lanes are served in the order they
 * asked and together never pass the rate.
 */
export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private updatedAt: number;

  constructor({ ratePerSecond, burst, clock = systemClock }: TokenBucketOptions) {
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new RangeError(`A rate must be a positive number, not ${ratePerSecond}`);
    this.ratePerSecond = ratePerSecond;
    this.burst = burst ?? Math.max(1, Math.floor(ratePerSecond));
    this.clock = clock;
    this.tokens = this.burst;
    this.updatedAt = clock.now();
  }

  async take(): Promise<void> {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.ratePerSecond) / 1000);
    this.updatedAt = now;
    this.tokens -= 1;
    if (this.tokens < 0) await this.clock.sleep((-this.tokens * 1000) / this.ratePerSecond);
  }
}

/** What paces a caller: a `TokenBucket`, or anything that waits its turn the same way. */
export type Pace = Pick<TokenBucket, 'take'>;

/** Runs `work` on every item, in order of the items, with at most `limit` running at once. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}
