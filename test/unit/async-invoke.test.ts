import type { Context } from 'aws-lambda';
import { currentFunction } from '../../infra/local/kernel/function-context';
import { createAsyncInvoker, FunctionTimeoutError } from '../../infra/local/invoke';
import { retryDelaysFromEnv } from '../../infra/local/deployment/overrides';

// Lambda's asynchronous invocation on the local stack: retries on a function error, then on-failure.

interface Event {
  key: string;
  seen?: boolean;
}

/** A handler that fails its first `failures` attempts, recording when each began and as which function. */
function flaky(failures: number) {
  const attempts: { at: number; group: string | undefined; event: Event; context: Context }[] = [];
  const handler = async (event: Event, context: Context) => {
    attempts.push({ at: Date.now(), group: currentFunction(), event: { ...event }, context });
    event.seen = true;
    if (attempts.length <= failures) throw new Error(`attempt ${attempts.length} failed`);
  };
  return { attempts, handler };
}

const quiet = () => undefined;

test('a function error is retried twice after the delays, then onFailure runs once with the event, the error and 3 attempts', async () => {
  const { attempts, handler } = flaky(Infinity);
  const onFailure = jest.fn();
  const invoke = createAsyncInvoker<Event>({ group: 'bulk-worker', handler, onFailure, retryDelaysMs: [100, 200], log: quiet });
  const event = { key: 'uploads/o/j.csv' };

  const outcome = await invoke(event);

  expect(outcome).toEqual({ ok: false, attempts: 3 });
  expect(attempts).toHaveLength(3);
  expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(95);
  expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(195);
  expect(onFailure).toHaveBeenCalledTimes(1);
  expect(onFailure).toHaveBeenCalledWith(event, expect.objectContaining({ message: 'attempt 3 failed' }), 3);
});

test('a success on a retry stops the retries and skips onFailure', async () => {
  const { attempts, handler } = flaky(1);
  const onFailure = jest.fn();
  const invoke = createAsyncInvoker<Event>({ group: 'bulk-worker', handler, onFailure, retryDelaysMs: [10, 10], log: quiet });

  expect(await invoke({ key: 'k' })).toEqual({ ok: true, attempts: 2 });
  expect(attempts).toHaveLength(2);
  expect(onFailure).not.toHaveBeenCalled();
});

test("a run past the function's timeout is a function error, retried like one", async () => {
  const onFailure = jest.fn();
  let started = 0;
  const invoke = createAsyncInvoker<Event>({
    group: 'bulk-worker',
    handler: () => {
      started++;
      return new Promise(() => undefined);
    },
    onFailure,
    retryDelaysMs: [10, 10],
    timeoutMs: 50,
    log: quiet,
  });

  expect(await invoke({ key: 'k' })).toEqual({ ok: false, attempts: 3 });
  expect(started).toBe(3);
  expect(onFailure.mock.calls[0]![1]).toBeInstanceOf(FunctionTimeoutError);
});

test('each attempt runs as the function, gets its own copy of the event and a context with its timeout', async () => {
  const { attempts, handler } = flaky(1);
  const invoke = createAsyncInvoker<Event>({ group: 'bulk-worker', handler, onFailure: quiet, retryDelaysMs: [1], log: quiet });
  const event = { key: 'k' };

  await invoke(event);

  expect(attempts.map((a) => a.group)).toEqual(['bulk-worker', 'bulk-worker']);
  // The first attempt marked its copy as seen; the retry still receives the event as sent.
  expect(attempts.map((a) => a.event.seen)).toEqual([undefined, undefined]);
  expect(event).toEqual({ key: 'k' });
  expect(attempts[0]!.context.getRemainingTimeInMillis()).toBeGreaterThan(899_000);
});

test('the caller does not wait: invoking returns at once, the attempts follow', async () => {
  const { attempts, handler } = flaky(0);
  const invoke = createAsyncInvoker<Event>({ group: 'bulk-worker', handler: async (event, context) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return handler(event, context);
  }, onFailure: quiet, retryDelaysMs: [], log: quiet });

  const pending = invoke({ key: 'k' });
  expect(attempts).toHaveLength(0);
  expect(await pending).toEqual({ ok: true, attempts: 1 });
});

test('LOCAL_ASYNC_RETRY_DELAYS_MS sets the waits (1 s and 2 s when unset); more than Lambda’s 2 retries is refused', () => {
  expect(retryDelaysFromEnv(undefined)).toEqual([1000, 2000]);
  expect(retryDelaysFromEnv('60000, 120000')).toEqual([60000, 120000]);
  expect(retryDelaysFromEnv('0')).toEqual([0]);
  expect(() => retryDelaysFromEnv('1,2,3')).toThrow(/at most 2/);
  expect(() => retryDelaysFromEnv('soon')).toThrow(/LOCAL_ASYNC_RETRY_DELAYS_MS/);
});
