import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption, type CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { envNames } from '../../shared/config';

/** The single table (DESIGN.md "Data"): generic keys, one GSI, TTL on `ttl`. */
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
  }
}

/** Item-level actions only: no Scan, no table management. */
const tableActions = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
];

/** Lets the function read and write items of the table and its indexes, and sets TABLE_NAME. */
export function bindTable(fn: LambdaFunction, data: DataTable): void {
  data.table.grant(fn, ...tableActions);
  fn.addEnvironment(envNames.tableName, data.table.tableName);
  const tableId = Stack.of(data).getLogicalId(data.table.node.defaultChild as CfnTable);
  Validations.of(fn.role!).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
    reason: "The table's own indexes (GSI1 and any later one): queries name the index under the table ARN.",
  });
}
