import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { asArray, constructPath, functionGroups, isObject, referenced, variablesOf, type CfnResource, type CfnTemplate } from './cfn';

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
  /** Every resource's type, by logical id. */
  resourceTypes: Record<string, string>;
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
const onFailureOf = (properties: Record<string, unknown>): string | undefined => {
  const config = properties.DestinationConfig;
  const onFailure = isObject(config) && isObject(config.OnFailure) ? config.OnFailure.Destination : undefined;
  return referenced(onFailure);
};
const parsed = (text: unknown): unknown => {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

export function templateDeployment(template: CfnTemplate, stackName: string): TemplateDeployment {
  const entries = Object.entries(template.Resources);
  const groups = functionGroups(template);
  const groupOf = (value: unknown) => groups.get(referenced(value) ?? '');
  const of = (type: string) => entries.filter(([, resource]) => resource.Type === type) as [string, CfnResource & { Properties: Record<string, unknown> }][];
  const deployment: TemplateDeployment = {
    stackName,
    functions: [],
    queues: [],
    eventSources: [],
    asyncInvokes: [],
    notifications: [],
    schedules: [],
    resourceTypes: Object.fromEntries(entries.map(([id, resource]) => [id, resource.Type])),
  };

  for (const [logicalId, group] of groups) {
    const resource = template.Resources[logicalId]!;
    deployment.functions.push({
      group,
      logicalId,
      environment: variablesOf(resource),
      timeoutSeconds: numberOr(resource.Properties?.Timeout, DEFAULTS.timeoutSeconds),
      memoryMb: numberOr(resource.Properties?.MemorySize, DEFAULTS.memoryMb),
    });
  }

  for (const [logicalId, resource] of of('AWS::SQS::Queue')) {
    const properties = resource.Properties ?? {};
    const redrive = parsed(properties.RedrivePolicy);
    const deadLetterQueue = isObject(redrive) ? referenced(redrive.deadLetterTargetArn) : undefined;
    deployment.queues.push({
      logicalId,
      path: constructPath(logicalId, resource, stackName),
      visibilityTimeoutSeconds: numberOr(properties.VisibilityTimeout, DEFAULTS.visibilityTimeoutSeconds),
      retentionSeconds: numberOr(properties.MessageRetentionPeriod, DEFAULTS.retentionSeconds),
      ...(isObject(redrive) && deadLetterQueue ? { redrive: { deadLetterQueue, maxReceiveCount: numberOr(redrive.maxReceiveCount, 1) } } : {}),
    });
  }

  for (const [logicalId, { Properties: properties = {} }] of of('AWS::Lambda::EventSourceMapping')) {
    const group = groupOf(properties.FunctionName);
    const arn = properties.EventSourceArn;
    const sourceId = referenced(arn);
    if (!group || !sourceId || properties.Enabled === false) continue;
    const isStream = isObject(arn) && Array.isArray(arn['Fn::GetAtt']) && arn['Fn::GetAtt'][1] === 'StreamArn';
    const filters = isObject(properties.FilterCriteria) ? asArray(properties.FilterCriteria.Filters) : [];
    const scaling = properties.ScalingConfig;
    deployment.eventSources.push({
      logicalId,
      group,
      source: isStream ? { kind: 'table-stream', table: sourceId } : { kind: 'queue', queue: sourceId },
      batchSize: numberOr(properties.BatchSize, isStream ? DEFAULTS.streamBatchSize : DEFAULTS.queueBatchSize),
      bisectOnError: properties.BisectBatchOnFunctionError === true,
      retryAttempts: numberOr(properties.MaximumRetryAttempts, -1),
      maxRecordAgeSeconds: numberOr(properties.MaximumRecordAgeInSeconds, -1),
      ...(onFailureOf(properties) ? { onFailure: onFailureOf(properties) } : {}),
      reportBatchItemFailures: asArray(properties.FunctionResponseTypes).includes('ReportBatchItemFailures'),
      maxBatchingWindowSeconds: numberOr(properties.MaximumBatchingWindowInSeconds, 0),
      ...(isObject(scaling) && scaling.MaximumConcurrency !== undefined ? { maxConcurrency: numberOr(scaling.MaximumConcurrency, 2) } : {}),
      filters: filters.map((filter) => (isObject(filter) ? parsed(filter.Pattern) : undefined)).filter(isObject),
    });
  }

  for (const [, { Properties: properties = {} }] of of('AWS::Lambda::EventInvokeConfig')) {
    const group = groupOf(properties.FunctionName);
    if (!group) continue;
    deployment.asyncInvokes.push({
      group,
      retryAttempts: numberOr(properties.MaximumRetryAttempts, DEFAULTS.asyncRetryAttempts),
      maxEventAgeSeconds: numberOr(properties.MaximumEventAgeInSeconds, DEFAULTS.maxEventAgeSeconds),
      ...(onFailureOf(properties) ? { onFailure: onFailureOf(properties) } : {}),
    });
  }

  for (const [, { Properties: properties = {} }] of of('Custom::S3BucketNotifications')) {
    const bucket = referenced(properties.BucketName);
    const configuration = properties.NotificationConfiguration;
    if (!bucket || !isObject(configuration)) continue;
    for (const target of asArray(configuration.LambdaFunctionConfigurations).filter(isObject)) {
      const group = groupOf(target.LambdaFunctionArn);
      if (!group) continue;
      const rules = isObject(target.Filter) && isObject(target.Filter.Key) ? asArray(target.Filter.Key.FilterRules).filter(isObject) : [];
      const rule = (name: string) => rules.find((r) => String(r.Name).toLowerCase() === name)?.Value as string | undefined;
      deployment.notifications.push({
        bucket,
        group,
        events: asArray(target.Events).map(String),
        ...(rule('prefix') !== undefined ? { prefix: rule('prefix') } : {}),
        ...(rule('suffix') !== undefined ? { suffix: rule('suffix') } : {}),
      });
    }
  }

  for (const [logicalId, resource] of of('AWS::Events::Rule')) {
    const properties = resource.Properties ?? {};
    if (typeof properties.ScheduleExpression !== 'string' || properties.State === 'DISABLED') continue;
    for (const target of asArray(properties.Targets).filter(isObject)) {
      const group = groupOf(target.Arn);
      if (!group) continue;
      deployment.schedules.push({
        logicalId,
        path: constructPath(logicalId, resource, stackName),
        expression: properties.ScheduleExpression,
        group,
        ...(target.Input !== undefined ? { input: parsed(target.Input) } : {}),
      });
    }
  }
  return deployment;
}
