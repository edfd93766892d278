import { asArray, constructPath, functionGroups, isObject, referenced, variablesOf, type CfnTemplate } from './cfn';

/**
 * The deployment as the synthesized template describes it (docs/local-stack.md#one-description-of-the-deployment),
 * a setting it leaves out at CloudFormation's default, intrinsics unresolved (the overrides table gives their
 * local values). Each type is what its reader returns, so a field is declared once.
 */

export type TemplateDeployment = ReturnType<typeof templateDeployment>;
export type EventSourceMapping = TemplateDeployment['eventSources'][number];
export type BucketNotification = TemplateDeployment['notifications'][number];

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
/** The queue a failure is sent to, as Lambda's destination record (a stream batch past its retries, an event past its attempts). */
const onFailureOf = ({ DestinationConfig: config }: Record<string, unknown>): string | undefined =>
  referenced(isObject(config) && isObject(config.OnFailure) ? config.OnFailure.Destination : undefined);
const parsed = (text: unknown): unknown => {
  try {
    return typeof text === 'string' ? (JSON.parse(text) as unknown) : text;
  } catch {
    return text;
  }
};

// A field the template leaves out with no default is undefined here, and absent from the extract's JSON.
export function templateDeployment(template: CfnTemplate, stackName: string) {
  const groups = functionGroups(template);
  const groupOf = (value: unknown) => groups.get(referenced(value) ?? '');
  const of = (type: string) =>
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === type)
      .map(([id, resource]) => ({ id, resource, properties: resource.Properties ?? {} }));

  const functions = [...groups].map(([logicalId, group]) => {
    const resource = template.Resources[logicalId]!;
    return {
      group,
      logicalId,
      /** The variables as the template writes them (`{ Ref: … }` and other intrinsics unresolved). */
      environment: variablesOf(resource),
      timeoutSeconds: numberOr(resource.Properties?.Timeout, DEFAULTS.timeoutSeconds),
      memoryMb: numberOr(resource.Properties?.MemorySize, DEFAULTS.memoryMb),
    };
  });

  const queues = of('AWS::SQS::Queue').map(({ id, resource, properties }) => {
    const redrive = parsed(properties.RedrivePolicy);
    const deadLetterQueue = isObject(redrive) ? referenced(redrive.deadLetterTargetArn) : undefined;
    return {
      logicalId: id,
      /** The construct path below the stack (`MailQueue/Queue`), which names the local queue. */
      path: constructPath(id, resource, stackName),
      visibilityTimeoutSeconds: numberOr(properties.VisibilityTimeout, DEFAULTS.visibilityTimeoutSeconds),
      retentionSeconds: numberOr(properties.MessageRetentionPeriod, DEFAULTS.retentionSeconds),
      redrive: isObject(redrive) && deadLetterQueue ? { deadLetterQueue, maxReceiveCount: numberOr(redrive.maxReceiveCount, 1) } : undefined,
    };
  });

  const eventSources = of('AWS::Lambda::EventSourceMapping').flatMap(({ id, properties }) => {
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
        source: isStream ? { kind: 'table-stream' as const, table: sourceId } : { kind: 'queue' as const, queue: sourceId },
        batchSize: numberOr(properties.BatchSize, isStream ? DEFAULTS.streamBatchSize : DEFAULTS.queueBatchSize),
        bisectOnError: properties.BisectBatchOnFunctionError === true,
        /** Retries of a failed stream batch; -1 until its records expire. */
        retryAttempts: numberOr(properties.MaximumRetryAttempts, -1),
        /** A stream record older than this goes to the on-failure destination instead; -1 never. */
        maxRecordAgeSeconds: numberOr(properties.MaximumRecordAgeInSeconds, -1),
        onFailure: onFailureOf(properties),
        reportBatchItemFailures: asArray(properties.FunctionResponseTypes).includes('ReportBatchItemFailures'),
        maxBatchingWindowSeconds: numberOr(properties.MaximumBatchingWindowInSeconds, 0),
        /** Invocations at once (SQS); unset, as many as the pollers scale to. */
        maxConcurrency: isObject(scaling) && scaling.MaximumConcurrency !== undefined ? numberOr(scaling.MaximumConcurrency, 2) : undefined,
        /** The filter patterns (the mapping keeps a record that matches one; none keeps every record). */
        filters: filters.map((filter) => (isObject(filter) ? parsed(filter.Pattern) : undefined)).filter(isObject),
      },
    ];
  });

  const asyncInvokes = of('AWS::Lambda::EventInvokeConfig').flatMap(({ properties }) => {
    const group = groupOf(properties.FunctionName);
    const retryAttempts = numberOr(properties.MaximumRetryAttempts, DEFAULTS.asyncRetryAttempts);
    const maxEventAgeSeconds = numberOr(properties.MaximumEventAgeInSeconds, DEFAULTS.maxEventAgeSeconds);
    return group ? [{ group, retryAttempts, maxEventAgeSeconds, onFailure: onFailureOf(properties) }] : [];
  });

  const notifications = of('Custom::S3BucketNotifications').flatMap(({ properties }) => {
    const bucket = referenced(properties.BucketName);
    const configuration = properties.NotificationConfiguration;
    if (!bucket || !isObject(configuration)) return [];
    return asArray(configuration.LambdaFunctionConfigurations)
      .filter(isObject)
      .flatMap((target) => {
        const group = groupOf(target.LambdaFunctionArn);
        const rules = isObject(target.Filter) && isObject(target.Filter.Key) ? asArray(target.Filter.Key.FilterRules).filter(isObject) : [];
        const rule = (name: string) => rules.find((r) => String(r.Name).toLowerCase() === name)?.Value as string | undefined;
        // `events`: `s3:ObjectCreated:*` and the like.
        return group ? [{ bucket, group, events: asArray(target.Events).map(String), prefix: rule('prefix'), suffix: rule('suffix') }] : [];
      });
  });

  const schedules = of('AWS::Events::Rule').flatMap(({ id, resource, properties }) => {
    const expression = properties.ScheduleExpression;
    if (typeof expression !== 'string' || properties.State === 'DISABLED') return [];
    return asArray(properties.Targets)
      .filter(isObject)
      .flatMap((target) => {
        const group = groupOf(target.Arn);
        // The target's constant input is the function's event; unset, EventBridge's scheduled event.
        const input: unknown = target.Input !== undefined ? parsed(target.Input) : undefined;
        return group ? [{ logicalId: id, path: constructPath(id, resource, stackName), expression, group, input }] : [];
      });
  });

  return { stackName, functions, queues, eventSources, asyncInvokes, notifications, schedules };
}
