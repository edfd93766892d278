import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { groupAccess } from '../cloud/group-access';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { runAsFunction } from './kernel/function-context';
import { sleep } from '../../shared/kernel/retry';
import { LOCAL_REGION, localFunctionArn } from './kernel/local-account';
import { retryDelaysFromEnv } from './deployment/overrides';

/**
 * Invoking a function of the local stack as Lambda does: one attempt with the function's timeout and
 * context (for the gateway and the event sources), asynchronous invocations with Lambda's retries and
 * on-failure path (for the bulk bucket's S3 events), and the loop an event source polls in.
 */

/** One line of the local stack's own log (never personal data). */
export type LocalLog = (record: Record<string, unknown>) => void;

/** One JSON line on stderr, like the functions' structured logs. */
export const defaultLog: LocalLog = (record) => console.error(JSON.stringify({ timestamp: new Date().toISOString(), ...record }));

/** The log lines Lambda's service would write about `group`'s invocations. */
export const lambdaLog =
  (log: LocalLog, group: ResourceGroup) =>
  (level: 'WARN' | 'ERROR', message: string, details: Record<string, unknown> = {}) =>
    log({ level, source: 'local-lambda', function: group, ...details, message });

/** The function's timeout as the CDK stack sets it (10 s by default), for a gateway or poller run without the stack. */
export function functionTimeoutMs(group: ResourceGroup): number {
  return (groupAccess[group]?.timeoutSeconds ?? 10) * 1000;
}

/** The context Lambda hands the function: its name, memory, request id and remaining time. */
export function lambdaContext(group: ResourceGroup, timeoutMs: number, memoryMb = 512): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: localFunctionArn(group),
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    ...{ done: () => undefined, fail: () => undefined, succeed: () => undefined },
  };
}

/** What Lambda's runtime reports for a function that runs past its timeout. */
export class FunctionTimeoutError extends Error {
  override readonly name = 'Sandbox.Timedout';
  constructor(readonly timeoutMs: number) {
    super(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
  }
}

/** How one invocation ended, as Lambda's Invoke reports it. */
export type Attempt<R> = { ok: true; result: R; awsRequestId: string } | { ok: false; error: unknown; awsRequestId: string };

/**
 * One invocation of `group`'s handler as its function (so local IAM applies its role), a function error
 * past its timeout, as in Lambda; the promise keeps running here, so `onLateSettle` reports its end.
 */
export function invokeOnce<E, R>(
  group: ResourceGroup,
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  options: { timeoutMs: number; memoryMb?: number; onLateSettle?: (outcome: 'resolved' | 'rejected') => void },
): { attempt: Promise<Attempt<R>>; running: Promise<unknown> } {
  const context = lambdaContext(group, options.timeoutMs, options.memoryMb);
  const { awsRequestId } = context;
  // An async wrapper turns a handler that throws synchronously into a rejection, inside the function's context.
  const running = runAsFunction(group, async () => handler(event, context));
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  // The first of the handler's end and its timeout is the attempt's outcome.
  const attempt = new Promise<Attempt<R>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: new FunctionTimeoutError(options.timeoutMs), awsRequestId }), options.timeoutMs).unref();
    running.then((result) => resolve({ ok: true, result, awsRequestId }), (error: unknown) => resolve({ ok: false, error, awsRequestId }));
  }).then((outcome) => {
    settled = true;
    clearTimeout(timer);
    return outcome;
  });
  running.then(
    () => settled && options.onLateSettle?.('resolved'),
    () => settled && options.onLateSettle?.('rejected'),
  );
  return { attempt, running };
}

/** The error an asynchronous event is given up with once older than its maximum age (Lambda's `EventAgeExceeded`). */
export class EventAgeExceededError extends Error {
  override readonly name = 'EventAgeExceeded';
}

/** The record Lambda sends an on-failure destination: the invocation's context, then what it was about (`about`). */
export function destinationRecord<T extends object>(invocation: { requestId: string; functionArn: string; condition: string; attempts: number; failed: boolean }, about: T) {
  const { requestId, functionArn, condition, attempts, failed } = invocation;
  return {
    version: '1.0' as const,
    timestamp: new Date().toISOString(),
    requestContext: { requestId, functionArn, condition, approximateInvokeCount: attempts },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(failed ? { functionError: 'Unhandled' } : {}) },
    ...about,
  };
}

export interface AsyncInvokerOptions<E> {
  group: ResourceGroup;
  handler: (event: E, context: Context) => Promise<unknown>;
  /** What Lambda does with an event whose every attempt failed, or which grew too old (its on-failure destination). */
  onFailure: (event: E, error: unknown, attempts: number) => void | Promise<void>;
  /** The waits before each retry, one per retry (`LOCAL_ASYNC_RETRY_DELAYS_MS` by default). */
  retryDelaysMs?: readonly number[];
  /** Defaults to the function's own timeout. */
  timeoutMs?: number;
  memoryMb?: number;
  /** An event this old is not tried again (Lambda's default: 6 hours). */
  maxEventAgeMs?: number;
  log?: LocalLog;
}

/**
 * An invoker with Lambda's asynchronous semantics (docs/local-stack.md#asynchronous-invocations); each
 * attempt gets its own copy of the event. The promise tells callers that wait (tests) how it ended.
 */
export function createAsyncInvoker<E>(options: AsyncInvokerOptions<E>): (event: E) => Promise<{ ok: boolean; attempts: number }> {
  const delays = options.retryDelaysMs ?? retryDelaysFromEnv();
  const timeoutMs = options.timeoutMs ?? functionTimeoutMs(options.group);
  const maxEventAgeMs = options.maxEventAgeMs ?? 6 * 60 * 60 * 1000;
  const say = lambdaLog(options.log ?? defaultLog, options.group);
  return async (event) => {
    const queuedAt = Date.now();
    let lastError: unknown;
    let attempts = 0;
    while (attempts <= delays.length) {
      if (attempts > 0) await sleep(delays[attempts - 1]!);
      if (Date.now() - queuedAt > maxEventAgeMs) {
        lastError = new EventAgeExceededError(`The event is older than its maximum age (${maxEventAgeMs} ms)`);
        break;
      }
      attempts++;
      const result = await invokeOnce(options.group, options.handler, structuredClone(event), {
        timeoutMs,
        memoryMb: options.memoryMb,
        onLateSettle: (how) => say('WARN', `a timed-out asynchronous invocation ${how} after all (Lambda would have stopped it)`),
      }).attempt;
      if (result.ok) return { ok: true, attempts };
      lastError = result.error;
      const retrying = attempts <= delays.length;
      const message = retrying ? `asynchronous invocation failed; retry in ${delays[attempts - 1]} ms` : 'asynchronous invocation failed; retries spent, running the on-failure path';
      say(retrying ? 'WARN' : 'ERROR', message, { awsRequestId: result.awsRequestId, attempt: attempts, errorType: errorType(result.error) });
    }
    try {
      await options.onFailure(event, lastError, attempts);
    } catch (error) {
      say('ERROR', 'the on-failure path itself failed', { errorType: errorType(error) });
    }
    return { ok: false, attempts };
  };
}

/** What an event-source poller (the table stream's, a queue's) is given: where it reads, and the function it invokes. */
export interface PollerOptions<E, R> {
  endpoint: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  handler: (event: E, context: Context) => Promise<R | void>;
  /** The function's timeout (by default the CDK stack's, `functionTimeoutMs`) and memory. */
  timeoutMs?: number;
  memoryMb?: number;
  log?: LocalLog;
}

/** A poller's SDK client settings and its one invocation of a batch, with a late end of a timed-out one logged. */
export function pollerParts<E, R>(group: ResourceGroup, source: 'queue' | 'stream', options: PollerOptions<E, R>, log: ReturnType<typeof lambdaLog>) {
  const client = { endpoint: options.endpoint, region: LOCAL_REGION, credentials: options.credentials ?? { accessKeyId: 'local', secretAccessKey: 'local' } };
  const { handler, timeoutMs = functionTimeoutMs(group), memoryMb } = options;
  const onLateSettle = (how: string) => log('WARN', `a timed-out ${source} invocation ${how} after all (Lambda would have stopped it)`);
  return { client, invoke: (event: E) => invokeOnce(group, handler, event, { timeoutMs, memoryMb, onLateSettle }).attempt };
}

/** An error's type without its message, which may carry data from the request. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The loop an event source polls in until `signal` aborts: `step` answers whether it found work; when
 * it did not, the loop waits `idleMs`, and after an error (logged by `onError`) `afterErrorMs`.
 */
export async function pollUntilStopped(
  signal: AbortSignal,
  step: () => Promise<boolean>,
  waits: { idleMs: number; afterErrorMs: number },
  onError: (error: unknown) => void,
): Promise<void> {
  const pause = (ms: number) => (ms > 0 ? delay(ms, undefined, { signal }).catch(() => undefined) : undefined);
  while (!signal.aborted) {
    try {
      if (!(await step())) await pause(waits.idleMs);
    } catch (error) {
      if (signal.aborted) return;
      onError(error);
      await pause(waits.afterErrorMs);
    }
  }
}
