import * as limits from './sqs-model';
import { invalidParameter, md5, missingParameter, serviceError, SqsError, type LocalQueueSettings, type MessageAttribute, type Request } from './sqs-model';

/** What the local SQS checks of a request before it changes anything, as SQS checks it, and the digests it answers. */

// SQS's allowed set (XML's characters) names tab, line feed and carriage return among the control characters.
// eslint-disable-next-line no-control-regex
const ALLOWED_CHARACTERS = /^[\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const NAME = /^[A-Za-z0-9_-]{1,80}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[\x21-\x7e]+)?$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

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
    const { DataType, BinaryValue, StringValue } = attributes[name]!;
    prefixed(Buffer.from(name, 'utf8'));
    prefixed(Buffer.from(DataType, 'utf8'));
    parts.push(Buffer.from([BinaryValue !== undefined ? 2 : 1]));
    prefixed(BinaryValue !== undefined ? Buffer.from(BinaryValue, 'base64') : Buffer.from(StringValue ?? '', 'utf8'));
  }
  return md5(Buffer.concat(parts));
}

function checkedAttribute(name: string, value: Partial<MessageAttribute> | null): MessageAttribute {
  const lower = name.toLowerCase();
  if (!ATTRIBUTE_NAME.test(name) || /^\.|\.$|\.\./.test(name) || lower.startsWith('aws.') || lower.startsWith('amazon.')) {
    throw invalidParameter(`Message attribute name '${name}' is invalid: use up to 256 letters, digits, '_', '-' and '.', not starting with 'AWS.' or 'Amazon.'.`);
  }
  const type = value?.DataType;
  if (typeof type !== 'string' || !DATA_TYPE.test(type)) {
    throw invalidParameter(`The message attribute '${name}' has an invalid type: use String, Number or Binary, optionally followed by '.' and a label.`);
  }
  const binary = type.startsWith('Binary');
  const given = binary ? value!.BinaryValue : value!.StringValue;
  if (typeof given !== 'string' || given === '') {
    throw invalidParameter(`The message attribute '${name}' must contain a non-empty ${binary ? 'binary' : 'string'} value of type '${type}'.`);
  }
  if (binary) return { DataType: type, BinaryValue: given };
  if (!ALLOWED_CHARACTERS.test(given)) throw new SqsError('InvalidMessageContents', `The message attribute '${name}' contains characters outside the allowed set.`);
  if (type.startsWith('Number') && !NUMBER.test(given)) throw invalidParameter(`The message attribute '${name}' of type Number must contain a number.`);
  return { DataType: type, StringValue: given };
}

/** The attributes checked as SQS checks them, or an SqsError. */
function checkedAttributes(raw: unknown): Record<string, MessageAttribute> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidParameter('MessageAttributes must be a map of attribute names to values.');
  const entries = Object.entries(raw as Record<string, Partial<MessageAttribute> | null>);
  if (entries.length === 0) return undefined;
  if (entries.length > limits.SQS_MAX_MESSAGE_ATTRIBUTES) {
    throw invalidParameter(`Number of message attributes [${entries.length}] exceeds the allowed maximum [${limits.SQS_MAX_MESSAGE_ATTRIBUTES}].`);
  }
  return Object.fromEntries(entries.map(([name, value]) => [name, checkedAttribute(name, value)]));
}

export function integerIn(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(`Value ${String(value)} for parameter ${name} is invalid. Reason: Must be between ${min} and ${max}, if provided.`);
  }
  return value;
}

/** A message body checked as SQS checks it, with its attributes and delay. */
export function checkedMessage(body: unknown, rawAttributes: unknown, delay: unknown): { body: string; attributes?: Record<string, MessageAttribute>; delaySeconds: number } {
  if (typeof body !== 'string' || body === '') throw missingParameter('MessageBody');
  if (!ALLOWED_CHARACTERS.test(body)) {
    throw new SqsError('InvalidMessageContents', 'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF');
  }
  const attributes = checkedAttributes(rawAttributes);
  if (messageBytes(body, attributes) > limits.SQS_MAX_MESSAGE_BYTES) {
    throw invalidParameter(`One or more parameters are invalid. Reason: Message must be shorter than ${limits.SQS_MAX_MESSAGE_BYTES} bytes.`);
  }
  return { body, attributes, delaySeconds: integerIn(delay, 'DelaySeconds', 0, limits.SQS_MAX_DELAY_SECONDS) ?? 0 };
}

/** Batch-level checks common to every batch operation, in SQS's order. */
export function checkedEntries(request: Request, entryName: string): Request[] {
  const entries = request.Entries;
  if (entries !== undefined && !Array.isArray(entries)) throw invalidParameter('Entries must be a list.');
  if (!entries || entries.length === 0) throw serviceError('EmptyBatchRequest', `There should be at least one ${entryName} in the request.`);
  if (entries.length > limits.SQS_MAX_BATCH_ENTRIES) {
    throw serviceError('TooManyEntriesInBatchRequest', `Maximum number of entries per request are ${limits.SQS_MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`);
  }
  const ids = new Set<string>();
  for (const entry of entries as Request[]) {
    const id = entry?.Id;
    if (typeof id !== 'string' || !NAME.test(id)) {
      throw serviceError('InvalidBatchEntryId', 'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.');
    }
    if (ids.has(id)) throw serviceError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
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
    const refuse = (problem: string) => new Error(`Local queue "${queue.name}": ${problem}.`);
    const within = (value: number, [min, max]: readonly [number, number], name: string) => {
      if (!Number.isInteger(value) || value < min || value > max) throw refuse(`${name} must be an integer from ${min} to ${max}`);
    };
    if (!NAME.test(queue.name)) throw refuse("a queue name has 1 to 80 letters, digits, '-' or '_'");
    within(queue.visibilityTimeoutSeconds, [0, limits.SQS_MAX_VISIBILITY_TIMEOUT_SECONDS], 'visibilityTimeoutSeconds');
    within(queue.retentionSeconds ?? limits.SQS_DEFAULT_RETENTION_SECONDS, limits.SQS_RETENTION_SECONDS_RANGE, 'retentionSeconds');
    if ((queue.deadLetterQueue === undefined) !== (queue.maxReceiveCount === undefined)) {
      throw refuse('give both deadLetterQueue and maxReceiveCount (a redrive policy), or neither');
    }
    if (queue.deadLetterQueue === undefined) continue;
    if (!names.has(queue.deadLetterQueue) || queue.deadLetterQueue === queue.name) {
      throw refuse(`its dead-letter queue "${queue.deadLetterQueue}" must be another queue of the same endpoint`);
    }
    within(queue.maxReceiveCount!, [1, limits.SQS_MAX_RECEIVE_COUNT], 'maxReceiveCount');
  }
}
