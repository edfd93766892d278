import type { Context, DynamoDBRecord, S3EventRecord, SQSRecord } from 'aws-lambda';
import { DeliverAgain, eventFunction, type EventTriggers } from '../../shared/edge/http/event-function';
import { sleep } from '../../shared/kernel/retry';
import { count } from '../../shared/kernel/metrics';
import { captureLogs } from '../support/capture-logs';

/**
 * The chain of the functions no HTTP request starts (`shared/edge/http/event-function.ts`), with record
 * handlers of the test's own: what it answers, what it logs and the metrics it writes.
 */

const contextOf = (awsRequestId: string, remainingMs = 10_000): Context =>
  ({ awsRequestId, functionName: 'unit-events', getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

const sqsRecord = (messageId: string, body = '{}'): SQSRecord =>
  ({ messageId, body, attributes: { ApproximateReceiveCount: '2' }, eventSource: 'aws:sqs' }) as unknown as SQSRecord;

const streamRecord = (sequenceNumber: string): DynamoDBRecord => ({ eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { SequenceNumber: sequenceNumber } });

const s3Record = (key: string) => ({ eventSource: 'aws:s3', s3: { object: { key } } }) as unknown as S3EventRecord;

type LogLine = Record<string, unknown>;

/** Runs one invocation with the logs captured: its answer (or what it threw) and its JSON log lines. */
async function invoke<T>(triggers: EventTriggers<T>, event: object, context: Context): Promise<{ answer?: unknown; thrown?: Error; lines: LogLine[] }> {
  const handler = eventFunction('unit-events', triggers);
  const outcome: { answer?: unknown; thrown?: Error } = {};
  const raw = await captureLogs(async () => {
    try {
      outcome.answer = await handler(event, context);
    } catch (error) {
      outcome.thrown = error as Error;
    }
  });
  const lines = raw.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
  return { ...outcome, lines };
}

const emfLines = (lines: LogLine[]) => lines.filter((line) => '_aws' in line);

describe('a queue batch', () => {
  test('a record handler that throws fails that record alone, logged once with the request id and the error name, never its message', async () => {
    const handled: string[] = [];
    const { answer, lines } = await invoke(
      {
        queue: {
          failure: 'queue message not settled',
          handle: async (record) => {
            handled.push(record.messageId);
            if (record.messageId === 'm-2') throw Object.assign(new Error('refused ana@acme.example'), { name: 'ConditionalCheckFailedException' });
          },
        },
      },
      { Records: [sqsRecord('m-1'), sqsRecord('m-2'), sqsRecord('m-3')] },
      contextOf('request-1'),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    expect(handled.sort()).toEqual(['m-1', 'm-2', 'm-3']);
    const failures = lines.filter((line) => line.message === 'queue message not settled');
    expect(failures).toEqual([expect.objectContaining({ level: 'ERROR', requestId: 'request-1', messageId: 'm-2', receives: 2, errorType: 'ConditionalCheckFailedException' })]);
    expect(JSON.stringify(lines)).not.toContain('ana@acme.example');
  });

  test('a record the handler hands back (DeliverAgain) is a failure the chain does not log again; a whole batch failed is answered, not thrown', async () => {
    const { answer, thrown, lines } = await invoke(
      { queue: { failure: 'queue message not settled', handle: () => Promise.reject(new DeliverAgain()) } },
      { Records: [sqsRecord('m-1'), sqsRecord('m-2')] },
      contextOf('request-2'),
    );

    expect(thrown).toBeUndefined();
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }, { itemIdentifier: 'm-2' }] });
    expect(lines.filter((line) => line.level === 'ERROR' || line.level === 'WARN')).toEqual([]);
  });

  test('a refusal for a request rate is a warning, as the HTTP chain words it', async () => {
    const { answer, lines } = await invoke(
      { queue: { failure: 'queue message not settled', handle: () => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' })) } },
      { Records: [sqsRecord('m-1')] },
      contextOf('request-3'),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(lines.filter((line) => line.level === 'WARN' || line.level === 'ERROR')).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'an AWS service refused for its request rate after the SDK retries', messageId: 'm-1', reason: 'ThrottlingException', requestId: 'request-3' }),
    ]);
  });

  test('one after the other when the trigger says so', async () => {
    let running = 0;
    let peak = 0;
    const handle = async () => {
      peak = Math.max(peak, ++running);
      await sleep(5);
      running -= 1;
    };
    await invoke({ queue: { failure: 'f', handle, inParallel: false } }, { Records: [sqsRecord('a'), sqsRecord('b'), sqsRecord('c')] }, contextOf('r'));
    expect(peak).toBe(1);
    await invoke({ queue: { failure: 'f', handle } }, { Records: [sqsRecord('a'), sqsRecord('b'), sqsRecord('c')] }, contextOf('r'));
    expect(peak).toBe(3);
  });
});

describe('metrics', () => {
  test('are written once per invocation, with its request id and the function as service, whatever its records did', async () => {
    const { lines } = await invoke(
      {
        queue: {
          failure: 'f',
          handle: async (record) => {
            count('MailsSent');
            if (record.messageId === 'm-2') throw new Error('no');
          },
        },
      },
      { Records: [sqsRecord('m-1'), sqsRecord('m-2'), sqsRecord('m-3')] },
      contextOf('request-4'),
    );

    expect(emfLines(lines)).toEqual([expect.objectContaining({ service: 'unit-events', requestId: 'request-4', MailsSent: [1, 1, 1] })]);
  });

  test('are written once when the invocation fails', async () => {
    const { thrown, lines } = await invoke(
      {
        s3: async () => {
          count('BulkJobsFailed');
          throw new Error('the job could not run');
        },
      },
      { Records: [s3Record('uploads/a.csv')] },
      contextOf('request-5'),
    );

    expect(thrown?.message).toBe('the job could not run');
    expect(emfLines(lines)).toEqual([expect.objectContaining({ service: 'unit-events', requestId: 'request-5', BulkJobsFailed: 1 })]);
    expect(lines.filter((line) => line.message === 'unhandled error')).toEqual([expect.objectContaining({ level: 'ERROR', requestId: 'request-5' })]);
  });
});

describe('the time limit', () => {
  test('a handler still running just before it fails the invocation with middy\'s TimeoutError, logged as the HTTP chain logs it', async () => {
    const { thrown, lines } = await invoke({ schedule: () => sleep(1_000) }, { sweep: 'webhooks' }, contextOf('request-6', 60));

    expect(thrown).toMatchObject({ name: 'TimeoutError', cause: { package: '@middy/core' } });
    const logged = lines.filter((line) => line.level === 'ERROR');
    expect(logged).toEqual([expect.objectContaining({ requestId: 'request-6', message: expect.stringContaining("ran out of the function's time") })]);
  });
});

describe('a stream batch', () => {
  const records = Array.from({ length: 25 }, (_, i) => streamRecord(String(100 + i)));

  test('is collected in order and flushed at once; the first record not flushed is reported with every record after it', async () => {
    const flushed: string[][] = [];
    const { answer } = await invoke(
      {
        stream: {
          collect: (record) => record.dynamodb!.SequenceNumber,
          flush: async (values: string[]) => (flushed.push(values), 12),
        },
      },
      { Records: records },
      contextOf('request-7'),
    );

    expect(flushed).toEqual([records.map((record) => record.dynamodb!.SequenceNumber)]);
    expect(answer).toEqual({ batchItemFailures: records.slice(12).map((record) => ({ itemIdentifier: record.dynamodb!.SequenceNumber })) });
  });

  test('stops at a record its handler cannot take: nothing after it is collected, what came before is flushed, and the failure is logged once', async () => {
    const collected: string[] = [];
    const flushed: string[][] = [];
    const { answer, lines } = await invoke(
      {
        stream: {
          collect: (record) => {
            const sequence = record.dynamodb!.SequenceNumber!;
            collected.push(sequence);
            if (sequence === '103') throw new TypeError('unreadable');
            // A record there is nothing to do about counts as done once the records before it are.
            return sequence === '101' ? undefined : sequence;
          },
          flush: async (values: string[]) => (flushed.push(values), values.length),
        },
      },
      { Records: records.slice(0, 6) },
      contextOf('request-8'),
    );

    expect(collected).toEqual(['100', '101', '102', '103']);
    expect(flushed).toEqual([['100', '102']]);
    expect(answer).toEqual({ batchItemFailures: ['103', '104', '105'].map((itemIdentifier) => ({ itemIdentifier })) });
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([
      expect.objectContaining({ message: 'stream record not handled: the stream delivers it again', sequenceNumber: '103', errorType: 'TypeError', requestId: 'request-8' }),
    ]);
  });

  test('a record there is nothing to do about, behind one not flushed, waits for it', async () => {
    const { answer } = await invoke(
      { stream: { collect: (record) => (record.dynamodb!.SequenceNumber === '102' ? undefined : record.dynamodb!.SequenceNumber), flush: async () => 1 } },
      { Records: records.slice(0, 3) },
      contextOf('request-9'),
    );

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '101' }, { itemIdentifier: '102' }] });
  });

  test('a flush that throws fails the whole invocation (the stream splits the batch and retries it)', async () => {
    const { thrown, lines } = await invoke(
      { stream: { collect: (record) => record, flush: () => Promise.reject(Object.assign(new Error('down'), { name: 'InternalException' })) } },
      { Records: records.slice(0, 2) },
      contextOf('request-10'),
    );

    expect(thrown?.name).toBe('InternalException');
    expect(lines.filter((line) => line.message === 'unhandled error')).toHaveLength(1);
  });
});

describe('dispatch', () => {
  test('an event of a trigger the function does not take fails, naming the function and the trigger', async () => {
    const { thrown } = await invoke({ queue: { failure: 'f', handle: async () => undefined } }, { Records: [s3Record('uploads/a.csv')] }, contextOf('r'));
    expect(thrown?.message).toBe('The unit-events function is not started by s3 events');
  });

  test('S3 records run in turn and the invocation answers nothing; no context is needed', async () => {
    const seen: string[] = [];
    const handler = eventFunction('unit-events', { s3: async (record) => void seen.push(record.s3.object.key) });
    await expect(handler({ Records: [s3Record('a'), s3Record('b')] })).resolves.toBeUndefined();
    expect(seen).toEqual(['a', 'b']);
  });
});
