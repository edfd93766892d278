import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, type IMetric, type IWidget, type Metric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { tableSystemErrors, tableThrottles } from './data-table';
import { appMetric } from './monitoring';

export interface OperationsDashboardProps {
  readonly api: HttpApi;
  readonly functions: ReadonlyMap<ResourceGroup, LambdaFunction>;
  readonly table: Table;
  readonly failures: Queue;
  readonly deadLetters: Queue;
  /** The queue e-mails to users wait in for the `mail` function, and its dead-letter queue. */
  readonly mail: { queue: Queue; deadLetters: Queue };
}

const period = Duration.minutes(5);
const sum = { period, statistic: 'Sum' };

/**
 * The on-call engineer's first stop (`<stack>-operations`): the API's golden signals, each resource
 * group's function (traffic, errors, throttles, p50/p99 duration), the bulk pipeline, the mail queue
 * and the table.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const { api, functions, table } = props;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${stackName}-operations`, defaultInterval: Duration.hours(3) });

    const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 8): GraphWidget =>
      new GraphWidget({ title, left, right, width, height: 6 });
    const labelled = (metric: Metric, label: string) => metric.with({ label });

    const rows: IWidget[][] = [
      [new TextWidget({ markdown: `# ${stackName}\nAlarms notify the stack's SNS topic. Application metrics: namespace \`ManagementApi/${stackName}\`, dimension \`service\`.`, width: 24, height: 2 })],
      [
        graph('API requests', [labelled(api.metricCount(sum), 'requests')]),
        graph('API 4xx / 5xx', [labelled(api.metricClientError(sum), '4xx'), labelled(api.metricServerError(sum), '5xx')]),
        graph('API latency (ms)', [
          labelled(api.metricLatency({ period, statistic: 'p50' }), 'p50'),
          labelled(api.metricLatency({ period, statistic: 'p99' }), 'p99'),
          labelled(api.metricIntegrationLatency({ period, statistic: 'p99' }), 'integration p99'),
        ]),
      ],
    ];
    for (const [group, fn] of functions) {
      rows.push([
        graph(`${group}: invocations`, [labelled(fn.metricInvocations(sum), 'invocations')], [], 6),
        graph(`${group}: errors, throttles`, [labelled(fn.metricErrors(sum), 'errors'), labelled(fn.metricThrottles(sum), 'throttles')], [], 6),
        graph(
          `${group}: duration (ms)`,
          [labelled(fn.metricDuration({ period, statistic: 'p50' }), 'p50'), labelled(fn.metricDuration({ period, statistic: 'p99' }), 'p99')],
          [],
          6,
        ),
        graph(`${group}: identity provider throttled`, [labelled(appMetric(this, 'IdentityProviderThrottled', group), 'IdentityProviderThrottled')], [], 6),
      ]);
    }
    const worker = functions.get('bulk-worker')!;
    const depth = (queue: Queue, label: string) =>
      labelled(queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }), label);
    rows.push(
      [new TextWidget({ markdown: '## Bulk pipeline and mail', width: 24, height: 1 })],
      [
        graph('Bulk worker', [labelled(worker.metricInvocations(sum), 'invocations'), labelled(worker.metricErrors(sum), 'errors')], [
          labelled(worker.metricDuration({ period, statistic: 'p99' }), 'duration p99 (ms)'),
        ]),
        graph('Bulk failures', [
          labelled(worker.metric('AsyncEventsDropped', sum), 'async events dropped'),
          labelled(worker.metric('DestinationDeliveryFailures', sum), 'destination delivery failures'),
          labelled(appMetric(this, 'BulkJobsFailed', 'bulk-worker'), 'jobs failed'),
          depth(props.failures, 'failure queue'),
          depth(props.deadLetters, 'dead letters'),
        ]),
        graph('Bulk rows', [labelled(appMetric(this, 'BulkRowsCreated', 'bulk-worker'), 'created'), labelled(appMetric(this, 'BulkRowsFailed', 'bulk-worker'), 'failed')]),
      ],
      [
        graph(
          'Mail',
          [
            // The mail function sends every e-mail; the others only queue them, counting those they could not.
            labelled(appMetric(this, 'MailsSent', 'mail'), 'sent'),
            labelled(appMetric(this, 'MailsFailed', 'mail'), 'failed'),
            labelled(appMetric(this, 'MailsRetried', 'mail'), 'to be delivered again'),
            ...(['users', 'scim', 'bulk-worker'] as const).map((service) => labelled(appMetric(this, 'MailsFailed', service), `not queued (${service})`)),
          ],
          [],
          6,
        ),
        graph(
          'Mail queue',
          [
            depth(props.mail.queue, 'waiting'),
            // Received and not settled: being sent, or handed back (SES's rate, an outage) until their visibility timeout ends.
            labelled(props.mail.queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1), statistic: 'Maximum' }), 'in flight'),
            depth(props.mail.deadLetters, 'dead letters'),
          ],
          [labelled(props.mail.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }), 'oldest waiting (s)')],
          6,
        ),
        graph('Tokens', [labelled(appMetric(this, 'TokensGranted', 'auth'), 'granted'), labelled(appMetric(this, 'TokensRefused', 'auth'), 'refused')], [], 6),
        graph(
          'Users',
          [
            labelled(appMetric(this, 'UsersCreated', 'users'), 'created'),
            labelled(appMetric(this, 'UsersDeleted', 'users'), 'deleted'),
            labelled(appMetric(this, 'UsersReactivated', 'users'), 'reactivated'),
          ],
          [],
          6,
        ),
      ],
      [
        graph('Table: consumed capacity', [
          labelled(table.metricConsumedReadCapacityUnits(sum), 'read units'),
          labelled(table.metricConsumedWriteCapacityUnits(sum), 'write units'),
        ]),
        // One graph each: both sum per-operation metrics whose ids would clash in one graph.
        graph('Table: throttled requests', [tableThrottles(table, period)]),
        graph('Table: system errors', [tableSystemErrors(table, period)]),
      ],
    );
    for (const row of rows) this.dashboard.addWidgets(...row);
  }
}
