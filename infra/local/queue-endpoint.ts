import { createHash, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { readBody } from './gateway-answers';

/**
 * A local Amazon SQS (standard queues) answering the AWS JSON 1.0 protocol as `@aws-sdk/client-sqs`
 * speaks it: SendMessage(Batch), ReceiveMessage with long polling, DeleteMessage(Batch),
 * ChangeMessageVisibility, GetQueueUrl and GetQueueAttributes, with SQS's limits and error shapes.
 * The queues are fixed when the endpoint is created (the stack's configuration plays CloudFormation's
 * part); a queue with a dead-letter queue moves a message there on the receive after its
 * `maxReceiveCount`th, as a redrive policy does. Each queue keeps an append-only journal of JSON lines
 * in `dir`, written before the answer, so a message once accepted survives a kill of the process;
 * in-flight messages are visible again after a restart. `GET /_local/queues/<name>/settled` waits
 * until the messages sent so far are handled: a local-stack seam only, no AWS counterpart.
 */

/** SQS's maximum message size (body and attributes), 1 MiB since 2025; also the most a batch may carry. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;
export const SQS_MAX_BATCH_BYTES = 1_048_576;
export const SQS_MAX_BATCH_ENTRIES = 10;
export const SQS_MAX_RECEIVE_MESSAGES = 10;
export const SQS_MAX_WAIT_SECONDS = 20;
export const SQS_MAX_DELAY_SECONDS = 900;
export const SQS_MAX_VISIBILITY_TIMEOUT_SECONDS = 43_200;
export const SQS_MAX_MESSAGE_ATTRIBUTES = 10;
export const SQS_DEFAULT_RETENTION_SECONDS = 345_600;
export const SQS_RETENTION_SECONDS_RANGE = [60, 1_209_600] as const;
export const SQS_MAX_RECEIVE_COUNT = 1000;

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_REGION = 'us-east-1';

export interface LocalQueueSettings {
  name: string;
  visibilityTimeoutSeconds: number;
  /** With `deadLetterQueue`: a message received this many times goes there on its next receive. */
  maxReceiveCount?: number;
  /** The name of another queue of the same endpoint. */
  deadLetterQueue?: string;
  retentionSeconds?: number;
}

export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

export interface LocalQueues {
  server: Server;
  /** The queue's URL as SQS names it, on the endpoint listening at `baseUrl` (`http://127.0.0.1:<port>`). */
  queueUrl(name: string, baseUrl: string): string;
  counts(name: string): QueueCounts;
  /** True once every message sent to `name` before the call is deleted or moved to the dead-letter queue; false at the timeout. */
  settled(name: string, timeoutMs: number): Promise<boolean>;
  /** Stops the server, answering pending long polls with no messages. */
  close(): Promise<void>;
}

export const queueArn = (name: string) => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${name}`;

interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  /** Base64, as the JSON protocol carries blobs. */
  BinaryValue?: string;
}

interface StoredMessage {
  id: string;
  body: string;
  attributes?: Record<string, MessageAttribute>;
  sentAt: number;
  /** Not visible before this time (DelaySeconds). */
  delayUntil: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** The queue the message was moved from by its redrive policy. */
  deadLetterSourceArn?: string;
}

interface Message extends StoredMessage {
  /** In flight until this time (memory only: a restart makes every message visible again). */
  visibleAt: number;
  /** The latest receipt's token; older receipt handles still delete the message. */
  receipt?: string;
}

type JournalLine =
  | { op: 'send'; message: StoredMessage }
  | { op: 'receive'; id: string; receiveCount: number; firstReceivedAt: number }
  | { op: 'delete'; id: string };

/** A refusal, as SQS answers it in the JSON protocol. */
class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** What the `x-amzn-query-error` header names (the query protocol's code), when it differs from `code`. */
    readonly queryCode = code,
    readonly status = 400,
  ) {
    super(message);
  }
}

const invalidParameter = (message: string) => new SqsError('InvalidParameterValue', message);

// SQS's allowed set (XML's characters) names tab, line feed and carriage return among the control characters.
// eslint-disable-next-line no-control-regex
const ALLOWED_CHARACTERS = /^[\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[\x21-\x7e]+)?$/;
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

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

/** Bytes of a message as SQS counts them against the maximum size: the body and each attribute's name, type and value. */
function messageBytes(body: unknown, attributes: unknown): number {
  const text = (value: unknown) => (typeof value === 'string' ? Buffer.byteLength(value) : 0);
  let bytes = text(body);
  if (typeof attributes !== 'object' || attributes === null) return bytes;
  for (const [name, value] of Object.entries(attributes as Record<string, Partial<MessageAttribute> | null>)) {
    bytes += text(name) + text(value?.DataType);
    bytes += typeof value?.BinaryValue === 'string' ? Buffer.from(value.BinaryValue, 'base64').length : text(value?.StringValue);
  }
  return bytes;
}

/**
 * MD5OfMessageAttributes as SQS computes it: attributes sorted by name, each encoded as its name,
 * data type (each a 4-byte big-endian length then UTF-8), a transport byte (1 string, 2 binary) and
 * its value (length-prefixed), hashed together.
 */
export function messageAttributesMd5(attributes: Record<string, MessageAttribute>): string {
  const parts: Buffer[] = [];
  const prefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const value = attributes[name]!;
    prefixed(Buffer.from(name, 'utf8'));
    prefixed(Buffer.from(value.DataType, 'utf8'));
    const binary = value.BinaryValue !== undefined;
    parts.push(Buffer.from([binary ? 2 : 1]));
    prefixed(binary ? Buffer.from(value.BinaryValue!, 'base64') : Buffer.from(value.StringValue ?? '', 'utf8'));
  }
  return md5(Buffer.concat(parts));
}

/** The attributes checked as SQS checks them, or an SqsError. */
function checkedAttributes(raw: unknown): Record<string, MessageAttribute> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidParameter('MessageAttributes must be a map of attribute names to values.');
  const entries = Object.entries(raw as Record<string, MessageAttribute>);
  if (entries.length === 0) return undefined;
  if (entries.length > SQS_MAX_MESSAGE_ATTRIBUTES) {
    throw invalidParameter(`Number of message attributes [${entries.length}] exceeds the allowed maximum [${SQS_MAX_MESSAGE_ATTRIBUTES}].`);
  }
  const attributes: Record<string, MessageAttribute> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!ATTRIBUTE_NAME.test(name) || name.startsWith('.') || name.endsWith('.') || name.includes('..') || lower.startsWith('aws.') || lower.startsWith('amazon.')) {
      throw invalidParameter(`Message attribute name '${name}' is invalid: use up to 256 letters, digits, '_', '-' and '.', not starting with 'AWS.' or 'Amazon.'.`);
    }
    const type = value?.DataType;
    if (typeof type !== 'string' || !DATA_TYPE.test(type)) {
      throw invalidParameter(`The message attribute '${name}' has an invalid type: use String, Number or Binary, optionally followed by '.' and a label.`);
    }
    const binary = type.startsWith('Binary');
    if (binary ? typeof value.BinaryValue !== 'string' || value.BinaryValue === '' : typeof value.StringValue !== 'string' || value.StringValue === '') {
      throw invalidParameter(`The message attribute '${name}' must contain a non-empty ${binary ? 'binary' : 'string'} value of type '${type}'.`);
    }
    if (!binary && !ALLOWED_CHARACTERS.test(value.StringValue!)) {
      throw new SqsError('InvalidMessageContents', `The message attribute '${name}' contains characters outside the allowed set.`);
    }
    if (type.startsWith('Number') && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value.StringValue!)) {
      throw invalidParameter(`The message attribute '${name}' of type Number must contain a number.`);
    }
    attributes[name] = binary ? { DataType: type, BinaryValue: value.BinaryValue } : { DataType: type, StringValue: value.StringValue };
  }
  return attributes;
}

function integerIn(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(`Value ${String(value)} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}, if provided.`);
  }
  return value;
}

/** The whole request body as text (the endpoint checks its sizes itself, as the service does). */
const bodyText = async (request: IncomingMessage) => (await readBody(request, Number.POSITIVE_INFINITY))!.toString('utf8');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** One queue: its messages in memory, in sending order, and its journal. */
class Queue {
  readonly messages = new Map<string, Message>();
  readonly arn: string;
  readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly file: string;
  private fd = -1;
  private expiredAt = 0;
  /** How many messages left the queue so far, so that a waiter looks at its messages only when some left. */
  removals = 0;
  private waiters = new Set<() => void>();

  constructor(
    readonly settings: LocalQueueSettings,
    dir: string,
  ) {
    this.arn = queueArn(settings.name);
    this.file = join(dir, `${settings.name}.jsonl`);
    this.load();
  }

  /** Replays the journal (a line cut short by a kill is dropped) and rewrites it with the messages still there. */
  private load(): void {
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        let entry: JournalLine;
        try {
          entry = JSON.parse(line) as JournalLine;
        } catch {
          continue;
        }
        if (entry.op === 'send') this.messages.set(entry.message.id, { ...entry.message, visibleAt: 0 });
        else if (entry.op === 'delete') this.messages.delete(entry.id);
        else if (entry.op === 'receive') {
          const message = this.messages.get(entry.id);
          if (message) Object.assign(message, { receiveCount: entry.receiveCount, firstReceivedAt: entry.firstReceivedAt });
        }
      }
    }
    const lines = [...this.messages.values()].map(({ visibleAt: _visibleAt, receipt: _receipt, ...message }) => JSON.stringify({ op: 'send', message }));
    writeFileSync(`${this.file}.tmp`, lines.map((line) => `${line}\n`).join(''));
    renameSync(`${this.file}.tmp`, this.file);
    this.fd = openSync(this.file, 'a');
  }

  private journal(entry: JournalLine): void {
    // A synchronous write, done before the answer: once it returns, the line is the kernel's, and a kill of this process cannot lose it.
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  closeJournal(): void {
    closeSync(this.fd);
  }

  add(message: StoredMessage): void {
    this.journal({ op: 'send', message });
    this.messages.set(message.id, { ...message, visibleAt: 0 });
    this.wake();
  }

  remove(id: string): void {
    if (!this.messages.has(id)) return;
    this.journal({ op: 'delete', id });
    this.messages.delete(id);
    this.removals++;
  }

  /** Drops the messages past the retention period, as SQS does; at most once a second, the retention being a minute at least. */
  expire(now: number): void {
    if (now - this.expiredAt < 1000) return;
    this.expiredAt = now;
    const retentionMs = (this.settings.retentionSeconds ?? SQS_DEFAULT_RETENTION_SECONDS) * 1000;
    for (const message of this.messages.values()) if (message.sentAt + retentionMs <= now) this.remove(message.id);
  }

  counts(now = Date.now()): QueueCounts {
    this.expire(now);
    const counts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of this.messages.values()) {
      if (message.delayUntil > now) counts.delayed++;
      else if (message.visibleAt > now) counts.inFlight++;
      else counts.visible++;
    }
    return counts;
  }

  receipt(message: Message, visibilitySeconds: number, now: number): Message {
    message.receiveCount++;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + visibilitySeconds * 1000;
    message.receipt = randomUUID();
    this.journal({ op: 'receive', id: message.id, receiveCount: message.receiveCount, firstReceivedAt: message.firstReceivedAt });
    return message;
  }

  wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** Resolves on the next message added (or `wake`), or after `ms`. */
  nextChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}

interface ReceiptHandle {
  q: string;
  m: string;
  r: string;
}

const encodeReceipt = (queue: string, message: Message) => Buffer.from(JSON.stringify({ q: queue, m: message.id, r: message.receipt })).toString('base64url');

function decodeReceipt(handle: unknown): ReceiptHandle | undefined {
  if (typeof handle !== 'string' || handle === '') return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(handle, 'base64url').toString('utf8')) as Partial<ReceiptHandle>;
    if (typeof decoded.q === 'string' && typeof decoded.m === 'string' && typeof decoded.r === 'string') return decoded as ReceiptHandle;
  } catch {
    return undefined;
  }
  return undefined;
}

function validateSettings(settings: LocalQueueSettings[]): void {
  const names = new Set(settings.map((queue) => queue.name));
  if (names.size !== settings.length) throw new Error('Local queues: each queue needs its own name.');
  for (const queue of settings) {
    const where = `Local queue "${queue.name}"`;
    if (!QUEUE_NAME.test(queue.name)) throw new Error(`${where}: a queue name has 1 to 80 letters, digits, '-' or '_'.`);
    if (!Number.isInteger(queue.visibilityTimeoutSeconds) || queue.visibilityTimeoutSeconds < 0 || queue.visibilityTimeoutSeconds > SQS_MAX_VISIBILITY_TIMEOUT_SECONDS) {
      throw new Error(`${where}: visibilityTimeoutSeconds must be an integer from 0 to ${SQS_MAX_VISIBILITY_TIMEOUT_SECONDS}.`);
    }
    const [minRetention, maxRetention] = SQS_RETENTION_SECONDS_RANGE;
    const retention = queue.retentionSeconds ?? SQS_DEFAULT_RETENTION_SECONDS;
    if (!Number.isInteger(retention) || retention < minRetention || retention > maxRetention) {
      throw new Error(`${where}: retentionSeconds must be an integer from ${minRetention} to ${maxRetention}.`);
    }
    if ((queue.deadLetterQueue === undefined) !== (queue.maxReceiveCount === undefined)) {
      throw new Error(`${where}: give both deadLetterQueue and maxReceiveCount (a redrive policy), or neither.`);
    }
    if (queue.deadLetterQueue !== undefined) {
      if (!names.has(queue.deadLetterQueue) || queue.deadLetterQueue === queue.name) {
        throw new Error(`${where}: its dead-letter queue "${queue.deadLetterQueue}" must be another queue of the same endpoint.`);
      }
      const count = queue.maxReceiveCount!;
      if (!Number.isInteger(count) || count < 1 || count > SQS_MAX_RECEIVE_COUNT) throw new Error(`${where}: maxReceiveCount must be an integer from 1 to ${SQS_MAX_RECEIVE_COUNT}.`);
    }
  }
}

type Request = Record<string, unknown>;

/** A list of names from the request; anything else is refused as SQS refuses a malformed parameter. */
function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalidParameter('A list of attribute names must hold strings only.');
  return value as string[];
}

export function createLocalQueues(settings: LocalQueueSettings[], dir: string): LocalQueues {
  validateSettings(settings);
  mkdirSync(dir, { recursive: true });
  const queues = new Map(settings.map((queue) => [queue.name, new Queue(queue, dir)]));
  let closing = false;

  const queueNamed = (name: string) => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`No local queue is named "${name}"; the stack's queues are ${[...queues.keys()].join(', ')}.`);
    return queue;
  };

  const noQueue = () => new SqsError('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');

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

  /** A message body checked as SQS checks it, with its attributes, and its size. */
  function checkedMessage(body: unknown, rawAttributes: unknown, delay: unknown): { body: string; attributes?: Record<string, MessageAttribute>; delaySeconds: number } {
    if (typeof body !== 'string' || body === '') throw new SqsError('MissingParameter', 'The request must contain the parameter MessageBody.');
    if (!ALLOWED_CHARACTERS.test(body)) {
      throw new SqsError('InvalidMessageContents', 'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF');
    }
    const attributes = checkedAttributes(rawAttributes);
    if (messageBytes(body, attributes) > SQS_MAX_MESSAGE_BYTES) {
      throw invalidParameter(`One or more parameters are invalid. Reason: Message must be shorter than ${SQS_MAX_MESSAGE_BYTES} bytes.`);
    }
    return { body, attributes, delaySeconds: integerIn(delay, 'DelaySeconds', 0, SQS_MAX_DELAY_SECONDS) ?? 0 };
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

  /** Batch-level checks common to every batch operation, in SQS's order. */
  function checkedEntries(request: Request, entryName: string): Request[] {
    const entries = request.Entries;
    if (entries !== undefined && !Array.isArray(entries)) throw invalidParameter('Entries must be a list.');
    if (!entries || entries.length === 0) throw new SqsError('EmptyBatchRequest', `There should be at least one ${entryName} in the request.`, 'AWS.SimpleQueueService.EmptyBatchRequest');
    if (entries.length > SQS_MAX_BATCH_ENTRIES) {
      throw new SqsError('TooManyEntriesInBatchRequest', `Maximum number of entries per request are ${SQS_MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`, 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest');
    }
    const ids = new Set<string>();
    for (const entry of entries as Request[]) {
      const id = entry?.Id;
      if (typeof id !== 'string' || !BATCH_ENTRY_ID.test(id)) {
        throw new SqsError('InvalidBatchEntryId', 'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.', 'AWS.SimpleQueueService.InvalidBatchEntryId');
      }
      if (ids.has(id)) throw new SqsError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`, 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct');
      ids.add(id);
    }
    return entries as Request[];
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

  /** Takes up to `max` visible messages, moving those past the redrive policy's count to the dead-letter queue. */
  function take(queue: Queue, max: number, visibilitySeconds: number): Message[] {
    const now = Date.now();
    queue.expire(now);
    const taken: Message[] = [];
    const { deadLetterQueue, maxReceiveCount } = queue.settings;
    for (const message of queue.messages.values()) {
      if (taken.length >= max) break;
      if (message.delayUntil > now || message.visibleAt > now) continue;
      if (deadLetterQueue && maxReceiveCount !== undefined && message.receiveCount >= maxReceiveCount) {
        const target = queues.get(deadLetterQueue)!;
        // Written to the dead-letter queue before it leaves this one: a kill in between repeats it, never loses it.
        const { visibleAt: _visibleAt, receipt: _receipt, ...stored } = message;
        target.add({ ...stored, receiveCount: 0, firstReceivedAt: undefined, delayUntil: 0, deadLetterSourceArn: queue.arn });
        queue.remove(message.id);
        continue;
      }
      taken.push(queue.receipt(message, visibilitySeconds, now));
    }
    return taken;
  }

  async function receiveMessage(request: Request, cancelled: () => boolean) {
    const queue = queueOf(request);
    const max = integerIn(request.MaxNumberOfMessages, 'MaxNumberOfMessages', 1, SQS_MAX_RECEIVE_MESSAGES) ?? 1;
    const waitSeconds = integerIn(request.WaitTimeSeconds, 'WaitTimeSeconds', 0, SQS_MAX_WAIT_SECONDS) ?? 0;
    const visibility = integerIn(request.VisibilityTimeout, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS) ?? queue.settings.visibilityTimeoutSeconds;
    const system = requestedSystemAttributes(request);
    const deadline = Date.now() + waitSeconds * 1000;
    let taken = take(queue, max, visibility);
    // A message becomes visible by a send (which wakes the waiters) or by time (a delay or visibility timeout ending): looked at again every 100 ms.
    while (taken.length === 0 && Date.now() < deadline && !closing && !cancelled()) {
      await queue.nextChange(Math.min(100, deadline - Date.now()));
      if (!cancelled()) taken = take(queue, max, visibility);
    }
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

  /** The message a receipt handle names, undefined when it was deleted already; refuses a handle this queue did not issue. */
  function messageOf(queue: Queue, handle: unknown): Message | undefined {
    const receipt = decodeReceipt(handle);
    if (!receipt || receipt.q !== queue.settings.name) throw new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${String(handle)}" is not a valid receipt handle.`);
    return queue.messages.get(receipt.m);
  }

  function deleteMessage(queue: Queue, handle: unknown): void {
    if (handle === undefined || handle === null || handle === '') throw new SqsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.');
    const message = messageOf(queue, handle);
    // Deleting a message that is gone already succeeds, as in SQS.
    if (message) queue.remove(message.id);
  }

  function changeVisibility(queue: Queue, handle: unknown, timeout: unknown): void {
    if (handle === undefined || handle === null || handle === '') throw new SqsError('MissingParameter', 'The request must contain the parameter ReceiptHandle.');
    if (timeout === undefined || timeout === null) throw new SqsError('MissingParameter', 'The request must contain the parameter VisibilityTimeout.');
    const seconds = integerIn(timeout, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS)!;
    const message = messageOf(queue, handle);
    const now = Date.now();
    if (!message) throw invalidParameter(`Value ${String(handle)} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`);
    if (message.visibleAt <= now) throw new SqsError('MessageNotInflight', 'The message referred to is not in flight.', 'AWS.SimpleQueueService.MessageNotInflight');
    message.visibleAt = now + seconds * 1000;
    if (seconds === 0) queue.wake();
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
          `The local SQS does not implement ${operation || 'this operation'}: it answers SendMessage(Batch), ReceiveMessage, DeleteMessage(Batch), ChangeMessageVisibility, GetQueueUrl and GetQueueAttributes; its queues are set by the stack's configuration.`,
          'AWS.SimpleQueueService.UnsupportedOperation',
        );
    }
  }

  function settled(name: string, timeoutMs: number): Promise<boolean> {
    const queue = queueNamed(name);
    const pending = new Set(queue.messages.keys());
    const deadline = Date.now() + timeoutMs;
    let seen = -1;
    return (async () => {
      for (;;) {
        // Expiry by retention also settles a message.
        queue.expire(Date.now());
        if (queue.removals !== seen) {
          seen = queue.removals;
          for (const id of pending) if (!queue.messages.has(id)) pending.delete(id);
        }
        if (pending.size === 0) return true;
        if (Date.now() >= deadline || closing) return false;
        await sleep(Math.min(25, deadline - Date.now()));
      }
    })();
  }

  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID(), ...headers });
    response.end(JSON.stringify(body));
  };

  const refuse = (response: ServerResponse, error: SqsError) =>
    json(response, error.status, { __type: `com.amazonaws.sqs#${error.code}`, message: error.message }, { 'x-amzn-query-error': `${error.queryCode};Sender` });

  async function local(response: ServerResponse, url: URL): Promise<void> {
    const match = /^\/_local\/queues\/([^/]+)\/settled$/.exec(url.pathname);
    const queue = match ? queues.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !queue) {
      return json(response, 404, { message: `Not a local queue seam: use GET /_local/queues/<name>/settled?timeoutMs=N with one of ${[...queues.keys()].join(', ')}.` });
    }
    const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 0);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > 600_000) return json(response, 400, { message: 'timeoutMs must be an integer from 0 to 600000.' });
    const done = await settled(queue.settings.name, timeoutMs);
    json(response, 200, { settled: done, counts: queue.counts() });
  }

  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyText(request);
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (request.method === 'GET' && url.pathname.startsWith('/_local/')) return local(response, url);
      const target = String(request.headers['x-amz-target'] ?? '');
      if (request.method !== 'POST' || !target.startsWith('AmazonSQS.') || !String(request.headers['content-type'] ?? '').startsWith('application/x-amz-json-1.0')) {
        return refuse(response, new SqsError('UnsupportedOperation', 'The local SQS answers the AWS JSON 1.0 protocol only: POST with x-amz-target AmazonSQS.<Operation> and content-type application/x-amz-json-1.0.'));
      }
      let input: Request;
      try {
        input = JSON.parse(body || '{}') as Request;
        if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('not an object');
      } catch {
        return json(response, 400, { __type: 'com.amazon.coral.service#SerializationException', message: 'The request body is not a JSON object.' });
      }
      let gone = false;
      response.on('close', () => (gone = true));
      try {
        const result = await operate(target.slice('AmazonSQS.'.length), input, request.headers.host ?? '127.0.0.1', () => gone);
        json(response, 200, result);
      } catch (error) {
        if (error instanceof SqsError) return refuse(response, error);
        throw error;
      }
    })().catch((error: unknown) => {
      console.error(JSON.stringify({ timestamp: new Date().toISOString(), level: 'ERROR', source: 'local-sqs', errorType: error instanceof Error ? error.name : typeof error, message: 'a request failed' }));
      json(response, 500, { __type: 'com.amazonaws.sqs#InternalError', message: 'The local SQS failed; its log on stderr has the error type.' }, { 'x-amzn-query-error': 'InternalError;Receiver' });
    });
  });

  return {
    server,
    queueUrl: (name, baseUrl) => `${baseUrl.replace(/\/$/, '')}/${LOCAL_ACCOUNT_ID}/${queueNamed(name).settings.name}`,
    counts: (name) => queueNamed(name).counts(),
    settled,
    close: async () => {
      closing = true;
      for (const queue of queues.values()) queue.wake();
      await new Promise<void>((resolve) => {
        server.close(() => {
          for (const queue of queues.values()) queue.closeJournal();
          resolve();
        });
        server.closeIdleConnections();
        // Connections kept alive by a client that just got its last answer.
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
    },
  };
}
