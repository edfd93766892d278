import { randomUUID } from 'node:crypto';
import { ConnectionError } from './errors';

/** How calls are retried: a 429, a 5xx or a lost connection, at most `attempts` times in all. */
export interface RetryPolicy {
  /** Tries in all, the first included (default 4). */
  attempts: number;
  /** The first pause when the answer names none; doubled each time, with jitter (default 500 ms). */
  baseDelayMs: number;
  /** The longest pause, `Retry-After` included (default 30 s): a longer one is not waited for. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The pause `Retry-After` asks for (seconds or an HTTP date), in milliseconds; undefined without one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether an answer is worth sending the same request again. */
const retryable = (status: number) => status === 429 || (status >= 500 && status !== 501);

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });

export interface RetryingFetchOptions {
  policy?: Partial<RetryPolicy>;
  /** Headers added to each attempt (a fresh bearer token each time); `refresh` is true after a 401. */
  headers?: (refresh: boolean) => Promise<Record<string, string>>;
  /** Told before each pause, e.g. to say so on a terminal. */
  onRetry?: (info: { attempt: number; delayMs: number; status?: number; method: string; url: string }) => void;
  fetch?: typeof fetch;
}

/**
 * A fetch that sends a request again after a 429, a 5xx or a lost connection, waiting what `Retry-After`
 * says (else exponential back-off with jitter). Every write carries one `Idempotency-Key` (the caller's,
 * or a new UUID), the same on every attempt, so a create the server already made is answered again
 * rather than made twice (docs/api/idempotency.md). A 401 is tried once more with a refreshed token.
 */
export function retryingFetch(options: RetryingFetchOptions = {}): (input: Request) => Promise<Response> {
  const policy = { ...defaultRetryPolicy, ...options.policy };
  const send = options.fetch ?? globalThis.fetch;
  return async (input: Request) => {
    const method = input.method.toUpperCase();
    const body = method === 'GET' || method === 'HEAD' ? undefined : await input.arrayBuffer();
    const headers = new Headers(input.headers);
    if (WRITES.has(method) && !headers.has('idempotency-key')) headers.set('idempotency-key', randomUUID());
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const attemptHeaders = new Headers(headers);
      for (const [name, value] of Object.entries((await options.headers?.(refreshed)) ?? {})) attemptHeaders.set(name, value);
      let response: Response;
      try {
        response = await send(new Request(input.url, { method, headers: attemptHeaders, body, signal: input.signal, redirect: input.redirect }));
      } catch (error) {
        if (input.signal?.aborted) throw error;
        if (attempt >= policy.attempts) throw new ConnectionError(input.url, { cause: error });
        const delayMs = backoff(policy, attempt);
        options.onRetry?.({ attempt, delayMs, method, url: input.url });
        await sleep(delayMs, input.signal);
        continue;
      }
      if (response.status === 401 && !refreshed && options.headers && attemptHeaders.has('authorization')) {
        refreshed = true;
        await response.body?.cancel();
        continue;
      }
      if (!retryable(response.status) || attempt >= policy.attempts) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      const delayMs = asked ?? backoff(policy, attempt);
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, status: response.status, method, url: input.url });
      await sleep(delayMs, input.signal);
    }
  };
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
