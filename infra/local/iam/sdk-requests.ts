/**
 * What IAM authorizes for one AWS SDK call: the actions and resources AWS checks, which are not
 * always the operation's name (S3 HeadObject is s3:GetObject; a DynamoDB transaction is checked per
 * item as PutItem, UpdateItem, DeleteItem or ConditionCheckItem on that item's table).
 */

/** One authorization AWS makes for a call; a call is allowed only when all of its requests are. */
export interface IamRequest {
  action: string;
  resource: string;
}

export interface SdkCall {
  /** The SDK's names, from the middleware context: `DynamoDBClient`, `PutItemCommand`. */
  clientName: string;
  commandName: string;
  input: Record<string, unknown>;
}

export interface ArnScope {
  account: string;
  region: string;
}

export class UnmappedCallError extends Error {
  override readonly name = 'UnmappedCallError';
}

const PARTITION = 'aws';

const operationOf = (commandName: string) => commandName.replace(/Command$/, '');
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];

function dynamodb(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  // TableName may be a table's ARN (SDK calls accept either).
  const table = (name: unknown) => {
    const value = text(name);
    if (!value) return undefined;
    return value.startsWith('arn:') ? value : `arn:${PARTITION}:dynamodb:${region}:${account}:table/${value}`;
  };
  const on = (action: string, resource: string | undefined) => (resource ? [{ action: `dynamodb:${action}`, resource }] : undefined);
  switch (operation) {
    case 'BatchGetItem':
    case 'BatchWriteItem': {
      const tables = Object.keys((input.RequestItems as Record<string, unknown> | undefined) ?? {});
      return tables.length > 0 ? tables.map((name) => ({ action: `dynamodb:${operation}`, resource: table(name)! })) : undefined;
    }
    case 'TransactGetItems':
    case 'TransactWriteItems': {
      const actions: Record<string, string> =
        operation === 'TransactGetItems'
          ? { Get: 'GetItem' }
          : { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
      const requests = records(input.TransactItems).flatMap((item) =>
        Object.entries(actions)
          .filter(([kind]) => item[kind])
          .map(([kind, action]) => ({ action: `dynamodb:${action}`, resource: table((item[kind] as Record<string, unknown>).TableName) })),
      );
      if (requests.length === 0 || requests.some((request) => !request.resource)) return undefined;
      const unique = new Map(requests.map((request) => [`${request.action} ${request.resource}`, request as IamRequest]));
      return [...unique.values()];
    }
    case 'Query':
    case 'Scan': {
      const base = table(input.TableName);
      const index = text(input.IndexName);
      return on(operation, base && index ? `${base}/index/${index}` : base);
    }
    case 'ExecuteStatement':
    case 'BatchExecuteStatement':
    case 'ExecuteTransaction':
      // PartiQL is authorized as PartiQLSelect, PartiQLInsert… by statement: not used, not mapped.
      return undefined;
    default:
      return on(operation, table(input.TableName));
  }
}

function s3(operation: string, input: Record<string, unknown>): IamRequest[] | undefined {
  const bucket = text(input.Bucket);
  if (!bucket) return undefined;
  const object = (key: unknown) => `arn:${PARTITION}:s3:::${bucket}/${String(key)}`;
  const onObject = (action: string) => (text(input.Key) ? [{ action: `s3:${action}`, resource: object(input.Key) }] : undefined);
  const onBucket = (action: string) => [{ action: `s3:${action}`, resource: `arn:${PARTITION}:s3:::${bucket}` }];
  switch (operation) {
    case 'GetObject':
    case 'HeadObject':
      return onObject(input.VersionId ? 'GetObjectVersion' : 'GetObject');
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return onObject('PutObject');
    case 'CopyObject':
    case 'UploadPartCopy': {
      const source = text(input.CopySource);
      const target = onObject('PutObject');
      if (!source || !target) return undefined;
      const [path] = decodeURIComponent(source).replace(/^\//, '').split('?');
      return [...target, { action: 's3:GetObject', resource: `arn:${PARTITION}:s3:::${path}` }];
    }
    case 'AbortMultipartUpload':
      return onObject('AbortMultipartUpload');
    case 'ListParts':
      return onObject('ListMultipartUploadParts');
    case 'DeleteObject':
      return onObject(input.VersionId ? 'DeleteObjectVersion' : 'DeleteObject');
    case 'DeleteObjects': {
      const keys = records((input.Delete as Record<string, unknown> | undefined)?.Objects).map((item) => item.Key);
      return keys.length > 0 ? keys.map((key) => ({ action: 's3:DeleteObject', resource: object(key) })) : undefined;
    }
    case 'GetObjectTagging':
    case 'PutObjectTagging':
    case 'DeleteObjectTagging':
    case 'GetObjectAttributes':
      return onObject(operation);
    case 'ListObjects':
    case 'ListObjectsV2':
    case 'HeadBucket':
      return onBucket('ListBucket');
    case 'ListObjectVersions':
      return onBucket('ListBucketVersions');
    case 'ListMultipartUploads':
      return onBucket('ListBucketMultipartUploads');
    default:
      return undefined;
  }
}

function ses(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  // GetAccount (the send quota) takes no resource: IAM authorizes it on "*".
  if (operation === 'GetAccount') return [{ action: 'ses:GetAccount', resource: '*' }];
  if (operation !== 'SendEmail' && operation !== 'SendBulkEmail') return undefined;
  const arn = (kind: string, name: string) => `arn:${PARTITION}:ses:${region}:${account}:${kind}/${name}`;
  const from = text(input.FromEmailAddress);
  const address = from ? (/<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim()) : undefined;
  const identity = text(input.FromEmailAddressIdentityArn) ?? (address ? arn('identity', address) : undefined);
  if (!identity) return undefined;
  const configurationSet = text(input.ConfigurationSetName);
  const action = `ses:${operation}`;
  return [{ action, resource: identity }, ...(configurationSet ? [{ action, resource: arn('configuration-set', configurationSet) }] : [])];
}

function cognito(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  const pool = text(input.UserPoolId);
  return pool ? [{ action: `cognito-idp:${operation}`, resource: `arn:${PARTITION}:cognito-idp:${region}:${account}:userpool/${pool}` }] : undefined;
}

function kms(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  const key = text(input.KeyId);
  // An alias is authorized on the key it names, which only KMS knows.
  if (!key || key.startsWith('alias/') || key.includes(':alias/')) return undefined;
  return [{ action: `kms:${operation}`, resource: key.startsWith('arn:') ? key : `arn:${PARTITION}:kms:${region}:${account}:key/${key}` }];
}

function eventBridge(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  if (operation !== 'PutEvents') return undefined;
  // An entry without a bus goes to the account's default bus; PutEvents is authorized per bus.
  const buses = new Set(records(input.Entries).map((entry) => text(entry.EventBusName) ?? 'default'));
  const arn = (bus: string) => (bus.startsWith('arn:') ? bus : `arn:${PARTITION}:events:${region}:${account}:event-bus/${bus}`);
  return [...buses].map((bus) => ({ action: 'events:PutEvents', resource: arn(bus) }));
}

function sqs(operation: string, input: Record<string, unknown>, { account, region }: ArnScope): IamRequest[] | undefined {
  // QueueUrl is `<endpoint>/<account>/<name>`; SQS authorizes each call on the queue's ARN.
  const name = text(input.QueueUrl)?.split('/').pop();
  if (!name) return undefined;
  const actions: Record<string, string> = {
    SendMessage: 'sqs:SendMessage',
    SendMessageBatch: 'sqs:SendMessage',
    ReceiveMessage: 'sqs:ReceiveMessage',
    DeleteMessage: 'sqs:DeleteMessage',
    DeleteMessageBatch: 'sqs:DeleteMessage',
    ChangeMessageVisibility: 'sqs:ChangeMessageVisibility',
    ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
    GetQueueAttributes: 'sqs:GetQueueAttributes',
  };
  const action = actions[operation];
  return action ? [{ action, resource: `arn:${PARTITION}:sqs:${region}:${account}:${name}` }] : undefined;
}

const services: Record<string, (operation: string, input: Record<string, unknown>, scope: ArnScope) => IamRequest[] | undefined> = {
  DynamoDBClient: dynamodb,
  S3Client: s3,
  SESv2Client: ses,
  CognitoIdentityProviderClient: cognito,
  KMSClient: kms,
  EventBridgeClient: eventBridge,
  SQSClient: sqs,
};

/** The IAM requests AWS makes for one SDK call; throws UnmappedCallError for a call not mapped here. */
export function iamRequestsFor(call: SdkCall, scope: ArnScope): IamRequest[] {
  const operation = operationOf(call.commandName);
  const requests = services[call.clientName]?.(operation, call.input, scope);
  if (!requests || requests.length === 0) {
    throw new UnmappedCallError(
      `Local IAM does not know which IAM actions ${call.clientName.replace(/Client$/, '')} ${operation} needs with this input: ` +
        'add it to infra/local/iam/sdk-requests.ts',
    );
  }
  return requests;
}
