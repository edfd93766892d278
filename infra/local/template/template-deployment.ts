import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { asArray, constructPath, functionGroups, isObject, referenced, variablesOf, type CfnTemplate } from './cfn';

/**
 * The deployment as the synthesized template describes it, for the local stack to run it: each
 * function's environment, timeout and memory; the event source mappings, the functions' asynchronous
 * invocation settings, the bucket notifications and the schedules that invoke them; the queues. What
 * the template leaves out is CloudFormation's default, written here as such. Intrinsics stay as the
 * template writes them (the overrides table, `overrides.ts`, gives their local values); a resource is
 * named by its logical id.
 */

export interface FunctionDeployment {
  group: ResourceGroup;
  logicalId: string;
  /** The variables as the template writes them (`{ Ref: … }` and other intrinsics unresolved). */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memoryMb: number;
}

export interface QueueDeployment {
  logicalId: string;
  /** The construct path below the stack (`MailQueue/Queue`), which names the local queue. */
  path: string;
  visibilityTimeoutSeconds: number;
  retentionSeconds: number;
  redrive?: { deadLetterQueue: string; maxReceiveCount: number };
}

export type EventSource = { kind: 'table-stream'; table: string } | { kind: 'queue'; queue: string };

export interface EventSourceMapping {
  logicalId: string;
  group: ResourceGroup;
  source: EventSource;
  batchSize: number;
  bisectOnError: boolean;
  /** Retries of a failed stream batch; -1 until its records expire. */
  retryAttempts: number;
  /** A stream record older than this goes to the on-failure destination instead; -1 never. */
  maxRecordAgeSeconds: number;
  /** The queue a stream batch that failed its retries is described to. */
  onFailure?: string;
  reportBatchItemFailures: boolean;
  maxBatchingWindowSeconds: number;
  /** Invocations at once (SQS); unset, as many as the pollers scale to. */
  maxConcurrency?: number;
  /** The filter patterns (the mapping keeps a record that matches one; none keeps every record). */
  filters: Record<string, unknown>[];
}

export interface AsyncInvokeConfig {
  group: ResourceGroup;
  retryAttempts: number;
  maxEventAgeSeconds: number;
  /** The queue an event whose every attempt failed is sent to, as Lambda's destination record. */
  onFailure?: string;
}

export interface BucketNotification {
  bucket: string;
  group: ResourceGroup;
  /** `s3:ObjectCreated:*` and the like. */
  events: string[];
  prefix?: string;
  suffix?: string;
}

export interface ScheduleRule {
  logicalId: string;
  path: string;
  /** `rate(1 minute)`, `cron(…)`. */
  expression: string;
  group: ResourceGroup;
  /** The target's constant input, which the function receives as its event; unset, EventBridge's scheduled event. */
  input?: unknown;
}

export interface TemplateDeployment {
  stackName: string;
  functions: FunctionDeployment[];
  queues: QueueDeployment[];
  eventSources: EventSourceMapping[];
  asyncInvokes: AsyncInvokeConfig[];
  notifications: BucketNotification[];
  schedules: ScheduleRule[];
}

/** CloudFormation's and Lambda's defaults for what the template leaves out. */
const DEFAULTS = {
  timeoutSeconds: 3,
  memoryMb: 128,
  visibilityTimeoutSeconds: 30,
  retentionSeconds: 345_600,
  streamBatchSize: 100,
  queueBatchSize: 10,
  asyncRetryAttempts: 2,
  maxEventAgeSeconds: 21_600,
};

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : fallback);
const onFailureOf = ({ DestinationConfig: config }: Record<string, unknown>): string | undefined =>
  referenced(isObject(config) && isObject(config.OnFailure) ? config.OnFailure.Destination : undefined);
const parsed = (text: unknown): unknown => {
  try {
    return typeof text === 'string' ? (JSON.parse(text) as unknown) : text;
  } catch {
    return text;
  }
};

// A field the template leaves out is left undefined here, and out of the extract's JSON.
export function templateDeployment(template: CfnTemplate, stackName: string): TemplateDeployment {
  const groups = functionGroups(template);
  const groupOf = (value: unknown) => groups.get(referenced(value) ?? '');
  const of = (type: string) =>
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === type)
      .map(([id, resource]) => ({ id, resource, properties: resource.Properties ?? {} }));

  const functions = [...groups].map(([logicalId, group]): FunctionDeployment => {
    const resource = template.Resources[logicalId]!;
    return {
      group,
      logicalId,
      environment: variablesOf(resource),
      timeoutSeconds: numberOr(resource.Properties?.Timeout, DEFAULTS.timeoutSeconds),
      memoryMb: numberOr(resource.Properties?.MemorySize, DEFAULTS.memoryMb),
    };
  });

  const queues = of('AWS::SQS::Queue').map(({ id, resource, properties }): QueueDeployment => {
    const redrive = parsed(properties.RedrivePolicy);
    const deadLetterQueue = isObject(redrive) ? referenced(redrive.deadLetterTargetArn) : undefined;
    return {
      logicalId: id,
      path: constructPath(id, resource, stackName),
      visibilityTimeoutSeconds: numberOr(properties.VisibilityTimeout, DEFAULTS.visibilityTimeoutSeconds),
      retentionSeconds: numberOr(properties.MessageRetentionPeriod, DEFAULTS.retentionSeconds),
      redrive: isObject(redrive) && deadLetterQueue ? { deadLetterQueue, maxReceiveCount: numberOr(redrive.maxReceiveCount, 1) } : undefined,
    };
  });

  const eventSources = of('AWS::Lambda::EventSourceMapping').flatMap(({ id, properties }): EventSourceMapping[] => {
    const group = groupOf(properties.FunctionName);
    const arn = properties.EventSourceArn;
    const sourceId = referenced(arn);
    if (!group || !sourceId || properties.Enabled === false) return [];
    const isStream = isObject(arn) && Array.isArray(arn['Fn::GetAtt']) && arn['Fn::GetAtt'][1] === 'StreamArn';
    const filters = isObject(properties.FilterCriteria) ? asArray(properties.FilterCriteria.Filters) : [];
    const scaling = properties.ScalingConfig;
    return [
      {
        logicalId: id,
        group,
        source: isStream ? { kind: 'table-stream', table: sourceId } : { kind: 'queue', queue: sourceId },
        batchSize: numberOr(properties.BatchSize, isStream ? DEFAULTS.streamBatchSize : DEFAULTS.queueBatchSize),
        bisectOnError: properties.BisectBatchOnFunctionError === true,
        retryAttempts: numberOr(properties.MaximumRetryAttempts, -1),
        maxRecordAgeSeconds: numberOr(properties.MaximumRecordAgeInSeconds, -1),
        onFailure: onFailureOf(properties),
        reportBatchItemFailures: asArray(properties.FunctionResponseTypes).includes('ReportBatchItemFailures'),
        maxBatchingWindowSeconds: numberOr(properties.MaximumBatchingWindowInSeconds, 0),
        maxConcurrency: isObject(scaling) && scaling.MaximumConcurrency !== undefined ? numberOr(scaling.MaximumConcurrency, 2) : undefined,
        filters: filters.map((filter) => (isObject(filter) ? parsed(filter.Pattern) : undefined)).filter(isObject),
      },
    ];
  });

  const asyncInvokes = of('AWS::Lambda::EventInvokeConfig').flatMap(({ properties }): AsyncInvokeConfig[] => {
    const group = groupOf(properties.FunctionName);
    const retryAttempts = numberOr(properties.MaximumRetryAttempts, DEFAULTS.asyncRetryAttempts);
    const maxEventAgeSeconds = numberOr(properties.MaximumEventAgeInSeconds, DEFAULTS.maxEventAgeSeconds);
    return group ? [{ group, retryAttempts, maxEventAgeSeconds, onFailure: onFailureOf(properties) }] : [];
  });

  const notifications = of('Custom::S3BucketNotifications').flatMap(({ properties }): BucketNotification[] => {
    const bucket = referenced(properties.BucketName);
    const configuration = properties.NotificationConfiguration;
    if (!bucket || !isObject(configuration)) return [];
    return asArray(configuration.LambdaFunctionConfigurations)
      .filter(isObject)
      .flatMap((target) => {
        const group = groupOf(target.LambdaFunctionArn);
        const rules = isObject(target.Filter) && isObject(target.Filter.Key) ? asArray(target.Filter.Key.FilterRules).filter(isObject) : [];
        const rule = (name: string) => rules.find((r) => String(r.Name).toLowerCase() === name)?.Value as string | undefined;
        return group ? [{ bucket, group, events: asArray(target.Events).map(String), prefix: rule('prefix'), suffix: rule('suffix') }] : [];
      });
  });

  const schedules = of('AWS::Events::Rule').flatMap(({ id, resource, properties }): ScheduleRule[] => {
    const expression = properties.ScheduleExpression;
    if (typeof expression !== 'string' || properties.State === 'DISABLED') return [];
    return asArray(properties.Targets)
      .filter(isObject)
      .flatMap((target) => {
        const group = groupOf(target.Arn);
        const input = target.Input !== undefined ? parsed(target.Input) : undefined;
        return group ? [{ logicalId: id, path: constructPath(id, resource, stackName), expression, group, input }] : [];
      });
  });

  return { stackName, functions, queues, eventSources, asyncInvokes, notifications, schedules };
}
