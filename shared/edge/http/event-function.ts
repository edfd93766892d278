import { BasePartialBatchProcessor, BatchProcessingError, BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, DynamoDBRecord, S3EventRecord, SQSRecord } from 'aws-lambda';
import { isTimedOut } from '../../kernel/errors';
import { isThrottled } from '../../kernel/retry';
import { logger } from '../../kernel/logger';
import { publishMetrics } from '../../kernel/metrics';

/**
 * The chain of the functions no HTTP request starts (the table's stream, a queue, S3's notifications, a
 * schedule), beside the HTTP one (`handler-factory.ts`) and in the same order: the Lambda context and
 * the invocation's request id on every log line, the invocation's metrics written once when it ends,
 * failures logged in one place, and the invocation given up 5 ms before the function's time limit
 * (middy's `timeoutEarlyInMillis`), never ended by Lambda's runtime. A batch becomes per-record work
 * with Powertools' batch processing, each failed record its own batch item failure.
 */

/** What Powertools' processors answer: the records the event source delivers again. */
export interface BatchAnswer {
  batchItemFailures: { itemIdentifier: string }[];
}

/** The records of a queue: each handled apart, a record that throws is delivered again, the others not. */
export interface QueueTrigger {
  handle: (record: SQSRecord, context: Context) => Promise<unknown>;
  /** The log line of a record that threw (with its message id, receive count and the error's name). */
  failure: string;
  /** Records handled all at once (default), or one after the other. */
  inParallel?: boolean;
}

/**
 * The table's stream, in order. `collect` turns each record into a value (or nothing, for a record
 * there is nothing to do about); `flush` then takes the values in order and answers how many of them,
 * from the first, it has done. A record is done once its value is; the stream delivers the first
 * record not done again, with every record after it.
 */
export interface StreamTrigger<T> {
  collect: (record: DynamoDBRecord, context: Context) => T | undefined | Promise<T | undefined>;
  flush: (values: T[]) => Promise<number>;
}

export interface EventTriggers<T> {
  stream?: StreamTrigger<T>;
  queue?: QueueTrigger;
  /** S3's object-created notifications, invoked asynchronously: each record in turn; an error fails the invocation, which Lambda retries. */
  s3?: (record: S3EventRecord, context: Context) => Promise<unknown>;
  /** An event without records: a schedule's, or a direct invocation's. */
  schedule?: (context: Context) => Promise<unknown>;
}

/** What an event function exports: the context is optional, as when a test or the local stack hands an event over. */
export type EventHandler = (event: object, context?: Context) => Promise<BatchAnswer | void>;

/**
 * Thrown by a record handler for a record its event source should deliver again, once the handler
 * has logged why (a send SES refused for its rate): a failure of that record that the chain does not
 * log a second time.
 */
export class DeliverAgain extends Error {
  override readonly name = 'DeliverAgain';
  constructor() {
    super('The record is to be delivered again');
  }
}

/** Builds an event function's Lambda handler: the chain, then the trigger the event comes from. */
export function eventFunction<T>(group: string, triggers: EventTriggers<T>): EventHandler {
  const chain = middy<object, BatchAnswer | void, Error, Context>()
    .use(invocationContext(group))
    .use(failureLog())
    .handler((event, context) => dispatch(triggers, group, event, context));
  return (event, context) => chain(event, context ?? ({} as Context));
}

type Trigger = keyof EventTriggers<unknown>;

/** The trigger of an event, by the shape of its records (tests and the local stack leave `eventSource` out at times). */
function triggerOf(records: unknown[]): Trigger {
  const first = (records[0] ?? {}) as object;
  if ('dynamodb' in first) return 'stream';
  if ('body' in first) return 'queue';
  return 's3';
}

async function dispatch<T>(triggers: EventTriggers<T>, group: string, event: object, context: Context): Promise<BatchAnswer | void> {
  const records = (event as { Records?: unknown }).Records;
  const trigger: Trigger = Array.isArray(records) ? triggerOf(records) : 'schedule';
  if (Array.isArray(records) && records.length === 0) return triggers.stream || triggers.queue ? { batchItemFailures: [] } : undefined;
  const { stream, queue, s3, schedule } = triggers;
  if (trigger === 'stream' && stream) return streamBatch(stream, { Records: records as DynamoDBRecord[] }, context);
  if (trigger === 'queue' && queue) return queueBatch(queue, { Records: records as SQSRecord[] }, context);
  if (trigger === 's3' && s3) {
    for (const record of records as S3EventRecord[]) await s3(record, context);
    return undefined;
  }
  if (trigger === 'schedule' && schedule) return void (await schedule(context));
  throw new Error(`The ${group} function is not started by ${trigger} events`);
}

/**
 * Powertools' processor for a queue, whose failures are logged here, once each. A processor is made
 * per invocation: it keeps the batch's state, and on the local stack invocations of one function run
 * at once in one process.
 */
class LoggedQueueProcessor extends BatchProcessor {
  constructor(private readonly failure: string) {
    super(EventType.SQS);
  }

  override failureHandler(record: SQSRecord, error: Error) {
    if (!(error instanceof DeliverAgain)) {
      logRecordFailure(this.failure, error, { messageId: record.messageId, receives: Number(record.attributes?.ApproximateReceiveCount) || 1 });
    }
    return super.failureHandler(record, error);
  }
}

function queueBatch(trigger: QueueTrigger, event: { Records: SQSRecord[] }, context: Context): Promise<BatchAnswer> {
  // A batch whose every record failed is answered too, not thrown (Powertools' default): thrown, it
  // would be a function error, which the function's errors alarm counts, for records that each said
  // why (SES refusing for its rate, an outage).
  return processPartialResponse(event, trigger.handle, new LoggedQueueProcessor(trigger.failure), {
    context,
    throwOnFullBatchFailure: false,
    processInParallel: trigger.inParallel ?? true,
  });
}

/**
 * A stream's records in order, their values flushed together. Powertools' `BatchProcessor` is not
 * used for a stream: sequential or not, it goes on past a failed record and reports each failure, so
 * records after the first failure are handled before it is retried (Lambda retries from the lowest
 * sequence number reported) and overtake it; and its one handler call per record would be one
 * EventBridge `PutEvents` call per change, where one call takes ten. This processor collects instead:
 * the record handler runs on each record in order and stops at the first that throws, then `flush`
 * takes every value at once. As Powertools' SQS FIFO processor does with the records it skips, the
 * first record not done is reported with every record after it.
 */
class OrderedStreamProcessor<T> extends BasePartialBatchProcessor {
  constructor(private readonly flush: (values: T[]) => Promise<number>) {
    super(EventType.DynamoDBStreams);
  }

  override async process() {
    this.prepare();
    const collected: { record: DynamoDBRecord; value: T | undefined }[] = [];
    let halted: Error | undefined;
    for (const record of this.records as DynamoDBRecord[]) {
      try {
        collected.push({ record, value: (await this.handler(record, this.options?.context)) as T | undefined });
      } catch (error) {
        halted = error as Error;
        logRecordFailure('stream record not handled: the stream delivers it again', halted, { sequenceNumber: record.dynamodb?.SequenceNumber });
        break;
      }
    }
    const done = await this.flush(collected.flatMap(({ value }) => (value === undefined ? [] : [value])));
    let values = 0;
    const outcomes = (this.records as DynamoDBRecord[]).map((record, index) => {
      const entry = collected[index];
      if (entry && entry.value !== undefined) values += 1;
      if (entry && values <= done) return this.successHandler(record, entry.value);
      return this.failureHandler(record, (index === collected.length && halted) || new NotDone());
    });
    this.clean();
    return outcomes;
  }

  // A stream's records are taken in `process`, together: never one by one.
  processRecord(): Promise<never> {
    throw new BatchProcessingError('A stream batch is processed whole, by process()');
  }

  processRecordSync(): never {
    throw new BatchProcessingError('A stream batch is processed whole, by process()');
  }
}

/** A stream record not done: its value was not flushed, or an earlier record was not done. */
class NotDone extends Error {
  override readonly name = 'NotDone';
  constructor() {
    super('The record was not done: the stream delivers it again');
  }
}

function streamBatch<T>(trigger: StreamTrigger<T>, event: { Records: DynamoDBRecord[] }, context: Context): Promise<BatchAnswer> {
  // A batch whose first record is not done is answered too: the stream retries from that record,
  // where a thrown error would have the batch split in halves and each retried.
  return processPartialResponse(event, trigger.collect, new OrderedStreamProcessor(trigger.flush), { context, throwOnFullBatchFailure: false });
}

/**
 * The invocation's context on every log line (function, its Lambda request id as `requestId`, cold
 * start) and its metrics written when it ends, failed or not, with that request id.
 */
function invocationContext(group: string): middy.MiddlewareObj<object, BatchAnswer | void, Error, Context> {
  const publish = (request: middy.Request<object, BatchAnswer | void, Error, Context>) => publishMetrics(group, request.context.awsRequestId);
  return {
    before: ({ context }) => {
      logger.addContext(context);
      logger.resetKeys();
      if (context.awsRequestId) logger.appendKeys({ requestId: context.awsRequestId });
    },
    after: publish,
    onError: publish,
  };
}

/**
 * Logs what failed the whole invocation, as the HTTP chain logs a 5xx (`logServerFailure`), and lets
 * it through: Lambda then retries the event (a stream's batch split in halves, a queue's batch
 * delivered again, an S3 notification retried, then its on-failure destination).
 */
function failureLog(): middy.MiddlewareObj<object, BatchAnswer | void, Error, Context> {
  return {
    onError: ({ error }) => {
      if (isThrottled(error)) logger.warn('an AWS service refused for its request rate after the SDK retries', { reason: error?.name });
      else if (isTimedOut(error)) logger.error("the invocation ran out of the function's time: it failed, and its retry may find it partly applied");
      else logger.error('unhandled error', error as Error);
    },
  };
}

/**
 * A failed record's log line: a refusal for a request rate as the HTTP chain words it, anything else
 * under the trigger's own words. The error's name only: its message may quote what the record
 * carries (an SDK message naming an address or a key).
 */
function logRecordFailure(message: string, error: unknown, keys: Record<string, unknown>): void {
  const errorType = (error as { name?: unknown } | undefined)?.name;
  if (isThrottled(error)) logger.warn('an AWS service refused for its request rate after the SDK retries', { ...keys, reason: errorType });
  else logger.error(message, { ...keys, errorType });
}
