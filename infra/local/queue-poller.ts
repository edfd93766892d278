import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { defaultLog, errorType, lambdaLog, pollerParts, pollUntilStopped, type PollerOptions } from './invoke';
import { queueArn, SQS_MAX_BATCH_ENTRIES, SQS_MAX_RECEIVE_MESSAGES, SQS_MAX_WAIT_SECONDS } from './sqs/sqs-model';
import { LOCAL_REGION } from './kernel/local-account';

/**
 * Lambda's SQS event source mapping on the local stack (docs/local-stack.md#the-local-sqs-queues):
 * pollers long-poll the queue, hand each batch to the function as that function, and delete what it
 * handled; what is left comes back after the queue's visibility timeout, as in AWS.
 */

export interface QueuePollerOptions extends PollerOptions<SQSEvent, SQSBatchResponse> {
  queueUrl: string;
  functionName: ResourceGroup;
  /** Messages per invocation, 1 to 10 (Lambda's default for SQS is 10; more needs a batching window, not modelled here). */
  batchSize?: number;
  /** Pollers running at once, each with at most one invocation in progress. */
  concurrency?: number;
  /** Whether the function's answer may name the messages it failed (the mapping's `ReportBatchItemFailures`); true by default. */
  reportBatchItemFailures?: boolean;
}

/** A received message as Lambda hands it to the function. */
function lambdaRecord(message: Message, eventSourceARN: string): SQSRecord {
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType!,
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody!,
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion: LOCAL_REGION,
  };
}

/** The messages to delete: all but the reported failures; a failure naming no message of the batch fails it all, as in Lambda. */
function handled(batch: Message[], response: SQSBatchResponse | void, reportsFailures: boolean): Message[] {
  if (!reportsFailures) return batch;
  const failures = response?.batchItemFailures ?? [];
  const ids = new Set(batch.map((message) => message.MessageId));
  if (failures.some((failure) => typeof failure?.itemIdentifier !== 'string' || !ids.has(failure.itemIdentifier))) return [];
  const failed = new Set(failures.map((failure) => failure.itemIdentifier));
  return batch.filter((message) => !failed.has(message.MessageId!));
}

export type QueuePoller = ReturnType<typeof startQueuePoller>;

export function startQueuePoller(options: QueuePollerOptions) {
  const { queueUrl, functionName: fn, batchSize = 10, concurrency = 1 } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > SQS_MAX_RECEIVE_MESSAGES) throw new Error(`The queue poller's batchSize must be an integer from 1 to ${SQS_MAX_RECEIVE_MESSAGES}.`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("The queue poller's concurrency must be a positive integer.");
  const say = lambdaLog(options.log ?? defaultLog, fn);
  const { client, invoke: invokeWith } = pollerParts(fn, 'queue', options, say);
  const sqs = new SQSClient(client);
  // The queue's ARN from its URL, `…/<account>/<name>` (the local SQS's queues are all the local account's).
  const eventSourceARN = queueArn(new URL(queueUrl).pathname.split('/').pop()!);

  async function deleteAll(messages: Message[]): Promise<void> {
    for (let start = 0; start < messages.length; start += SQS_MAX_BATCH_ENTRIES) {
      const entries = messages.slice(start, start + SQS_MAX_BATCH_ENTRIES).map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! }));
      const answer = await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if (answer.Failed?.length) say('WARN', 'deleting handled messages failed; they will be delivered again', { failed: answer.Failed.length });
    }
  }

  async function invoke(batch: Message[]): Promise<void> {
    const event: SQSEvent = { Records: batch.map((message) => lambdaRecord(message, eventSourceARN)) };
    const result = await invokeWith(event);
    const about = { awsRequestId: result.awsRequestId, batchSize: batch.length };
    if (!result.ok) {
      return say('WARN', 'queue batch failed; its messages come back after their visibility timeout', { ...about, errorType: errorType(result.error) });
    }
    const done = handled(batch, result.result, options.reportBatchItemFailures ?? true);
    if (done.length < batch.length) {
      say('WARN', 'queue batch items failed; they come back after their visibility timeout', { ...about, failed: batch.length - done.length });
    }
    if (done.length > 0) await deleteAll(done);
  }

  const stopping = new AbortController();
  const attributes = { MessageSystemAttributeNames: ['All' as const], MessageAttributeNames: ['All'] };
  const request = { QueueUrl: queueUrl, MaxNumberOfMessages: batchSize, WaitTimeSeconds: SQS_MAX_WAIT_SECONDS, ...attributes };
  const receive = async () => {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand(request), { abortSignal: stopping.signal });
    if (Messages.length > 0) await invoke(Messages);
    return true; // A long poll has waited already.
  };
  const onError = (error: unknown) => say('ERROR', 'polling the queue failed; trying again in 1 s', { errorType: errorType(error) });
  const pollers = Array.from({ length: concurrency }, () => pollUntilStopped(stopping.signal, receive, { idleMs: 0, afterErrorMs: 1000 }, onError));

  return {
    /** Stops polling and resolves once the invocations in progress have ended and their messages are deleted. */
    stop: async () => {
      // A long poll waiting for messages ends now; an invocation in progress runs to its end (at most the function's timeout).
      stopping.abort();
      await Promise.all(pollers);
      sqs.destroy();
    },
  };
}
