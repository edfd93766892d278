import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { LOCAL_ACCOUNT_ID } from '../kernel/local-account';
import { parseJson } from '../kernel/parse-json';
import { checkedEntries, checkedMessage, integerIn, list, messageAttributesMd5, messageBytes } from './message-checks';
import { stored, type Queue } from './queue-state';
import * as limits from './sqs-model';
import { invalidParameter, md5, noQueue, queueArn, serviceError, SqsError, missingParameter, type Message, type MessageAttribute, type Request } from './sqs-model';

/**
 * Visibility and redrive: a receive takes a visible message and hides it for the visibility timeout
 * under a new receipt handle; deleting or changing its visibility needs a handle the queue issued; a
 * message received `maxReceiveCount` times moves to the dead-letter queue on the next receive, keeping
 * its id, body and attributes, as a redrive policy moves it.
 */

/** A receipt handle's content: the queue, the message and the receipt. */
const Receipt = z.object({ q: z.string(), m: z.string(), r: z.string() });

const encodeReceipt = (queue: string, message: Message) => Buffer.from(JSON.stringify({ q: queue, m: message.id, r: message.receipt })).toString('base64url');

const decodeReceipt = (handle: string) => Receipt.safeParse(parseJson(Buffer.from(handle, 'base64url').toString('utf8'))).data;

/**
 * Takes up to `max` visible messages of `queue`, each hidden for `visibilitySeconds`, moving those past
 * the redrive policy's count to the dead-letter queue (`queues` finds it by name).
 */
function take(queue: Queue, queues: ReadonlyMap<string, Queue>, max: number, visibilitySeconds: number): Message[] {
  const now = Date.now();
  queue.expire(now);
  const taken: Message[] = [];
  const { deadLetterQueue, maxReceiveCount } = queue.settings;
  for (const message of queue.messages.values()) {
    if (taken.length >= max) break;
    if (message.delayUntil > now || message.visibleAt > now) continue;
    if (deadLetterQueue && maxReceiveCount !== undefined && message.receiveCount >= maxReceiveCount) {
      // Written to the dead-letter queue before it leaves this one: a kill in between repeats it, never loses it.
      queues.get(deadLetterQueue)!.add({ ...stored(message), receiveCount: 0, firstReceivedAt: undefined, delayUntil: 0, deadLetterSourceArn: queue.arn });
      queue.remove(message.id);
      continue;
    }
    message.receiveCount++;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + visibilitySeconds * 1000;
    message.receipt = randomUUID();
    queue.received(message);
    taken.push(message);
  }
  return taken;
}

/** The message a receipt handle names, undefined when it was deleted already; refuses a handle this queue did not issue. */
function messageOf(queue: Queue, handle: unknown): Message | undefined {
  const receipt = typeof handle === 'string' ? decodeReceipt(handle) : undefined;
  if (receipt?.q !== queue.settings.name) throw new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${String(handle)}" is not a valid receipt handle.`);
  return queue.messages.get(receipt.m);
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

function deleteMessage(queue: Queue, handle: unknown): void {
  if (!given(handle)) throw missingParameter('ReceiptHandle');
  const message = messageOf(queue, handle);
  // Deleting a message that is gone already succeeds, as in SQS.
  if (message) queue.remove(message.id);
}

function changeVisibility(queue: Queue, handle: unknown, timeout: unknown): void {
  if (!given(handle)) throw missingParameter('ReceiptHandle');
  if (timeout === undefined || timeout === null) throw missingParameter('VisibilityTimeout');
  const seconds = integerIn(timeout, 'VisibilityTimeout', 0, limits.SQS_MAX_VISIBILITY_TIMEOUT_SECONDS)!;
  const message = messageOf(queue, handle);
  const now = Date.now();
  if (!message) throw invalidParameter(`Value ${String(handle)} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`);
  if (message.visibleAt <= now) throw serviceError('MessageNotInflight', 'The message referred to is not in flight.');
  message.visibleAt = now + seconds * 1000;
  if (seconds === 0) queue.wake();
}

/** The operations of the local SQS, each as SQS answers it in the JSON protocol, or a refusal (`SqsError`). */

const MESSAGE_SYSTEM_ATTRIBUTES = ['ApproximateReceiveCount', 'ApproximateFirstReceiveTimestamp', 'SentTimestamp', 'SenderId', 'DeadLetterQueueSourceArn'];
/** Names SQS knows but the local queues (standard, unencrypted by the caller) never carry. */
const OTHER_SYSTEM_ATTRIBUTES = ['MessageDeduplicationId', 'MessageGroupId', 'SequenceNumber', 'AWSTraceHeader', 'SqsManagedSseEnabled'];

/** An operation by name (`SendMessage`), its parameters, the host the request named, and whether its caller went away. */
export type Operate = (operation: string, request: Request, host: string, cancelled: () => boolean) => Promise<unknown>;

/** The attributes named in `request` (`All` or names) among `known`; an unknown name is refused. */
function wanted(request: Request, names: unknown[], known: readonly string[], others: readonly string[] = []): Set<string> {
  const asked = names.flatMap(list);
  const unknown = asked.find((name) => name !== 'All' && !known.includes(name) && !others.includes(name));
  if (unknown !== undefined) throw new SqsError('InvalidAttributeName', `Unknown Attribute ${unknown}.`);
  return new Set(asked.includes('All') ? known : asked);
}

/** The message attributes a receive asked for by name, `All`, `.*` or `<prefix>.*`. */
function selectedAttributes(message: Message, request: Request): Record<string, MessageAttribute> | undefined {
  const patterns = list(request.MessageAttributeNames);
  const keep = (name: string) =>
    patterns.some((pattern) => pattern === 'All' || pattern === '.*' || pattern === name || (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))));
  const selected = Object.entries(message.attributes ?? {}).filter(([name]) => keep(name));
  return selected.length > 0 ? Object.fromEntries(selected) : undefined;
}

/** Each entry of a batch done by `work`, or listed as failed with SQS's refusal. */
function eachEntry(entries: Request[], work: (entry: Request) => object) {
  const Successful: unknown[] = [];
  const Failed: unknown[] = [];
  for (const entry of entries) {
    try {
      Successful.push({ Id: entry.Id, ...work(entry) });
    } catch (error) {
      if (!(error instanceof SqsError)) throw error;
      Failed.push({ Id: entry.Id, SenderFault: true, Code: error.code, Message: error.message });
    }
  }
  return { Successful, Failed };
}

export function sqsOperations(queues: ReadonlyMap<string, Queue>, closing: () => boolean): Operate {
  /** The queue a QueueUrl names (`…/<account>/<name>`), whatever its host, as SQS reads it. */
  function queueOf(request: Request): Queue {
    const url = request.QueueUrl;
    if (typeof url !== 'string' || url === '') throw missingParameter('QueueUrl');
    const path = URL.parse(url)?.pathname.split('/').filter(Boolean) ?? [];
    const queue = path.length === 2 && path[0] === LOCAL_ACCOUNT_ID ? queues.get(path[1]!) : undefined;
    if (!queue) throw noQueue();
    return queue;
  }

  function send(queue: Queue, entry: Request) {
    const checked = checkedMessage(entry.MessageBody, entry.MessageAttributes, entry.DelaySeconds);
    const now = Date.now();
    const id = randomUUID();
    queue.add({ id, body: checked.body, sentAt: now, delayUntil: now + checked.delaySeconds * 1000, receiveCount: 0, ...(checked.attributes && { attributes: checked.attributes }) });
    return { MessageId: id, MD5OfMessageBody: md5(checked.body), ...(checked.attributes && { MD5OfMessageAttributes: messageAttributesMd5(checked.attributes) }) };
  }

  function sendMessageBatch(request: Request) {
    const queue = queueOf(request);
    const entries = checkedEntries(request, 'SendMessageBatchRequestEntry');
    const total = entries.reduce((sum, entry) => sum + messageBytes(entry.MessageBody, entry.MessageAttributes), 0);
    if (total > limits.SQS_MAX_BATCH_BYTES) {
      throw serviceError('BatchRequestTooLong', `Batch requests cannot be longer than ${limits.SQS_MAX_BATCH_BYTES} bytes. You have sent ${total} bytes.`);
    }
    return eachEntry(entries, (entry) => send(queue, entry));
  }

  async function receiveMessage(request: Request, cancelled: () => boolean) {
    const queue = queueOf(request);
    const max = integerIn(request.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, limits.SQS_MAX_RECEIVE_MESSAGES) ?? 1;
    const waitSeconds = integerIn(request.WaitTimeSeconds, 'WaitTimeSeconds', 0, limits.SQS_MAX_WAIT_SECONDS) ?? 0;
    const visibility =
      integerIn(request.VisibilityTimeout, 'VisibilityTimeout', 0, limits.SQS_MAX_VISIBILITY_TIMEOUT_SECONDS) ?? queue.settings.visibilityTimeoutSeconds;
    // MessageSystemAttributeNames, or the older AttributeNames.
    const system = wanted(request, [request.MessageSystemAttributeNames, request.AttributeNames], MESSAGE_SYSTEM_ATTRIBUTES, OTHER_SYSTEM_ATTRIBUTES);
    const deadline = Date.now() + waitSeconds * 1000;
    const taken = await queue.longPoll(deadline, () => take(queue, queues, max, visibility), () => closing() || cancelled());
    const Messages = taken.map((message) => {
      const values = {
        SenderId: LOCAL_ACCOUNT_ID,
        SentTimestamp: message.sentAt,
        ApproximateReceiveCount: message.receiveCount,
        ApproximateFirstReceiveTimestamp: message.firstReceivedAt,
        DeadLetterQueueSourceArn: message.deadLetterSourceArn,
      };
      const attributes = Object.entries(values).filter(([name, value]) => system.has(name) && value !== undefined);
      const messageAttributes = selectedAttributes(message, request);
      return {
        MessageId: message.id,
        ReceiptHandle: encodeReceipt(queue.settings.name, message),
        MD5OfBody: md5(message.body),
        Body: message.body,
        ...(attributes.length > 0 && { Attributes: Object.fromEntries(attributes.map(([name, value]) => [name, String(value)])) }),
        ...(messageAttributes && { MessageAttributes: messageAttributes, MD5OfMessageAttributes: messageAttributesMd5(messageAttributes) }),
      };
    });
    return Messages.length > 0 ? { Messages } : {};
  }

  function queueAttributes(request: Request) {
    const queue = queueOf(request);
    const counts = queue.counts();
    const { settings } = queue;
    const redrive = settings.deadLetterQueue && { deadLetterTargetArn: queueArn(settings.deadLetterQueue), maxReceiveCount: settings.maxReceiveCount };
    const all: Record<string, string | undefined> = {
      ApproximateNumberOfMessages: String(counts.visible),
      ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
      ApproximateNumberOfMessagesDelayed: String(counts.delayed),
      CreatedTimestamp: String(queue.createdAt),
      DelaySeconds: '0',
      LastModifiedTimestamp: String(queue.createdAt),
      MaximumMessageSize: String(limits.SQS_MAX_MESSAGE_BYTES),
      MessageRetentionPeriod: String(settings.retentionSeconds ?? limits.SQS_DEFAULT_RETENTION_SECONDS),
      QueueArn: queue.arn,
      ReceiveMessageWaitTimeSeconds: '0',
      RedrivePolicy: redrive ? JSON.stringify(redrive) : undefined,
      SqsManagedSseEnabled: 'true',
      VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
    };
    const names = wanted(request, [request.AttributeNames], Object.keys(all));
    const Attributes = Object.fromEntries(Object.entries(all).filter(([name, value]) => names.has(name) && value !== undefined));
    return Object.keys(Attributes).length > 0 ? { Attributes } : {};
  }

  const operations: Record<string, (request: Request, host: string, cancelled: () => boolean) => unknown> = {
    SendMessage: (request) => send(queueOf(request), request),
    SendMessageBatch: sendMessageBatch,
    ReceiveMessage: (request, _host, cancelled) => receiveMessage(request, cancelled),
    DeleteMessage: (request) => (deleteMessage(queueOf(request), request.ReceiptHandle), {}),
    DeleteMessageBatch: (request) => {
      const queue = queueOf(request);
      return eachEntry(checkedEntries(request, 'DeleteMessageBatchRequestEntry'), (entry) => (deleteMessage(queue, entry.ReceiptHandle), {}));
    },
    ChangeMessageVisibility: (request) => (changeVisibility(queueOf(request), request.ReceiptHandle, request.VisibilityTimeout), {}),
    GetQueueUrl: ({ QueueName: name, QueueOwnerAWSAccountId: owner }, host) => {
      if (typeof name !== 'string' || !queues.has(name) || (owner !== undefined && owner !== LOCAL_ACCOUNT_ID)) throw noQueue();
      return { QueueUrl: `http://${host}/${LOCAL_ACCOUNT_ID}/${name}` };
    },
    GetQueueAttributes: queueAttributes,
  };

  return async (operation, request, host, cancelled) => {
    const answer = Object.hasOwn(operations, operation) ? operations[operation]! : undefined;
    if (!answer) {
      throw serviceError(
        'UnsupportedOperation',
        `The local SQS does not implement ${operation || 'this operation'}: it answers ${Object.keys(operations).join(', ')}; its queues are the synthesized template's.`,
      );
    }
    return answer(request, host, cancelled);
  };
}
