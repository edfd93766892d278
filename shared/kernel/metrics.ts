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

/**
 * Writes the invocation's metrics (the HTTP chain and the event functions' chain call it once per
 * invocation) with the request id as metadata. `service` is the function's resource group: on the local stack every function
 * shares one process, so the dimension is set per invocation rather than from the environment.
 */
export function publishMetrics(service: string, requestId?: string): void {
  if (!metrics.hasStoredMetrics()) return;
  metrics.setDefaultDimensions({ service });
  // Metadata, not a dimension: the EMF line can be found from the request's logs without a metric per request.
  if (requestId) metrics.addMetadata('requestId', requestId);
  metrics.publishStoredMetrics();
}
