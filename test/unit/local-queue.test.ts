import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { messageAttributesMd5 } from '../../infra/local/sqs/message-checks';
import { createLocalQueues, type LocalQueues } from '../../infra/local/sqs/queue-endpoint';
import { SQS_MAX_MESSAGE_BYTES, type LocalQueueSettings } from '../../infra/local/sqs/sqs-model';

/** The local SQS answers what `@aws-sdk/client-sqs` sends as SQS does, refuses what SQS refuses, and keeps what it accepted. */

const SETTINGS: LocalQueueSettings[] = [
  { name: 'work', visibilityTimeoutSeconds: 1, maxReceiveCount: 2, deadLetterQueue: 'work-dlq' },
  { name: 'work-dlq', visibilityTimeoutSeconds: 30 },
  { name: 'plain', visibilityTimeoutSeconds: 1 },
  { name: 'other', visibilityTimeoutSeconds: 1 },
];

let dir: string;
let queues: LocalQueues;
let client: SQSClient;
let baseUrl: string;
const url = (name: string) => queues.queueUrl(name, baseUrl);

async function open(): Promise<void> {
  queues = createLocalQueues(SETTINGS, dir);
  await new Promise<void>((resolve) => queues.server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(queues.server.address() as AddressInfo).port}`;
  client?.destroy();
  client = new SQSClient({ endpoint: baseUrl, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-sqs-'));
  await open();
});

afterAll(async () => {
  client.destroy();
  await queues.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Receives from `name` until it is empty, deleting everything, so each test starts from an empty queue. */
async function drain(name: string): Promise<void> {
  for (;;) {
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: url(name), MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
    if (Messages.length === 0) return;
    await client.send(new DeleteMessageBatchCommand({ QueueUrl: url(name), Entries: Messages.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle! })) }));
  }
}

const receive = (name: string, extra: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {}) =>
  client.send(new ReceiveMessageCommand({ QueueUrl: url(name), MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'], ...extra }));

test('a message sent is received with its attributes and deleted, the SDK checking every MD5', async () => {
  const sent = await client.send(
    new SendMessageCommand({
      QueueUrl: url('plain'),
      MessageBody: '{"welcome":"é✓"}',
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'welcome' }, tries: { DataType: 'Number', StringValue: '3' }, blob: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 2]) } },
    }),
  );
  expect(sent.MD5OfMessageAttributes).toBe(
    messageAttributesMd5({ kind: { DataType: 'String', StringValue: 'welcome' }, tries: { DataType: 'Number', StringValue: '3' }, blob: { DataType: 'Binary', BinaryValue: 'AAEC' } }),
  );
  const { Messages = [] } = await receive('plain');
  expect(Messages).toHaveLength(1);
  const [message] = Messages;
  expect(message!.MessageId).toBe(sent.MessageId);
  expect(message!.Body).toBe('{"welcome":"é✓"}');
  expect(message!.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
  expect(message!.MessageAttributes!.kind!.StringValue).toBe('welcome');
  expect([...message!.MessageAttributes!.blob!.BinaryValue!]).toEqual([0, 1, 2]);
  expect(message!.Attributes).toMatchObject({ ApproximateReceiveCount: '1', SenderId: '000000000000' });
  expect(Number(message!.Attributes!.SentTimestamp)).toBeLessThanOrEqual(Number(message!.Attributes!.ApproximateFirstReceiveTimestamp));
  expect(queues.counts('plain')).toEqual({ visible: 0, inFlight: 1, delayed: 0 });
  await client.send(new DeleteMessageCommand({ QueueUrl: url('plain'), ReceiptHandle: message!.ReceiptHandle }));
  expect(queues.counts('plain')).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
});

test('the attributes MD5 matches the values other SQS implementations were checked against', () => {
  // Vectors published by LocalStack's and sqslite's tests and a Node checksum module's, each computed against SQS.
  expect(messageAttributesMd5({ timestamp: { DataType: 'Number', StringValue: '1493147359900' } })).toBe('235c5c510d26fb653d073faed50ae77c');
  expect(messageAttributesMd5({ ordinal: { DataType: 'Number', StringValue: '1' }, category: { DataType: 'String', StringValue: 'test' } })).toBe('d21ae90c49061e927f57df5f5d72be1f');
  expect(messageAttributesMd5({ SellerName: { DataType: 'String', StringValue: 'Example Store' } })).toBe('cd28f3b68aeee4b2eac9c66f2f694b58');
});

test('SendMessageBatch sends each entry and lists the one SQS refuses alone', async () => {
  const answer = await client.send(
    new SendMessageBatchCommand({
      QueueUrl: url('plain'),
      Entries: [
        { Id: 'a', MessageBody: 'one' },
        { Id: 'b', MessageBody: 'bad \u0000 char' },
        { Id: 'c', MessageBody: 'three', DelaySeconds: 901 },
      ],
    }),
  );
  expect(answer.Successful!.map((entry) => entry.Id)).toEqual(['a']);
  expect(answer.Failed!.map((entry) => [entry.Id, entry.Code, entry.SenderFault])).toEqual([
    ['b', 'InvalidMessageContents', true],
    ['c', 'InvalidParameterValue', true],
  ]);
  expect(queues.counts('plain').visible).toBe(1);
  await drain('plain');
});

test('every refusal carries SQS code and changes nothing', async () => {
  const before = queues.counts('plain');
  const refusal = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: { name: string }) => error.name);
  const body = (n: number) => 'x'.repeat(n);
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: body(SQS_MAX_MESSAGE_BYTES + 1) })))).toBe('InvalidParameterValue');
  expect(
    await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: body(SQS_MAX_MESSAGE_BYTES - 5), MessageAttributes: { k: { DataType: 'String', StringValue: 'long' } } }))),
  ).toBe('InvalidParameterValue');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: 'a \uFFFE b' })))).toBe('InvalidMessageContents');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: 'lone \uD800 surrogate' })))).toBe('InvalidMessageContents');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: '' })))).toBe('MissingParameter');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: 'x', DelaySeconds: 901 })))).toBe('InvalidParameterValue');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: 'x', MessageAttributes: { 'AWS.x': { DataType: 'String', StringValue: 'v' } } })))).toBe(
    'InvalidParameterValue',
  );
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: `${baseUrl}/000000000000/nowhere`, MessageBody: 'x' })))).toBe('QueueDoesNotExist');
  expect(await refusal(client.send(new SendMessageCommand({ QueueUrl: `${baseUrl}/123456789012/plain`, MessageBody: 'x' })))).toBe('QueueDoesNotExist');
  expect(await refusal(client.send(new GetQueueUrlCommand({ QueueName: 'nowhere' })))).toBe('QueueDoesNotExist');

  const batch = (entries: { Id: string; MessageBody: string }[]) => refusal(client.send(new SendMessageBatchCommand({ QueueUrl: url('plain'), Entries: entries })));
  expect(await batch([])).toBe('EmptyBatchRequest');
  expect(await batch(Array.from({ length: 11 }, (_, i) => ({ Id: `m${i}`, MessageBody: 'x' })))).toBe('TooManyEntriesInBatchRequest');
  expect(await batch([{ Id: 'same', MessageBody: 'x' }, { Id: 'same', MessageBody: 'y' }])).toBe('BatchEntryIdsNotDistinct');
  expect(await batch([{ Id: 'not valid!', MessageBody: 'x' }])).toBe('InvalidBatchEntryId');
  expect(await batch([{ Id: 'x'.repeat(81), MessageBody: 'x' }])).toBe('InvalidBatchEntryId');
  expect(await batch([{ Id: 'a', MessageBody: body(600_000) }, { Id: 'b', MessageBody: body(600_000) }])).toBe('BatchRequestTooLong');
  expect(await refusal(client.send(new DeleteMessageBatchCommand({ QueueUrl: url('plain'), Entries: [] })))).toBe('EmptyBatchRequest');

  expect(await refusal(receive('plain', { MaxNumberOfMessages: 11 }))).toBe('InvalidParameterValue');
  expect(await refusal(receive('plain', { MaxNumberOfMessages: 0 }))).toBe('InvalidParameterValue');
  expect(await refusal(receive('plain', { WaitTimeSeconds: 21 }))).toBe('InvalidParameterValue');
  expect(await refusal(receive('plain', { VisibilityTimeout: 43_201 }))).toBe('InvalidParameterValue');
  expect(await refusal(client.send(new DeleteMessageCommand({ QueueUrl: url('plain'), ReceiptHandle: 'not-a-handle' })))).toBe('ReceiptHandleIsInvalid');
  expect(await refusal(client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url('plain'), ReceiptHandle: 'nope', VisibilityTimeout: 5 })))).toBe('ReceiptHandleIsInvalid');
  expect(await refusal(client.send(new GetQueueAttributesCommand({ QueueUrl: url('plain'), AttributeNames: ['Colour' as 'All'] })))).toBe('InvalidAttributeName');
  expect(queues.counts('plain')).toEqual(before);
});

test('a receipt handle of another queue is invalid there; one of a deleted message deletes nothing and succeeds', async () => {
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'mine' }));
  const [message] = (await receive('other')).Messages!;
  await expect(client.send(new DeleteMessageCommand({ QueueUrl: url('plain'), ReceiptHandle: message!.ReceiptHandle }))).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: message!.ReceiptHandle }));
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: message!.ReceiptHandle }));
  const batch = await client.send(new DeleteMessageBatchCommand({ QueueUrl: url('other'), Entries: [{ Id: 'gone', ReceiptHandle: message!.ReceiptHandle }, { Id: 'bad', ReceiptHandle: 'junk' }] }));
  expect(batch.Successful!.map((entry) => entry.Id)).toEqual(['gone']);
  expect(batch.Failed!.map((entry) => [entry.Id, entry.Code])).toEqual([['bad', 'ReceiptHandleIsInvalid']]);
});

test('a long poll answers as soon as a message arrives, and an empty one after its wait', async () => {
  const started = Date.now();
  const polling = receive('other', { WaitTimeSeconds: 10 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'arrived' }));
  const { Messages = [] } = await polling;
  expect(Messages.map((m) => m.Body)).toEqual(['arrived']);
  expect(Date.now() - started).toBeLessThan(5_000);
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: Messages[0]!.ReceiptHandle }));

  const empty = Date.now();
  expect((await receive('other', { WaitTimeSeconds: 1 })).Messages).toBeUndefined();
  expect(Date.now() - empty).toBeGreaterThanOrEqual(900);
});

test('a delayed message is counted as delayed, then visible', async () => {
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'later', DelaySeconds: 1 }));
  expect(queues.counts('other')).toEqual({ visible: 0, inFlight: 0, delayed: 1 });
  expect((await receive('other')).Messages).toBeUndefined();
  const { Messages = [] } = await receive('other', { WaitTimeSeconds: 3 });
  expect(Messages.map((m) => m.Body)).toEqual(['later']);
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: Messages[0]!.ReceiptHandle }));
});

test('an undeleted message comes back after its visibility timeout with a higher receive count; a changed timeout applies', async () => {
  await client.send(new SendMessageCommand({ QueueUrl: url('plain'), MessageBody: 'again' }));
  // 2 s rather than the queue's 1 s, so that a loaded machine does not see it back before the second look.
  const first = (await receive('plain', { VisibilityTimeout: 2 })).Messages![0]!;
  expect(first.Attributes!.ApproximateReceiveCount).toBe('1');
  expect((await receive('plain')).Messages).toBeUndefined();
  const second = (await receive('plain', { WaitTimeSeconds: 5 })).Messages![0]!;
  expect(second.MessageId).toBe(first.MessageId);
  expect(second.Attributes!.ApproximateReceiveCount).toBe('2');
  expect(second.Attributes!.ApproximateFirstReceiveTimestamp).toBe(first.Attributes!.ApproximateFirstReceiveTimestamp);

  await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url('plain'), ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 0 }));
  const third = (await receive('plain')).Messages![0]!;
  expect(third.Attributes!.ApproximateReceiveCount).toBe('3');
  await client.send(new DeleteMessageCommand({ QueueUrl: url('plain'), ReceiptHandle: third.ReceiptHandle }));
  await expect(client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url('plain'), ReceiptHandle: third.ReceiptHandle, VisibilityTimeout: 5 }))).rejects.toMatchObject({
    name: 'InvalidParameterValue',
  });
});

test('a message received maxReceiveCount times moves to the dead-letter queue on the next receive', async () => {
  const sent = await client.send(new SendMessageCommand({ QueueUrl: url('work'), MessageBody: 'poison' }));
  for (const count of ['1', '2']) {
    const [message] = (await receive('work', { VisibilityTimeout: 0 })).Messages!;
    expect(message!.Attributes!.ApproximateReceiveCount).toBe(count);
  }
  expect((await receive('work')).Messages).toBeUndefined();
  expect(queues.counts('work')).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  const [dead] = (await receive('work-dlq')).Messages!;
  expect(dead!.MessageId).toBe(sent.MessageId);
  expect(dead!.Body).toBe('poison');
  expect(dead!.Attributes!.DeadLetterQueueSourceArn).toBe('arn:aws:sqs:us-east-1:000000000000:work');
  await client.send(new DeleteMessageCommand({ QueueUrl: url('work-dlq'), ReceiptHandle: dead!.ReceiptHandle }));
});

test('GetQueueUrl and GetQueueAttributes name the queue, its counts and its redrive policy', async () => {
  expect((await client.send(new GetQueueUrlCommand({ QueueName: 'work' }))).QueueUrl).toBe(url('work'));
  await client.send(new SendMessageBatchCommand({ QueueUrl: url('work'), Entries: [{ Id: 'a', MessageBody: 'a' }, { Id: 'b', MessageBody: 'b' }, { Id: 'c', MessageBody: 'c', DelaySeconds: 60 }] }));
  await receive('work', { MaxNumberOfMessages: 1 });
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url('work'), AttributeNames: ['All'] }));
  expect(Attributes).toMatchObject({
    ApproximateNumberOfMessages: '1',
    ApproximateNumberOfMessagesNotVisible: '1',
    ApproximateNumberOfMessagesDelayed: '1',
    QueueArn: 'arn:aws:sqs:us-east-1:000000000000:work',
    VisibilityTimeout: '1',
    MaximumMessageSize: String(SQS_MAX_MESSAGE_BYTES),
    SqsManagedSseEnabled: 'true',
  });
  expect(JSON.parse(Attributes!.RedrivePolicy!)).toEqual({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:work-dlq', maxReceiveCount: 2 });
});

test('settled waits until every message sent before it is deleted, over HTTP too', async () => {
  await drain('other');
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'to settle' }));
  expect(await queues.settled('other', 100)).toBe(false);
  const waiting = fetch(`${baseUrl}/_local/queues/other/settled?timeoutMs=5000`).then((response) => response.json() as Promise<{ settled: boolean; counts: unknown }>);
  const [message] = (await receive('other')).Messages!;
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: message!.ReceiptHandle }));
  expect(await waiting).toEqual({ settled: true, counts: { visible: 0, inFlight: 0, delayed: 0 } });
  expect((await fetch(`${baseUrl}/_local/queues/nowhere/settled`)).status).toBe(404);
});

test('a restart keeps every message not deleted, in-flight ones visible again, and drops a line cut short', async () => {
  await drain('other');
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'kept' }));
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'in flight' }));
  await client.send(new SendMessageCommand({ QueueUrl: url('other'), MessageBody: 'deleted' }));
  const taken = (await receive('other', { VisibilityTimeout: 600 })).Messages!;
  const deleted = taken.find((m) => m.Body === 'deleted')!;
  await client.send(new DeleteMessageCommand({ QueueUrl: url('other'), ReceiptHandle: deleted.ReceiptHandle }));
  await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: url('other'), ReceiptHandle: taken.find((m) => m.Body === 'kept')!.ReceiptHandle, VisibilityTimeout: 0 }));
  await queues.close();
  // A kill in the middle of a write leaves the last line cut short.
  const journal = join(dir, 'other.jsonl');
  appendFileSync(journal, '{"op":"send","message":{"id":"cut","bo');
  await open();
  expect(queues.counts('other')).toEqual({ visible: 2, inFlight: 0, delayed: 0 });
  const bodies = (await receive('other')).Messages!.map((m) => [m.Body, m.Attributes!.ApproximateReceiveCount]);
  expect(bodies.sort()).toEqual([
    ['in flight', '2'],
    ['kept', '2'],
  ]);
  // Compacted on start: one line per message left, the cut line gone.
  expect(readFileSync(journal, 'utf8').split('\n').filter(Boolean).length).toBeLessThan(10);
  expect(readFileSync(journal, 'utf8')).not.toContain('"cut"');
  await drain('other');
});

test('a configuration SQS could not have is refused at creation', () => {
  const other = mkdtempSync(join(tmpdir(), 'local-sqs-bad-'));
  try {
    expect(() => createLocalQueues([{ name: 'a', visibilityTimeoutSeconds: 1, maxReceiveCount: 3, deadLetterQueue: 'missing' }], other)).toThrow(/dead-letter queue "missing"/);
    expect(() => createLocalQueues([{ name: 'a', visibilityTimeoutSeconds: 50_000 }], other)).toThrow(/visibilityTimeoutSeconds/);
    expect(() => createLocalQueues([{ name: 'a b', visibilityTimeoutSeconds: 1 }], other)).toThrow(/queue name/);
    writeFileSync(join(other, 'unused'), '');
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('a refusal has the JSON protocol shape: __type, message and the query error header', async () => {
  const response = await fetch(baseUrl, {
    method: 'POST',
    headers: { 'x-amz-target': 'AmazonSQS.SendMessage', 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ QueueUrl: `${baseUrl}/000000000000/nowhere`, MessageBody: 'x' }),
  });
  expect(response.status).toBe(400);
  expect(response.headers.get('x-amzn-query-error')).toBe('AWS.SimpleQueueService.NonExistentQueue;Sender');
  expect(await response.json()).toEqual({ __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' });
});

test('every message answered before a kill -9 is there after it', async () => {
  const killedDir = mkdtempSync(join(tmpdir(), 'local-sqs-kill-'));
  // The endpoint in a process of its own, so that it can die without a chance to write anything more.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const { createLocalQueues } = require('./infra/local/sqs/queue-endpoint.ts');
       const queues = createLocalQueues([{ name: 'killed', visibilityTimeoutSeconds: 30 }], ${JSON.stringify(killedDir)});
       queues.server.listen(0, '127.0.0.1', () => console.log(queues.server.address().port));`,
    ],
    { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim()));
      child.once('exit', () => reject(new Error('the endpoint process ended before listening')));
    });
    const childUrl = `http://127.0.0.1:${port}`;
    const childClient = new SQSClient({ endpoint: childUrl, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const queueUrl = `${childUrl}/000000000000/killed`;
    const sent: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const answer = await childClient.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `body ${batch}-${i}` })) }));
      sent.push(...answer.Successful!.map((entry) => entry.MessageId!));
    }
    const taken = await childClient.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    await childClient.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: taken.Messages![0]!.ReceiptHandle }));
    childClient.destroy();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const reopened = createLocalQueues([{ name: 'killed', visibilityTimeoutSeconds: 30 }], killedDir);
    expect(reopened.counts('killed')).toEqual({ visible: sent.length - 1, inFlight: 0, delayed: 0 });
    await reopened.close();
  } finally {
    child.kill('SIGKILL');
    rmSync(killedDir, { recursive: true, force: true });
  }
});
