import { createHash } from 'node:crypto';
import { localArn } from '../kernel/local-account';

/** What the local SQS is made of: SQS's limits, a queue's settings and messages, and its refusals. */

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

export const queueArn = (name: string) => localArn('sqs', name);

export interface LocalQueueSettings {
  name: string;
  visibilityTimeoutSeconds: number;
  /** With `deadLetterQueue`: a message received this many times goes there on its next receive. */
  maxReceiveCount?: number;
  /** The name of another queue of the same endpoint. */
  deadLetterQueue?: string;
  retentionSeconds?: number;
}

export interface MessageAttribute {
  DataType: string;
  StringValue?: string;
  /** Base64, as the JSON protocol carries blobs. */
  BinaryValue?: string;
}

export interface StoredMessage {
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

export interface Message extends StoredMessage {
  /** In flight until this time (memory only: a restart makes every message visible again). */
  visibleAt: number;
  /** The latest receipt's token; older receipt handles still delete the message. */
  receipt?: string;
}

/** A request's parameters, as the JSON protocol carries them. */
export type Request = Record<string, unknown>;

/** A refusal, as SQS answers it in the JSON protocol (HTTP 400). */
export class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** What the `x-amzn-query-error` header names (the query protocol's code), when it differs from `code`. */
    readonly queryCode = code,
  ) {
    super(message);
  }
}

/** A refusal whose query-protocol code is `AWS.SimpleQueueService.<code>`. */
export const serviceError = (code: string, message: string) => new SqsError(code, message, `AWS.SimpleQueueService.${code}`);

export const invalidParameter = (message: string) => new SqsError('InvalidParameterValue', message);

export const missingParameter = (name: string) => new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);

export const noQueue = () => new SqsError('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');

export const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');
