import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, Operation, ProjectionType, StreamViewType, Table, TableEncryption, type CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';
import { alarmAtLeast } from './monitoring';

/** The single table (docs/decisions/one-table.md): generic keys, one GSI, TTL on `ttl`, a stream of new images; alarms on throttles and system errors. */
export class DataTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'PK', type: AttributeType.STRING },
      sortKey: { name: 'SK', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'ttl',
      // The outbox's reader: the `publisher` function publishes each audit event from the stream (change-events.ts).
      stream: StreamViewType.NEW_IMAGE,
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: 'GSI1',
      partitionKey: { name: 'GSI1PK', type: AttributeType.STRING },
      sortKey: { name: 'GSI1SK', type: AttributeType.STRING },
      projectionType: ProjectionType.ALL,
    });

    const period = Duration.minutes(5);
    alarmAtLeast(this, 'ThrottlesAlarm', tableThrottles(this.table, period), 'DynamoDB throttled requests to the table (on-demand: a sudden peak or a hot partition)');
    alarmAtLeast(this, 'SystemErrorsAlarm', tableSystemErrors(this.table, period), 'DynamoDB answered the functions with 500s (its own errors)');
  }
}

/**
 * The operations the code makes (shared/adapters/store/): DynamoDB's throttle and system-error metrics are per
 * operation, and an alarm sums at most 10 metrics, so the list is not every operation there is.
 */
const usedOperations = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.QUERY,
  Operation.BATCH_GET_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/** `ThrottledRequests`, summed over the operations the code makes. */
export const tableThrottles = (table: Table, period: Duration): IMetric =>
  table.metricThrottledRequestsForOperations({ operations: usedOperations, period, label: 'throttled requests' });

/** `SystemErrors`, summed over the operations the code makes. */
export const tableSystemErrors = (table: Table, period: Duration): IMetric =>
  table.metricSystemErrorsForOperations({ operations: usedOperations, period, label: 'system errors' });

/**
 * Item-level actions only: no Scan, no table management, no BatchWriteItem (nothing writes in
 * batches). Transactions need no action of their own: TransactWriteItems is authorized item by item
 * as PutItem, UpdateItem, DeleteItem, and ConditionCheckItem for a condition-only item, which only the
 * functions writing supervisors and agents make (the bot's bundle lease) and so alone are granted.
 *
 * No `dynamodb:LeadingKeys` condition, on purpose. Every function authenticates its caller from the
 * table (the user under `ORG#<org>`, the session under `SESSION#<id>`), and `ORG#<org>` also holds
 * the organization, its environments, bots, users, e-mail claims, directory shards and bulk jobs:
 * the prefixes that would be left out of a function's role (`BOT#` for users and bulk, `REALM#` for
 * all but auth, and so on) guard little, while the boundary that matters, one organization, is
 * runtime data from the caller's token that no role can name. Such a condition would also go
 * unchecked where it could break things: local IAM (infra/local/iam) passes no condition keys, and
 * GSI1 queries bring partition keys of their own (`BOT#…`, `ORG#…#USERS`, `USER#…#SESSIONS`).
 * Tenant isolation is the store's job: shared/adapters/store/keys.ts builds every key from the caller's organization.
 */
const tableActions = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
];

/** What a function that only reads gets: the change feed's, which reads the caller and the feed. */
const readActions = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];

/** Lets the function read and write items of the table and its indexes (only read them with `readOnly`), and sets TABLE_NAME. */
export function bindTable(fn: LambdaFunction, data: DataTable, options: { conditionChecks?: boolean; readOnly?: boolean } = {}): void {
  data.table.grant(fn, ...(options.readOnly ? readActions : tableActions), ...(options.conditionChecks ? ['dynamodb:ConditionCheckItem'] : []));
  fn.addEnvironment(envNames.tableName, data.table.tableName);
  const tableId = Stack.of(data).getLogicalId(data.table.node.defaultChild as CfnTable);
  Validations.of(fn.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
    reason: "The table's own indexes (GSI1 and any later one): queries name the index under the table ARN.",
  });
}
