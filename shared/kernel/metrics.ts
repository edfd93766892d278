import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger';

/** The application metrics the code emits (count each); the stack's alarms and dashboard read them. */
export type AppMetric =
  | 'TokensGranted'
  | 'TokensRefused'
  | 'UsersLockedOut'
  | 'UsersCreated'
  | 'UsersUpdated'
  | 'UsersDeleted'
  | 'UsersReactivated'
  | 'AgentsCreated'
  | 'AgentsUpdated'
  | 'SupervisorsUpdated'
  | 'RevisionsRestored'
  | 'ConfigurationsSaved'
  | 'BulkJobsAccepted'
  | 'BulkJobsFailed'
  | 'BulkRowsCreated'
  | 'BulkRowsFailed'
  | 'MailsSent'
  | 'MailsFailed'
  | 'MailsSkipped'
  | 'MailsRetried'
  | 'IdentityProviderThrottled'
  | 'ChangeEventsPublished'
  | 'WebhookDeliveries'
  | 'WebhookAttemptsFailed'
  | 'WebhookDeliveriesGivenUp'
  | 'WebhooksDisabled'
  | 'WebhookEventsDropped';

/**
 * Powertools Metrics, written as CloudWatch embedded metric format (EMF) lines on stdout. The
 * namespace names the stack (`ManagementApi/<stack>`, set by the CDK stack), so two stacks in one
 * account never share a metric; the `service` dimension is the function's resource group.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ManagementApi',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'management-api',
  // Powertools warns on each invocation that emitted no metric: most requests emit none, so that is debug.
  logger: {
    debug: (...content) => logger.debug(String(content[0]), ...content.slice(1)),
    info: (...content) => logger.debug(String(content[0]), ...content.slice(1)),
    warn: (...content) => logger.debug(String(content[0]), ...content.slice(1)),
    error: (...content) => logger.error(String(content[0]), ...content.slice(1)),
  },
});

/** Counts one occurrence (or `value`) of an application metric in this invocation. */
export function count(name: AppMetric, value = 1): void {
  if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
}

/** One AWS call as `shared/adapters/clients/call-timing.ts` saw it: names and figures, never a payload. */
export interface AwsCall {
  /** The service as its client is named: `DynamoDB`, `CognitoIdentityProvider`, `SESv2`, … */
  awsService: string;
  /** The operation: `GetItem`, `AdminCreateUser`, … */
  operation: string;
  /** From `send` to the answer, the SDK's retries included. */
  durationMs: number;
  /** `ok`, or the name of the error the call ended with (`ConditionalCheckFailedException`, `TimeoutError`). */
  outcome: string;
  /** The SDK's attempts, when the answer or error said. */
  attempts: number | undefined;
}

interface CallTotals {
  awsService: string;
  operation: string;
  calls: number;
  failed: number;
  totalMs: number;
  maxMs: number;
  attempts: number;
  /** How many calls ended with each error. */
  errors: Record<string, number>;
}

/** The invocation's AWS calls by service and operation: at most one entry per operation the code uses. */
const awsCalls = new Map<string, CallTotals>();

/**
 * Adds one AWS call to the invocation's totals, which `publishMetrics` logs (one `aws calls` line per
 * service and operation, so an invocation of many calls still writes a few lines); the call itself is a
 * DEBUG line. Log fields rather than a metric per service and operation: docs/decisions/lighter-functions.md.
 */
export function recordAwsCall(call: AwsCall): void {
  const durationMs = Math.round(call.durationMs);
  logger.debug('aws call', { ...call, durationMs });
  const key = `${call.awsService} ${call.operation}`;
  const totals = awsCalls.get(key) ?? { awsService: call.awsService, operation: call.operation, calls: 0, failed: 0, totalMs: 0, maxMs: 0, attempts: 0, errors: {} };
  totals.calls += 1;
  totals.totalMs += durationMs;
  totals.maxMs = Math.max(totals.maxMs, durationMs);
  totals.attempts += call.attempts ?? 1;
  if (call.outcome !== 'ok') {
    totals.failed += 1;
    totals.errors[call.outcome] = (totals.errors[call.outcome] ?? 0) + 1;
  }
  awsCalls.set(key, totals);
}

/** Logs the invocation's AWS call totals (fields `awsService`, `operation`, `calls`, `failed`, `totalMs`, `maxMs`, `attempts`, `errors`) and starts afresh. */
function logAwsCalls(): void {
  for (const { errors, ...totals } of awsCalls.values()) logger.info('aws calls', { ...totals, ...(totals.failed > 0 ? { errors } : {}) });
  awsCalls.clear();
}

/** Forgets the AWS calls made outside any invocation (the local stack's set-up), so that no invocation's totals carry them. */
export function discardAwsCalls(): void {
  awsCalls.clear();
}

/**
 * Writes the invocation's metrics and AWS call totals (the HTTP chain and the event functions' chain
 * call it once per invocation), the metrics with the request id as metadata. `service` is the
 * function's resource group: on the local stack every function shares one process, so the dimension is
 * set per invocation rather than from the environment.
 */
export function publishMetrics(service: string, requestId?: string): void {
  logAwsCalls();
  if (!metrics.hasStoredMetrics()) return;
  metrics.setDefaultDimensions({ service });
  // Metadata, not a dimension: the EMF line can be found from the request's logs without a metric per request.
  if (requestId) metrics.addMetadata('requestId', requestId);
  metrics.publishStoredMetrics();
}
