import type { Context, ScheduledEvent } from 'aws-lambda';
import { defaultLog, errorType, invokeOnce } from './invoke';

/**
 * The webhook sweep's schedule on the local stack: as the EventBridge schedule in AWS invokes the
 * `events` function with a scheduled event, this invokes its handler, as that function, one sweep
 * after the other. Each invocation is given 20 s, so it sweeps for 5 s (the function keeps the
 * receivers' 10 s and a margin) and the stack stops within seconds.
 */

export type SweepHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

const LOCAL_SWEEP_TIMEOUT_MS = 20_000;

const scheduledEvent = (): ScheduledEvent => ({
  version: '0',
  id: crypto.randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:000000000000:rule/local-webhook-sweep'],
  detail: {},
});

export function startLocalSweeps(handler: SweepHandler): { stop(): Promise<void> } {
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const started = Date.now();
      const { attempt } = invokeOnce('events', handler, scheduledEvent(), { timeoutMs: LOCAL_SWEEP_TIMEOUT_MS });
      const outcome = await attempt;
      if (!outcome.ok) {
        defaultLog({ level: 'ERROR', source: 'local-lambda', function: 'events', errorType: errorType(outcome.error), message: 'a webhook sweep failed; the next one starts in a second' });
      }
      // A sweep that ended early (it failed) is not started again at once.
      const rest = 1_000 - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest).unref());
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
