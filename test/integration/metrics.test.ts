import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent } from 'aws-lambda';
import { fillEvent, localStack } from '../../scripts/sam-event';
import { createJob, getJob, type BulkJob } from '../../shared/domain/bulk/bulk-job.repository';
import type { AppMetric } from '../../shared/kernel/metrics';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { captureLogs } from '../support/capture-logs';
import { stack } from '../support/stack';

/**
 * The EMF lines (CloudWatch embedded metric format) one request writes, per resource group, through
 * the same handlers and local stack as every other test: what CloudWatch would turn into metrics.
 */

const context = { awsRequestId: 'metrics-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

interface EmfRecord {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  service: string;
  requestId?: string;
  [metric: string]: unknown;
}

const emfOf = (lines: string[]): EmfRecord[] =>
  lines.flatMap((line) => {
    try {
      const record = JSON.parse(line) as Partial<EmfRecord>;
      return record._aws ? [record as EmfRecord] : [];
    } catch {
      return [];
    }
  });

/** The one EMF line, its namespace and dimension, and the metric's value. */
function expectMetric(records: EmfRecord[], group: ResourceGroup, metric: AppMetric, requestId?: string): void {
  expect(records).toHaveLength(1);
  const [record] = records as [EmfRecord];
  const [directive] = record._aws.CloudWatchMetrics;
  expect(directive!.Namespace).toBe(process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'ManagementApi');
  expect(directive!.Dimensions).toEqual([['service']]);
  expect(directive!.Metrics).toContainEqual({ Name: metric, Unit: 'Count' });
  expect(record.service).toBe(group);
  expect(record[metric]).toBe(1);
  if (requestId) expect(record.requestId).toBe(requestId);
}

/** One route per group whose success counts a metric, and the metric. */
const httpCases: [ResourceGroup, string, AppMetric][] = [
  ['auth', 'auth.token', 'TokensGranted'],
  ['users', 'users.create', 'UsersCreated'],
  ['supervisors', 'supervisors.update', 'SupervisorsUpdated'],
  ['agents', 'agents.create', 'AgentsCreated'],
  ['configurations', 'configurations.save', 'ConfigurationsSaved'],
  ['bulk', 'bulk.upload', 'BulkJobsAccepted'],
];

test.each(httpCases)('%s: %s writes one EMF line with %s, its service and the request id', async (group, id, metric) => {
  const { event } = await fillEvent(id, localStack(process.env.TEST_STACK_DIR!));
  const { handler } = (await import(`../../functions/${group}/handler`)) as {
    handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
  };
  let status = 0;
  const lines = await captureLogs(async () => {
    status = (await handler(event as unknown as APIGatewayProxyEventV2, context)).statusCode ?? 0;
  });
  expect(status).toBeGreaterThanOrEqual(200);
  expect(status).toBeLessThan(300);
  const records = emfOf(lines);
  // users.create queues the welcome e-mail: the mail function sends it (and counts MailsSent), not this one.
  if (group === 'users') expect(records[0]?.MailsSent).toBeUndefined();
  expectMetric(records, group, metric, (event as { headers: Record<string, string> }).headers['x-request-id']);
});

test('bulk-worker: settling a failed upload writes one EMF line with BulkJobsFailed', async () => {
  const org = stack().orgs[0]!;
  const job: BulkJob = {
    jobId: randomUUID(),
    orgUuid: org.uuid,
    requestedBy: 'metrics-test',
    language: 'en',
    dryRun: true,
    status: 'queued',
    counts: { rows: 0, created: 0, failed: 0 },
    progress: { processed: 0, total: 0 },
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  };
  // No upload object: the stack's own worker never starts on this job.
  await createJob(job);
  const s3Event = { Records: [{ s3: { bucket: { name: 'bulk' }, object: { key: `uploads/${org.uuid}/${job.jobId}.csv` } } }] };
  const record = {
    requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
    requestPayload: s3Event,
    responsePayload: { errorType: 'Sandbox.Timedout' },
  };
  const { handler } = await import('../../functions/bulk-worker/handler');
  let answer: unknown;
  const lines = await captureLogs(async () => {
    answer = await handler({ Records: [{ messageId: 'm-1', body: JSON.stringify(record) }] } as unknown as SQSEvent);
  });
  expect(answer).toEqual({ batchItemFailures: [] });
  expect(await getJob(org.uuid, job.jobId)).toMatchObject({ status: 'failed', failure: { retryable: true } });
  expectMetric(emfOf(lines), 'bulk-worker', 'BulkJobsFailed');
});
