import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createLocalQueues, type LocalQueues } from '../../infra/local/sqs/queue-endpoint';
import { startQueuePoller, type QueuePoller } from '../../infra/local/queue-poller';

/** The local SQS event source mapping delivers, deletes and redelivers as Lambda's does with ReportBatchItemFailures. */

let dir: string;
let queues: LocalQueues;
let client: SQSClient;
let baseUrl: string;
const logs: Record<string, unknown>[] = [];
const pollers: QueuePoller[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-sqs-poller-'));
  queues = createLocalQueues(
    [
      { name: 'partial', visibilityTimeoutSeconds: 1 },
      { name: 'throwing', visibilityTimeoutSeconds: 1 },
      { name: 'poison', visibilityTimeoutSeconds: 1, maxReceiveCount: 2, deadLetterQueue: 'poison-dlq' },
      { name: 'poison-dlq', visibilityTimeoutSeconds: 30 },
      // One queue a test: a long poll cut by a poller's stop may still take the next message sent, as in SQS.
      { name: 'shape', visibilityTimeoutSeconds: 1 },
      { name: 'slow', visibilityTimeoutSeconds: 5 },
      { name: 'late', visibilityTimeoutSeconds: 1 },
      { name: 'unknown-id', visibilityTimeoutSeconds: 1 },
      { name: 'parallel', visibilityTimeoutSeconds: 5 },
    ],
    dir,
  );
  await new Promise<void>((resolve) => queues.server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(queues.server.address() as AddressInfo).port}`;
  client = new SQSClient({ endpoint: baseUrl, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

afterAll(async () => {
  client.destroy();
  await queues.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(queue: string, handler: (event: SQSEvent) => Promise<unknown>, timeoutMs?: number, more: { batchSize?: number; concurrency?: number } = {}): void {
  pollers.push(
    startQueuePoller({
      ...(timeoutMs ? { timeoutMs } : {}),
      ...more,
      queueUrl: queues.queueUrl(queue, baseUrl),
      endpoint: baseUrl,
      functionName: 'publisher',
      handler: handler as never,
      log: (record) => logs.push(record),
    }),
  );
}

const send = (queue: string, bodies: string[]) =>
  client.send(new SendMessageBatchCommand({ QueueUrl: queues.queueUrl(queue, baseUrl), Entries: bodies.map((body, i) => ({ Id: `e${i}`, MessageBody: body })) }));

test('a partial batch failure brings back only the failed messages; the others are deleted', async () => {
  const deliveries: [string, string][] = [];
  start('partial', async (event) => {
    for (const record of event.Records) deliveries.push([record.body, record.attributes.ApproximateReceiveCount]);
    const failed = event.Records.filter((record) => record.body === 'fails once' && record.attributes.ApproximateReceiveCount === '1');
    return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
  });
  await send('partial', ['ok 1', 'fails once', 'ok 2']);
  expect(await queues.settled('partial', 5_000)).toBe(true);
  expect(deliveries.sort()).toEqual([
    ['fails once', '1'],
    ['fails once', '2'],
    ['ok 1', '1'],
    ['ok 2', '1'],
  ]);
  expect(logs.some((line) => line.function === 'publisher' && line.failed === 1)).toBe(true);
});

test('the event carries what Lambda hands the function', async () => {
  let record: SQSRecord | undefined;
  start('shape', async (event) => {
    record = event.Records[0];
  });
  await client.send(
    new SendMessageCommand({ QueueUrl: queues.queueUrl('shape', baseUrl), MessageBody: 'shape', MessageAttributes: { kind: { DataType: 'String', StringValue: 'welcome' } } }),
  );
  expect(await queues.settled('shape', 5_000)).toBe(true);
  expect(record).toMatchObject({
    body: 'shape',
    md5OfBody: createHash('md5').update('shape').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:shape',
    awsRegion: 'us-east-1',
    attributes: { ApproximateReceiveCount: '1', SenderId: '000000000000' },
    messageAttributes: { kind: { dataType: 'String', stringValue: 'welcome', stringListValues: [], binaryListValues: [] } },
  });
  expect(typeof record!.receiptHandle).toBe('string');
  expect(typeof record!.attributes.SentTimestamp).toBe('string');
});

test('a throwing handler deletes nothing: the whole batch comes back', async () => {
  const seen: string[] = [];
  start('throwing', async (event) => {
    seen.push(...event.Records.map((record) => `${record.body}#${record.attributes.ApproximateReceiveCount}`));
    if (event.Records.some((record) => record.attributes.ApproximateReceiveCount === '1')) throw new Error('down');
  });
  await send('throwing', ['a', 'b']);
  expect(await queues.settled('throwing', 6_000)).toBe(true);
  expect(seen.sort()).toEqual(['a#1', 'a#2', 'b#1', 'b#2']);
  expect(logs.some((line) => line.function === 'publisher' && line.errorType === 'Error' && line.batchSize === 2)).toBe(true);
});

test('an invocation past its timeout deletes nothing, even if the handler ends well later', async () => {
  const counts: string[] = [];
  start(
    'late',
    async (event) => {
      const count = event.Records[0]!.attributes.ApproximateReceiveCount;
      counts.push(count);
      if (count === '1') await new Promise((resolve) => setTimeout(resolve, 600));
    },
    300,
  );
  await send('late', ['late']);
  expect(await queues.settled('late', 6_000)).toBe(true);
  expect(counts).toEqual(['1', '2']);
  expect(logs.some((line) => line.errorType === 'Sandbox.Timedout')).toBe(true);
});

test('a batch response naming a message not in the batch fails the whole batch, as in Lambda', async () => {
  const counts: string[] = [];
  start('unknown-id', async (event) => {
    counts.push(...event.Records.map((record) => record.attributes.ApproximateReceiveCount));
    if (counts.length === 1) return { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] };
    return { batchItemFailures: [] };
  });
  await send('unknown-id', ['one']);
  expect(await queues.settled('unknown-id', 6_000)).toBe(true);
  expect(counts).toEqual(['1', '2']);
});

test('a message failing maxReceiveCount times reaches the dead-letter queue; stop waits for the invocation in progress', async () => {
  let attempts = 0;
  start('poison', async () => {
    attempts++;
    throw new Error('always');
  });
  await send('poison', ['never handled']);
  expect(await queues.settled('poison', 8_000)).toBe(true);
  expect(attempts).toBe(2);
  expect(queues.counts('poison-dlq')).toEqual({ visible: 1, inFlight: 0, delayed: 0 });
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));

  let finished = false;
  start('slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    finished = true;
  });
  await send('slow', ['slow']);
  while (queues.counts('slow').inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await pollers.pop()!.stop();
  expect(finished).toBe(true);
  expect(queues.counts('slow')).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
});

test('batchSize caps each invocation and concurrency runs that many invocations at once', async () => {
  let running = 0;
  let mostAtOnce = 0;
  const sizes: number[] = [];
  start(
    'parallel',
    async (event) => {
      sizes.push(event.Records.length);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await new Promise((resolve) => setTimeout(resolve, 300));
      running--;
    },
    undefined,
    { batchSize: 2, concurrency: 3 },
  );
  await send('parallel', ['1', '2', '3', '4', '5', '6']);
  expect(await queues.settled('parallel', 8_000)).toBe(true);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
  expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(6);
  expect(mostAtOnce).toBeGreaterThan(1);
  expect(mostAtOnce).toBeLessThanOrEqual(3);
});
