import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { defaultLog, errorType, invokeOnce } from './invoke';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, localArn } from './kernel/local-account';

/**
 * A schedule of the template (an EventBridge rule with a schedule expression) on the local stack: it
 * invokes its target function, as that function, with the target's constant input (the webhook sweep's
 * `{ "sweep": "webhooks" }`) or else EventBridge's scheduled event. It fires every `everyMs` rather than
 * by its expression, and gives each invocation `timeoutMs` (the overrides table says why). As in AWS,
 * invocations overlap: the next starts while the last still runs, so the time a sweep spends waiting for
 * its last attempts never leaves due deliveries unsent; one that ended early is not started again at once.
 */

export type ScheduledHandler = (event: unknown, context: Context) => Promise<unknown>;

export interface ScheduleOptions {
  /** The rule's logical id, naming it in the scheduled event's resources. */
  rule: string;
  group: ResourceGroup;
  handler: ScheduledHandler;
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

/** After an invocation that failed, the next waits this long. */
const AFTER_FAILURE_MS = 1_000;

export function startSchedule(options: ScheduleOptions): { stop(): Promise<void> } {
  let stopped = false;
  let wake = () => undefined as void;
  // Waits `ms`, or less when the stack stops.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => (clearTimeout(timer), resolve());
    });
  const invocations = new Set<Promise<unknown>>();
  const running = (async () => {
    while (!stopped) {
      const event = options.input !== undefined ? structuredClone(options.input) : scheduledEvent(options.rule);
      const { attempt } = invokeOnce(options.group, options.handler, event, { timeoutMs: options.timeoutMs, ...(options.memoryMb ? { memoryMb: options.memoryMb } : {}) });
      const invocation = attempt.then((outcome) => {
        if (outcome.ok) return true;
        defaultLog({ level: 'ERROR', source: 'local-lambda', function: options.group, rule: options.rule, errorType: errorType(outcome.error), message: 'a scheduled invocation failed; the next one starts in a second' });
        return false;
      });
      invocations.add(invocation);
      void invocation.finally(() => invocations.delete(invocation));
      const ended = await Promise.race([invocation, pause(options.everyMs).then(() => undefined)]);
      if (ended !== undefined) await pause(AFTER_FAILURE_MS);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake();
      await running;
      await Promise.all(invocations);
    },
  };
}
