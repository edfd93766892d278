import type { ResourceGroup } from '../../../shared/edge/api/routes';

/** An entry of a reviewed allow-list (unexercised grants, defaults meant): the functions it excuses, and why. */
export interface Excused { functions: readonly ResourceGroup[] | 'all'; reason: string }

export const excuses = (entry: Excused, group: ResourceGroup): boolean => entry.functions === 'all' || entry.functions.includes(group);

/** Actions a role grants that no integration test exercises, each with the reason it stays (checked by test/support/local-report-checks.ts). */
export type UnexercisedGrant = Excused & { action: string };

/** The allow-list entry that excuses `action` of `group` being granted and never exercised. */
export function allowListed(allowList: readonly UnexercisedGrant[], group: ResourceGroup, action: string): UnexercisedGrant | undefined {
  return allowList.find((entry) => excuses(entry, group) && entry.action.toLowerCase() === action.toLowerCase());
}

const TABLE_GRANT =
  'bindTable (infra/cloud/data-table.ts) grants every function the same item actions on the table, and this one ' +
  'made no such call in the run; per-function table actions are least-privilege work left for later';

/** One entry per action, the same functions and reason (the actions one grant or one event source mapping brings). */
const eachOf = (actions: string[], functions: Excused['functions'], reason: string): UnexercisedGrant[] =>
  actions.map((action) => ({ action, functions, reason }));

const LOCAL_SIGNING_KEY =
  'locally the signing key is a file (SIGNING_KEY=file:…), so no KMS call is made; test/unit/signer.test.ts covers the KMS signer';

export const unexercisedGrants: readonly UnexercisedGrant[] = [
  ...eachOf(['logs:CreateLogStream', 'logs:PutLogEvents'], 'all', "Lambda's runtime writes the function's logs with its role; the function's code never calls CloudWatch Logs"),
  ...eachOf(
    ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    'all',
    'active tracing: Lambda sends the trace segments and the telemetry, not the function code; the local stack has no X-Ray',
  ),
  { action: 'kms:GetPublicKey', functions: 'all', reason: LOCAL_SIGNING_KEY },
  { action: 'kms:Sign', functions: ['auth'], reason: LOCAL_SIGNING_KEY },
  { action: 'dynamodb:DeleteItem', functions: ['supervisors', 'configurations', 'bulk-worker', 'mail'], reason: TABLE_GRANT },
  { action: 'dynamodb:PutItem', functions: ['mail'], reason: TABLE_GRANT },
  { action: 'dynamodb:UpdateItem', functions: ['supervisors'], reason: TABLE_GRANT },
  { action: 'dynamodb:Query', functions: ['bulk-worker', 'mail'], reason: TABLE_GRANT },
  { action: 'dynamodb:BatchGetItem', functions: ['publisher', 'mail'], reason: TABLE_GRANT },
  {
    action: 'cognito-idp:AdminSetUserPassword',
    functions: ['scim'],
    reason:
      'SCIM creates users with generated passwords, given with AdminCreateUser; the password is set apart only when a ' +
      "retried creation adopts the account an earlier attempt made (shared/adapters/identity/identity-provider.ts), which no test provokes",
  },
  {
    action: 'cognito-idp:AdminEnableUser',
    functions: ['bulk'],
    reason:
      "bulk-delete's rollback only (deleteUser re-enables the account when writing the deleted user fails), which no " +
      'test provokes through the stack; test/integration/local-iam.test.ts proves the grant',
  },
  ...eachOf(
    ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
    ['publisher'],
    "the table stream's event source mapping: Lambda's pollers read the stream with the publisher function's role; " +
    "the function's code never calls DynamoDB Streams (locally infra/local/stream-poller.ts reads DynamoDB Local's stream)",
  ),
  ...eachOf(
    ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    ['publisher'],
    "the change stream's on-failure destination: Lambda's service sends a failed batch's record to the dead-letter queue " +
    "with the publisher function's role; the function's code never calls SQS (locally infra/local/stream-poller.ts sends it, outside the function)",
  ),
  ...eachOf(
    ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    ['bulk-worker', 'mail'],
    "the event source mappings of the failure queue (bulk-worker) and the mail queue (mail): Lambda's pollers receive and delete " +
    "messages with the function's role; its code never calls SQS (locally infra/local/queue-poller.ts does, outside the function)",
  ),
  ...eachOf(
    ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    ['users', 'scim'],
    "CDK's grantSendMessages on the mail queue grants them beside sqs:SendMessage; the functions only send " +
    '(SendMessageBatch with the URL from MAIL_QUEUE_URL)',
  ),
];
