import {
  invalidParameter,
  md5,
  SQS_DEFAULT_RETENTION_SECONDS,
  SQS_MAX_BATCH_ENTRIES,
  SQS_MAX_DELAY_SECONDS,
  SQS_MAX_MESSAGE_ATTRIBUTES,
  SQS_MAX_MESSAGE_BYTES,
  SQS_MAX_RECEIVE_COUNT,
  SQS_MAX_VISIBILITY_TIMEOUT_SECONDS,
  SQS_RETENTION_SECONDS_RANGE,
  SqsError,
  type LocalQueueSettings,
  type MessageAttribute,
  type Request,
} from './sqs-model';

/** What the local SQS checks of a request before it changes anything, as SQS checks it, and the digests it answers. */

// SQS's allowed set (XML's characters) names tab, line feed and carriage return among the control characters.
// eslint-disable-next-line no-control-regex
const ALLOWED_CHARACTERS = /^[\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[\x21-\x7e]+)?$/;

/** Bytes of a message as SQS counts them against the maximum size: the body and each attribute's name, type and value. */
export function messageBytes(body: unknown, attributes: unknown): number {
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
export function checkedAttributes(raw: unknown): Record<string, MessageAttribute> | undefined {
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

export function integerIn(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(`Value ${String(value)} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}, if provided.`);
  }
  return value;
}

/** A message body checked as SQS checks it, with its attributes, and its size. */
export function checkedMessage(body: unknown, rawAttributes: unknown, delay: unknown): { body: string; attributes?: Record<string, MessageAttribute>; delaySeconds: number } {
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

/** Batch-level checks common to every batch operation, in SQS's order. */
export function checkedEntries(request: Request, entryName: string): Request[] {
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

/** A list of names from the request; anything else is refused as SQS refuses a malformed parameter. */
export function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalidParameter('A list of attribute names must hold strings only.');
  return value as string[];
}

/** The queues' settings, refused in words where CloudFormation would refuse them. */
export function validateSettings(settings: LocalQueueSettings[]): void {
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
