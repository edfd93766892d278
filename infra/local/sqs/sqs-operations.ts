import { randomUUID } from 'node:crypto';
import { checkedEntries, checkedMessage, integerIn, list, messageAttributesMd5, messageBytes } from './message-checks';
import { longPoll } from './long-poll';
import type { Queue } from './queue-state';
import {
  LOCAL_ACCOUNT_ID,
  md5,
  noQueue,
  queueArn,
  SQS_DEFAULT_RETENTION_SECONDS,
  SQS_MAX_BATCH_BYTES,
  SQS_MAX_MESSAGE_BYTES,
  SQS_MAX_RECEIVE_MESSAGES,
  SQS_MAX_VISIBILITY_TIMEOUT_SECONDS,
  SQS_MAX_WAIT_SECONDS,
  SqsError,
  type Message,
  type MessageAttribute,
  type Request,
  type StoredMessage,
} from './sqs-model';
import { changeVisibility, deleteMessage, encodeReceipt, take } from './visibility';

/** The operations of the local SQS, each as SQS answers it in the JSON protocol, or a refusal (`SqsError`). */

const QUEUE_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'DelaySeconds',
  'LastModifiedTimestamp',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'QueueArn',
  'ReceiveMessageWaitTimeSeconds',
  'RedrivePolicy',
  'SqsManagedSseEnabled',
  'VisibilityTimeout',
] as const;
const MESSAGE_SYSTEM_ATTRIBUTES = ['ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp', 'SentTimestamp', 'SenderId', 'DeadLetterQueueSourceArn'];

/** An operation by name (`SendMessage`), its parameters, the host the request named, and whether its caller went away. */
export type Operate = (operation: string, request: Request, host: string, cancelled: () => boolean) => Promise<unknown>;

export function sqsOperations(queues: ReadonlyMap<string, Queue>, closing: () => boolean): Operate {
  /** The queue a QueueUrl names (`…/<account>/<name>`), whatever its host, as SQS reads it. */
  function queueOf(request: Request): Queue {
    const url = request.QueueUrl;
    if (typeof url !== 'string' || url === '') throw new SqsError('MissingParameter', 'The request must contain the parameter QueueUrl.');
    let path: string[];
    try {
      path = new URL(url).pathname.split('/').filter(Boolean);
    } catch {
      throw noQueue();
    }
    const queue = path.length === 2 && path[0] === LOCAL_ACCOUNT_ID ? queues.get(path[1]!) : undefined;
    if (!queue) throw noQueue();
    return queue;
  }

  function accept(queue: Queue, checked: ReturnType<typeof checkedMessage>) {
    const now = Date.now();
    const message: StoredMessage = { id: randomUUID(), body: checked.body, sentAt: now, delayUntil: now + checked.delaySeconds * 1000, receiveCount: 0 };
    if (checked.attributes) message.attributes = checked.attributes;
    queue.add(message);
    return {
      MessageId: message.id,
      MD5OfMessageBody: md5(message.body),
      ...(checked.attributes ? { MD5OfMessageAttributes: messageAttributesMd5(checked.attributes) } : {}),
    };
  }

  const failure = (id: string, error: unknown) => {
    if (!(error instanceof SqsError)) throw error;
    return { Id: id, SenderFault: true, Code: error.code, Message: error.message };
  };

  function sendMessageBatch(request: Request) {
    const queue = queueOf(request);
    const entries = checkedEntries(request, 'SendMessageBatchRequestEntry');
    const total = entries.reduce((sum, entry) => sum + messageBytes(entry.MessageBody, entry.MessageAttributes), 0);
    if (total > SQS_MAX_BATCH_BYTES) {
      throw new SqsError('BatchRequestTooLong', `Batch requests cannot be longer than ${SQS_MAX_BATCH_BYTES} bytes. You have sent ${total} bytes.`, 'AWS.SimpleQueueService.BatchRequestTooLong');
    }
    const Successful: unknown[] = [];
    const Failed: unknown[] = [];
    for (const entry of entries) {
      try {
        Successful.push({ Id: entry.Id, ...accept(queue, checkedMessage(entry.MessageBody, entry.MessageAttributes, entry.DelaySeconds)) });
      } catch (error) {
        Failed.push(failure(entry.Id as string, error));
      }
    }
    return { Successful, Failed };
  }

  /** The system attributes a receive asked for (`All` or names), from MessageSystemAttributeNames or the older AttributeNames. */
  function requestedSystemAttributes(request: Request): Set<string> {
    const names = [...list(request.MessageSystemAttributeNames), ...list(request.AttributeNames)];
    for (const name of names) {
      if (name !== 'All' && !MESSAGE_SYSTEM_ATTRIBUTES.includes(name) && !['MessageDeduplicationId', 'MessageGroupId', 'SequenceNumber', 'AWSTraceHeader', 'SqsManagedSseEnabled'].includes(name)) {
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      }
    }
    return new Set(names.includes('All') ? MESSAGE_SYSTEM_ATTRIBUTES : names);
  }

  function selectedAttributes(message: Message, request: Request): Record<string, MessageAttribute> | undefined {
    const wanted = list(request.MessageAttributeNames);
    if (!message.attributes || wanted.length === 0) return undefined;
    const keep = (name: string) =>
      wanted.some((pattern) => pattern === 'All' || pattern === '.*' || pattern === name || (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))));
    const selected = Object.fromEntries(Object.entries(message.attributes).filter(([name]) => keep(name)));
    return Object.keys(selected).length > 0 ? selected : undefined;
  }

  async function receiveMessage(request: Request, cancelled: () => boolean) {
    const queue = queueOf(request);
    const max = integerIn(request.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, SQS_MAX_RECEIVE_MESSAGES) ?? 1;
    const waitSeconds = integerIn(request.WaitTimeSeconds, 'WaitTimeSeconds', 0, SQS_MAX_WAIT_SECONDS) ?? 0;
    const visibility = integerIn(request.VisibilityTimeout, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS) ?? queue.settings.visibilityTimeoutSeconds;
    const system = requestedSystemAttributes(request);
    const deadline = Date.now() + waitSeconds * 1000;
    const taken = await longPoll(queue.waiters, deadline, () => take(queue, queues, max, visibility), () => closing() || cancelled());
    const Messages = taken.map((message) => {
      const attributes: Record<string, string> = {};
      const put = (name: string, value: string | number | undefined) => {
        if (system.has(name) && value !== undefined) attributes[name] = String(value);
      };
      put('SenderId', LOCAL_ACCOUNT_ID);
      put('SentTimestamp', message.sentAt);
      put('ApproximateReceiveCount', message.receiveCount);
      put('ApproximateFirstReceiveTimestamp', message.firstReceivedAt);
      put('DeadLetterQueueSourceArn', message.deadLetterSourceArn);
      const messageAttributes = selectedAttributes(message, request);
      return {
        MessageId: message.id,
        ReceiptHandle: encodeReceipt(queue.settings.name, message),
        MD5OfBody: md5(message.body),
        Body: message.body,
        ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
        ...(messageAttributes ? { MessageAttributes: messageAttributes, MD5OfMessageAttributes: messageAttributesMd5(messageAttributes) } : {}),
      };
    });
    return Messages.length > 0 ? { Messages } : {};
  }

  function queueAttributes(queue: Queue, request: Request) {
    const names = list(request.AttributeNames);
    for (const name of names) {
      if (name !== 'All' && !(QUEUE_ATTRIBUTES as readonly string[]).includes(name)) throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
    }
    const wanted = new Set<string>(names.includes('All') ? QUEUE_ATTRIBUTES : names);
    const counts = queue.counts();
    const { settings } = queue;
    const all: Record<string, string | undefined> = {
      ApproximateNumberOfMessages: String(counts.visible),
      ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
      ApproximateNumberOfMessagesDelayed: String(counts.delayed),
      CreatedTimestamp: String(queue.createdAt),
      DelaySeconds: '0',
      LastModifiedTimestamp: String(queue.createdAt),
      MaximumMessageSize: String(SQS_MAX_MESSAGE_BYTES),
      MessageRetentionPeriod: String(settings.retentionSeconds ?? SQS_DEFAULT_RETENTION_SECONDS),
      QueueArn: queue.arn,
      ReceiveMessageWaitTimeSeconds: '0',
      RedrivePolicy: settings.deadLetterQueue ? JSON.stringify({ deadLetterTargetArn: queueArn(settings.deadLetterQueue), maxReceiveCount: settings.maxReceiveCount }) : undefined,
      SqsManagedSseEnabled: 'true',
      VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
    };
    const Attributes = Object.fromEntries(Object.entries(all).filter(([name, value]) => wanted.has(name) && value !== undefined));
    return Object.keys(Attributes).length > 0 ? { Attributes } : {};
  }

  async function operate(operation: string, request: Request, host: string, cancelled: () => boolean): Promise<unknown> {
    switch (operation) {
      case 'SendMessage':
        return accept(queueOf(request), checkedMessage(request.MessageBody, request.MessageAttributes, request.DelaySeconds));
      case 'SendMessageBatch':
        return sendMessageBatch(request);
      case 'ReceiveMessage':
        return receiveMessage(request, cancelled);
      case 'DeleteMessage':
        deleteMessage(queueOf(request), request.ReceiptHandle);
        return {};
      case 'DeleteMessageBatch': {
        const queue = queueOf(request);
        const entries = checkedEntries(request, 'DeleteMessageBatchRequestEntry');
        const Successful: unknown[] = [];
        const Failed: unknown[] = [];
        for (const entry of entries) {
          try {
            deleteMessage(queue, entry.ReceiptHandle);
            Successful.push({ Id: entry.Id });
          } catch (error) {
            Failed.push(failure(entry.Id as string, error));
          }
        }
        return { Successful, Failed };
      }
      case 'ChangeMessageVisibility':
        changeVisibility(queueOf(request), request.ReceiptHandle, request.VisibilityTimeout);
        return {};
      case 'GetQueueUrl': {
        const name = request.QueueName;
        if (typeof name !== 'string' || !queues.has(name)) throw noQueue();
        if (request.QueueOwnerAWSAccountId !== undefined && request.QueueOwnerAWSAccountId !== LOCAL_ACCOUNT_ID) throw noQueue();
        return { QueueUrl: `http://${host}/${LOCAL_ACCOUNT_ID}/${name}` };
      }
      case 'GetQueueAttributes':
        return queueAttributes(queueOf(request), request);
      default:
        throw new SqsError(
          'UnsupportedOperation',
          `The local SQS does not implement ${operation || 'this operation'}: it answers SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch), ChangeMessageVisibility, GetQueueUrl and GetQueueAttributes; its queues are the synthesized template's.`,
          'AWS.SimpleQueueService.UnsupportedOperation',
        );
    }
  }

  return operate;
}
