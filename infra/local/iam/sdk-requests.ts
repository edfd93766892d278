import { localArn } from '../kernel/local-account';
import { emailAddressOf } from '../template/template-policies';

/**
 * What IAM authorizes for one AWS SDK call: the actions and resources AWS checks, which are not
 * always the operation's name (S3 HeadObject is s3:GetObject; a DynamoDB transaction is checked per
 * item as PutItem, UpdateItem, DeleteItem or ConditionCheckItem on that item's table).
 */

/** One authorization AWS makes for a call; a call is allowed only when all of its requests are. */
export interface IamRequest { action: string; resource: string }

export interface SdkCall {
  /** The SDK's names, from the middleware context: `DynamoDBClient`, `PutItemCommand`. */
  clientName: string;
  commandName: string;
  input: Record<string, unknown>;
}

export class UnmappedCallError extends Error {
  override readonly name = 'UnmappedCallError';
}

type Input = Record<string, unknown>;
type Requests = IamRequest[] | undefined;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const records = (value: unknown): Input[] => (Array.isArray(value) ? value.filter((item): item is Input => typeof item === 'object' && item !== null) : []);
/** The local ARN of `<resource><name>` of `service`, or `name` itself when it is an ARN already. */
const arnIn = (service: string, resource: string, name = '') => (name.startsWith('arn:') ? name : localArn(service, `${resource}${name}`));

const DYNAMODB_TRANSACTIONS: Record<string, Record<string, string>> = {
  TransactGetItems: { Get: 'GetItem' },
  TransactWriteItems: { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' },
};

function dynamodb(operation: string, input: Input): Requests {
  // TableName may be a table's ARN (SDK calls accept either).
  const table = (name: unknown) => (text(name) ? arnIn('dynamodb', 'table/', text(name)) : undefined);
  const transaction = DYNAMODB_TRANSACTIONS[operation];
  let requests: { action: string; resource: string | undefined }[];
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    requests = Object.keys((input.RequestItems as Input | undefined) ?? {}).map((name) => ({ action: operation, resource: table(name) }));
  } else if (transaction) {
    requests = records(input.TransactItems).flatMap((item) =>
      Object.entries(transaction)
        .filter(([kind]) => item[kind])
        .map(([kind, action]) => ({ action, resource: table((item[kind] as Input).TableName) })),
    );
  } else {
    // PartiQL names no TableName (IAM authorizes it as PartiQLSelect… by statement): not used, so left unmapped.
    const base = table(input.TableName);
    const index = (operation === 'Query' || operation === 'Scan') && text(input.IndexName);
    requests = [{ action: operation, resource: base && index ? `${base}/index/${index}` : base }];
  }
  if (requests.length === 0 || requests.some((request) => !request.resource)) return undefined;
  return [...new Map(requests.map(({ action, resource }) => [`${action} ${resource}`, { action: `dynamodb:${action}`, resource: resource! }])).values()];
}

/** The S3 operations the functions make (and their multipart forms), by the action IAM checks; any other is unmapped. */
const S3_OBJECT_ACTIONS: Record<string, string> = {
  GetObject: 'GetObject', HeadObject: 'GetObject', DeleteObject: 'DeleteObject',
  PutObject: 'PutObject', CreateMultipartUpload: 'PutObject', UploadPart: 'PutObject', CompleteMultipartUpload: 'PutObject',
};
const S3_BUCKET_ACTIONS: Record<string, string> = { ListObjectsV2: 'ListBucket' };

function s3(operation: string, input: Input): Requests {
  const bucket = text(input.Bucket);
  // A version is authorized as its own action (s3:GetObjectVersion…), which no function needs: unmapped.
  if (!bucket || input.VersionId !== undefined) return undefined;
  const object = (key: unknown) => `arn:aws:s3:::${bucket}/${String(key)}`;
  const onObject = (action: string) => (text(input.Key) ? [{ action: `s3:${action}`, resource: object(input.Key) }] : undefined);
  if (operation === 'CopyObject' || operation === 'UploadPartCopy') {
    const source = text(input.CopySource);
    const target = onObject('PutObject');
    if (!source || !target) return undefined;
    const [path] = decodeURIComponent(source).replace(/^\//, '').split('?');
    return [...target, { action: 's3:GetObject', resource: `arn:aws:s3:::${path}` }];
  }
  if (operation === 'DeleteObjects') {
    const keys = records((input.Delete as Input | undefined)?.Objects).map((item) => item.Key);
    return keys.length > 0 ? keys.map((key) => ({ action: 's3:DeleteObject', resource: object(key) })) : undefined;
  }
  const objectAction = S3_OBJECT_ACTIONS[operation];
  if (objectAction) return onObject(objectAction);
  const bucketAction = S3_BUCKET_ACTIONS[operation];
  return bucketAction ? [{ action: `s3:${bucketAction}`, resource: `arn:aws:s3:::${bucket}` }] : undefined;
}

/** The SQS operations local IAM maps; a batch is authorized as its single operation (`sqs:SendMessage`). */
const SQS_OPERATIONS = ['SendMessage', 'SendMessageBatch', 'ReceiveMessage', 'DeleteMessage', 'DeleteMessageBatch', 'ChangeMessageVisibility', 'ChangeMessageVisibilityBatch', 'GetQueueAttributes'];

const services: Record<string, (operation: string, input: Input) => Requests> = {
  DynamoDBClient: dynamodb,
  S3Client: s3,
  SESv2Client: (operation, input) => {
    // GetAccount (the send quota) takes no resource: IAM authorizes it on "*".
    if (operation === 'GetAccount') return [{ action: 'ses:GetAccount', resource: '*' }];
    const from = text(input.FromEmailAddress);
    const identity = text(input.FromEmailAddressIdentityArn) ?? (from ? arnIn('ses', `identity/${emailAddressOf(from)}`) : undefined);
    if (!identity || (operation !== 'SendEmail' && operation !== 'SendBulkEmail')) return undefined;
    const configurationSet = text(input.ConfigurationSetName);
    const action = `ses:${operation}`;
    return [{ action, resource: identity }, ...(configurationSet ? [{ action, resource: arnIn('ses', `configuration-set/${configurationSet}`) }] : [])];
  },
  CognitoIdentityProviderClient: (operation, input) => {
    const pool = text(input.UserPoolId);
    return pool ? [{ action: `cognito-idp:${operation}`, resource: arnIn('cognito-idp', `userpool/${pool}`) }] : undefined;
  },
  KMSClient: (operation, input) => {
    const key = text(input.KeyId);
    // An alias is authorized on the key it names, which only KMS knows.
    if (!key || key.startsWith('alias/') || key.includes(':alias/')) return undefined;
    return [{ action: `kms:${operation}`, resource: arnIn('kms', 'key/', key) }];
  },
  EventBridgeClient: (operation, input) => {
    if (operation !== 'PutEvents') return undefined;
    // An entry without a bus goes to the account's default bus; PutEvents is authorized per bus.
    const buses = new Set(records(input.Entries).map((entry) => text(entry.EventBusName) ?? 'default'));
    return [...buses].map((bus) => ({ action: 'events:PutEvents', resource: arnIn('events', 'event-bus/', bus) }));
  },
  SQSClient: (operation, input) => {
    // QueueUrl is `<endpoint>/<account>/<name>`; SQS authorizes each call on the queue's ARN.
    const name = text(input.QueueUrl)?.split('/').pop();
    if (!name || !SQS_OPERATIONS.includes(operation)) return undefined;
    return [{ action: `sqs:${operation.replace(/Batch$/, '')}`, resource: arnIn('sqs', name) }];
  },
};

/** The IAM requests AWS makes for one SDK call; throws UnmappedCallError for a call not mapped here. */
export function iamRequestsFor(call: SdkCall): IamRequest[] {
  const operation = call.commandName.replace(/Command$/, '');
  const requests = services[call.clientName]?.(operation, call.input);
  if (!requests || requests.length === 0) {
    throw new UnmappedCallError(
      `Local IAM does not know which IAM actions ${call.clientName.replace(/Client$/, '')} ${operation} needs with this input: ` +
        'add it to infra/local/iam/sdk-requests.ts',
    );
  }
  return requests;
}
