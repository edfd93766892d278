import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { setTimeout as delay } from 'node:timers/promises';
import type { Context, S3Event, ScheduledEvent } from 'aws-lambda';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { deploymentOverrides } from './deployment/overrides';
import type { BucketNotification, EventSourceMapping, TemplateDeployment } from './template/template-deployment';
import { createAsyncInvoker, defaultLog, destinationRecord, errorType, EventAgeExceededError, invokeOnce, lambdaLog } from './invoke';
import { startQueuePoller } from './queue-poller';
import { startStreamPoller } from './stream-poller';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, localArn, localFunctionArn } from './kernel/local-account';

/**
 * What invokes the functions besides the gateway, as the synthesized template declares it: the event
 * source mappings, the bucket's notifications and the schedules, with their on-failure destinations.
 */

export interface EventSourcesOptions {
  deployment: TemplateDeployment;
  /** The function's handler, its module loaded on its first event. */
  handlerOf<E, R>(group: ResourceGroup): (event: E, context: Context) => Promise<R>;
  /** The local SQS: its endpoint, and the URL of the local queue a template's queue (logical id) is. */
  queues: { endpoint: string; urlOf(logicalId: string): string };
  /** DynamoDB Local, and the local table whose stream the mapping reads. */
  table: { endpoint: string; name: string };
  credentials: { accessKeyId: string; secretAccessKey: string };
  onS3Event(listener: (event: S3Event) => void): void;
  /** Where the stream's reading is kept across restarts. */
  dataDir: string;
}

/** Whether an S3 event record is one a notification names: its event type, its key's prefix and suffix. */
export function notified(notification: BucketNotification, record: S3Event['Records'][number]): boolean {
  const type = `s3:${record.eventName}`;
  const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
  const named = notification.events.some((pattern) => (pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern));
  return named && key.startsWith(notification.prefix ?? '') && key.endsWith(notification.suffix ?? '');
}

export function startEventSources(options: EventSourcesOptions): { stop(): Promise<void> } {
  const { deployment, handlerOf, queues } = options;
  const sqs = new SQSClient({ endpoint: queues.endpoint, region: LOCAL_REGION, credentials: options.credentials });
  const settings = (group: ResourceGroup) => {
    const fn = deployment.functions.find((candidate) => candidate.group === group)!;
    return { timeoutMs: fn.timeoutSeconds * 1000, memoryMb: fn.memoryMb };
  };
  // What Lambda's service sends an on-failure destination: outside any function, so no role applies.
  const sendTo = (queue: string) => async (record: unknown) => void (await sqs.send(new SendMessageCommand({ QueueUrl: queues.urlOf(queue), MessageBody: JSON.stringify(record) })));

  const mapping = (source: EventSourceMapping) => {
    const { group } = source;
    const invoked = { credentials: options.credentials, ...settings(group) };
    if (source.source.kind === 'table-stream') {
      return startStreamPoller({
        ...source,
        ...invoked,
        handler: handlerOf(group),
        endpoint: options.table.endpoint,
        tableName: options.table.name,
        checkpointFile: join(options.dataDir, 'stream-checkpoints.json'),
        onFailure: source.onFailure ? sendTo(source.onFailure) : undefined,
      });
    }
    return startQueuePoller({
      queueUrl: queues.urlOf(source.source.queue),
      endpoint: queues.endpoint,
      functionName: group,
      handler: handlerOf(group),
      ...invoked,
      batchSize: source.batchSize,
      // Without a maximum, Lambda starts with five pollers.
      concurrency: deploymentOverrides.maxConcurrency.value[group] ?? source.maxConcurrency ?? 5,
      reportBatchItemFailures: source.reportBatchItemFailures,
    });
  };

  const notification = (target: BucketNotification) => {
    const { group } = target;
    const config = deployment.asyncInvokes.find((candidate) => candidate.group === group);
    const delays = deploymentOverrides.asyncRetryDelaysMs.value();
    const destination = config?.onFailure ? sendTo(config.onFailure) : undefined;
    const functionArn = localFunctionArn(group, '$LATEST');
    const invoke = createAsyncInvoker<S3Event>({
      group,
      handler: handlerOf(group),
      retryDelaysMs: Array.from({ length: config?.retryAttempts ?? 2 }, (_, index) => delays[index] ?? delays.at(-1) ?? 1_000),
      ...settings(group),
      maxEventAgeMs: (config?.maxEventAgeSeconds ?? 21_600) * 1000,
      onFailure: async (event, error, attempts) => {
        const condition = error instanceof EventAgeExceededError ? 'EventAgeExceeded' : 'RetriesExhausted';
        // The original event as the request payload, the error's type (never its message, which may carry data).
        const record = destinationRecord({ requestId: randomUUID(), functionArn, condition, attempts, failed: true }, { requestPayload: event, responsePayload: { errorType: errorType(error) } });
        if (destination) return destination(record);
        lambdaLog(defaultLog, group)('ERROR', 'asynchronous event given up and dropped: the function has no on-failure destination', { condition });
      },
    });
    options.onS3Event((event) => {
      const records = (event.Records ?? []).filter((record) => notified(target, record));
      if (records.length > 0) void invoke({ Records: records });
    });
  };

  const schedules = deployment.schedules.map((schedule) => startSchedule(schedule, handlerOf(schedule.group), settings(schedule.group).memoryMb));
  const running = [...deployment.eventSources.map(mapping), ...schedules];
  deployment.notifications.forEach(notification);

  return {
    stop: async () => {
      const stopped = await Promise.allSettled(running.map((source) => source.stop()));
      for (const outcome of stopped) {
        if (outcome.status === 'rejected') defaultLog({ level: 'ERROR', source: 'local-stack', errorType: errorType(outcome.reason), message: 'an event source did not stop cleanly' });
      }
      sqs.destroy();
    },
  };
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

/** After an invocation that ended before its period, the next waits this long. */
const AFTER_FAILURE_MS = 1_000;

/**
 * A schedule of the template (an EventBridge rule, named by its logical id in the scheduled event): its
 * target invoked with its constant input, or the scheduled event, at the overrides table's period. As in
 * AWS, invocations overlap, so a sweep waiting for its last attempts never leaves due deliveries unsent.
 */
function startSchedule(schedule: TemplateDeployment['schedules'][number], handler: (event: unknown, context: Context) => Promise<unknown>, memoryMb: number): { stop(): Promise<void> } {
  const { logicalId: rule, group, input } = schedule;
  const stopping = new AbortController();
  // Waits `ms`, or less when the stack stops.
  const pause = (ms: number) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined);
  const say = lambdaLog(defaultLog, group);
  // A stop ends the running invocations' time, as their timeout would: a sweep starts nothing more and waits on no receiver.
  const stoppable = (event: unknown, context: Context) =>
    handler(event, { ...context, getRemainingTimeInMillis: () => (stopping.signal.aborted ? 0 : context.getRemainingTimeInMillis()) });
  const invocations = new Set<Promise<unknown>>();
  const running = (async () => {
    while (!stopping.signal.aborted) {
      const event = input !== undefined ? structuredClone(input) : scheduledEvent(rule);
      const { attempt } = invokeOnce(group, stoppable, event, { timeoutMs: deploymentOverrides.scheduleTimeoutMs.value, memoryMb });
      const invocation = attempt.then((outcome) => {
        if (outcome.ok) return true;
        say('ERROR', 'a scheduled invocation failed; the next one starts in a second', { rule, errorType: errorType(outcome.error) });
        return false;
      });
      invocations.add(invocation);
      void invocation.finally(() => invocations.delete(invocation));
      const ended = await Promise.race([invocation, pause(deploymentOverrides.scheduleEveryMs.value)]);
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
