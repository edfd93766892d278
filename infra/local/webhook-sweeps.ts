import type { Context, ScheduledEvent } from 'aws-lambda';
import { defaultLog, errorType, invokeOnce } from './invoke';

/**
 * The webhook sweep's schedule on the local stack: as the EventBridge schedule in AWS invokes the
 * `events` function with a scheduled event, this invokes its handler, as that function. Each
 * invocation is given 20 s, so it sweeps for 5 s (the function keeps the receivers' 10 s and a margin)
 * and the stack stops within seconds. As in AWS, sweeps overlap: the next starts while the last still
 * looks, so the time a sweep spends waiting for its last attempts never leaves due deliveries unsent.
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

/** A sweep starts this long after the last one started: within the 5 s that one looks for due deliveries. */
const LOCAL_SWEEP_EVERY_MS = 4_000;

export function startLocalSweeps(handler: SweepHandler): { stop(): Promise<void> } {
  let stopped = false;
  let wake = () => undefined as void;
  // Waits `ms`, or less when the stack stops.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => (clearTimeout(timer), resolve());
    });
  const sweeps = new Set<Promise<unknown>>();
  const running = (async () => {
    while (!stopped) {
      const { attempt } = invokeOnce('events', handler, scheduledEvent(), { timeoutMs: LOCAL_SWEEP_TIMEOUT_MS });
      const sweep = attempt.then((outcome) => {
        if (outcome.ok) return true;
        defaultLog({ level: 'ERROR', source: 'local-lambda', function: 'events', errorType: errorType(outcome.error), message: 'a webhook sweep failed; the next one starts in a second' });
        return false;
      });
      sweeps.add(sweep);
      void sweep.finally(() => sweeps.delete(sweep));
      // A sweep that ended early (it failed) is not started again at once.
      const ended = await Promise.race([sweep, pause(LOCAL_SWEEP_EVERY_MS).then(() => undefined)]);
      if (ended !== undefined) await pause(1_000);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake();
      await running;
      await Promise.all(sweeps);
    },
  };
}
