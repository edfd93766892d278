import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { defaultLog, errorType, invokeOnce, lambdaLog } from './invoke';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, localArn } from './kernel/local-account';

/**
 * A schedule of the template (an EventBridge rule): its target invoked with its constant input, or the
 * scheduled event, every `everyMs` (the overrides table says why). As in AWS, invocations overlap, so
 * a sweep waiting for its last attempts never leaves due deliveries unsent.
 */

export interface ScheduleOptions {
  /** The rule's logical id, naming it in the scheduled event's resources. */
  rule: string;
  group: ResourceGroup;
  handler: (event: unknown, context: Context) => Promise<unknown>;
  input?: unknown;
  everyMs: number;
  timeoutMs: number;
  memoryMb?: number;
}

const scheduledEvent = (rule: string): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: LOCAL_ACCOUNT_ID,
  time: new Date().toISOString(),
  region: LOCAL_REGION,
  resources: [localArn('events', `rule/${rule}`)],
  detail: {},
});

/** After an invocation that ended before `everyMs`, the next waits this long. */
const AFTER_FAILURE_MS = 1_000;

export function startSchedule(options: ScheduleOptions): { stop(): Promise<void> } {
  const stopping = new AbortController();
  // Waits `ms`, or less when the stack stops.
  const pause = (ms: number) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined);
  const say = lambdaLog(defaultLog, options.group);
  const invocations = new Set<Promise<unknown>>();
  const running = (async () => {
    while (!stopping.signal.aborted) {
      const event = options.input !== undefined ? structuredClone(options.input) : scheduledEvent(options.rule);
      const { attempt } = invokeOnce(options.group, options.handler, event, { timeoutMs: options.timeoutMs, memoryMb: options.memoryMb });
      const invocation = attempt.then((outcome) => {
        if (outcome.ok) return true;
        say('ERROR', 'a scheduled invocation failed; the next one starts in a second', { rule: options.rule, errorType: errorType(outcome.error) });
        return false;
      });
      invocations.add(invocation);
      void invocation.finally(() => invocations.delete(invocation));
      const ended = await Promise.race([invocation, pause(options.everyMs)]);
      if (ended !== undefined) await pause(AFTER_FAILURE_MS);
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await running;
      await Promise.all(invocations);
    },
  };
}
