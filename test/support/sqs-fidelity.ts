import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { LOCAL_REGION, localArn } from '../../infra/local/kernel/local-account';
import { createLocalQueues } from '../../infra/local/sqs/queue-endpoint';
import type { LocalQueueSettings } from '../../infra/local/sqs/sqs-model';

/**
 * The checks of the local SQS's fidelity that the stack and its tests rely on, run over the SDK
 * against the project's own emulator or against fauxqs, so the two can be compared
 * (docs/decisions/sqs-and-eventbridge-emulated-in-house.md):
 *
 *   node infra/node/project-node.mjs npx tsx test/support/sqs-fidelity.ts local
 *   node infra/node/project-node.mjs npx tsx test/support/sqs-fidelity.ts fauxqs
 *
 * Prints one line per check (pass or fail, with what was seen). Not run by jest: it measures an
 * emulator the stack does not run for SQS (fauxqs is a dependency for its S3).
 */

const QUEUES: LocalQueueSettings[] = [
  { name: 'work', visibilityTimeoutSeconds: 1, maxReceiveCount: 2, deadLetterQueue: 'work-dlq' },
  { name: 'work-dlq', visibilityTimeoutSeconds: 30 },
  { name: 'plain', visibilityTimeoutSeconds: 1 },
  { name: 'other', visibilityTimeoutSeconds: 1 },
];

interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

type Start = (dir: string) => Promise<Emulator>;

const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

async function startLocal(dir: string): Promise<Emulator> {
  const queues = createLocalQueues(QUEUES, dir);
  await new Promise<void>((resolve) => queues.server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(queues.server.address() as AddressInfo).port}`, stop: () => queues.close() };
}

interface Fauxqs {
  startFauxqs(options: { port: number; logger: boolean; dataDir: string }): Promise<{ port: number; stop(): Promise<void> }>;
}

async function startFauxqs(dir: string): Promise<Emulator> {
  const { startFauxqs: start } = (await import('fauxqs')) as unknown as Fauxqs;
  const server = await start({ port: 0, logger: false, dataDir: dir });
  const endpoint = `http://127.0.0.1:${server.port}`;
  const client = new SQSClient({ endpoint, region: LOCAL_REGION, credentials });
  // CloudFormation's part: the queues made with the template's attributes (dead-letter queues first).
  for (const queue of [...QUEUES].reverse()) {
    const attributes: Record<string, string> = { VisibilityTimeout: String(queue.visibilityTimeoutSeconds) };
    if (queue.deadLetterQueue) attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: localArn('sqs', queue.deadLetterQueue), maxReceiveCount: queue.maxReceiveCount });
    await client.send(new CreateQueueCommand({ QueueName: queue.name, Attributes: attributes }));
  }
  client.destroy();
  return { endpoint, stop: () => server.stop() };
}

const refusal = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: { name: string }) => error.name);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(kind: string, start: Start): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `sqs-fidelity-${kind}-`));
  let emulator = await start(dir);
  let client = new SQSClient({ endpoint: emulator.endpoint, region: LOCAL_REGION, credentials });
  const url = async (name: string) => (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
  const receive = async (name: string, extra: Partial<ConstructorParameters<typeof ReceiveMessageCommand>[0]> = {}) =>
    client.send(new ReceiveMessageCommand({ QueueUrl: await url(name), MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'], ...extra }));
  const counts = async (name: string) => {
    const { Attributes = {} } = await client.send(new GetQueueAttributesCommand({ QueueUrl: await url(name), AttributeNames: ['All'] }));
    return `${Attributes.ApproximateNumberOfMessages}/${Attributes.ApproximateNumberOfMessagesNotVisible}/${Attributes.ApproximateNumberOfMessagesDelayed}`;
  };
  /** Deletes every message of `name`, waiting for those in flight to come back. */
  const drain = async (name: string) => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const { Messages = [] } = await receive(name, { VisibilityTimeout: 30, WaitTimeSeconds: 1 });
      for (const message of Messages) await client.send(new DeleteMessageCommand({ QueueUrl: await url(name), ReceiptHandle: message.ReceiptHandle }));
      if (Messages.length === 0 && (await counts(name)) === '0/0/0') return;
    }
  };

  const checks: [string, () => Promise<string | true>][] = [
    [
      'send, receive with attributes (SDK checks MD5s), delete',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('plain'), MessageBody: '{"welcome":"é✓"}', MessageAttributes: { kind: { DataType: 'String', StringValue: 'welcome' }, blob: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 2]) } } }));
        const [message] = (await receive('plain')).Messages ?? [];
        if (message?.Body !== '{"welcome":"é✓"}' || message.MessageAttributes?.kind?.StringValue !== 'welcome') return `got ${JSON.stringify(message)}`;
        await client.send(new DeleteMessageCommand({ QueueUrl: await url('plain'), ReceiptHandle: message.ReceiptHandle }));
        return (await counts('plain')) === '0/0/0' || `counts ${await counts('plain')}`;
      },
    ],
    [
      'visibility timeout: hidden, back with receive count 2, ChangeMessageVisibility 0 applies',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('plain'), MessageBody: 'again' }));
        const first = (await receive('plain', { VisibilityTimeout: 2 })).Messages![0]!;
        if ((await receive('plain')).Messages) return 'visible while in flight';
        const second = (await receive('plain', { WaitTimeSeconds: 5 })).Messages?.[0];
        if (!second || second.MessageId !== first.MessageId || second.Attributes?.ApproximateReceiveCount !== '2') return `second ${JSON.stringify(second?.Attributes)}`;
        await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: await url('plain'), ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 0 }));
        const third = (await receive('plain')).Messages?.[0];
        await drain('plain');
        return third?.Attributes?.ApproximateReceiveCount === '3' || `third ${JSON.stringify(third?.Attributes)}`;
      },
    ],
    [
      'redrive: received maxReceiveCount times, moved to the dead-letter queue with DeadLetterQueueSourceArn',
      async () => {
        const sent = await client.send(new SendMessageCommand({ QueueUrl: await url('work'), MessageBody: 'poison' }));
        for (let i = 0; i < 2; i++) await receive('work', { VisibilityTimeout: 0 });
        const third = (await receive('work')).Messages;
        const [dead] = (await receive('work-dlq')).Messages ?? [];
        await drain('work-dlq');
        if (third) return 'received a third time';
        return (dead !== undefined && dead.MessageId === sent.MessageId && dead.Attributes?.DeadLetterQueueSourceArn === localArn('sqs', 'work')) || `dead ${JSON.stringify(dead?.Attributes)}`;
      },
    ],
    [
      'batch limits: empty, 11 entries, ids not distinct, invalid id, over 1 MiB',
      async () => {
        const batch = async (entries: { Id: string; MessageBody: string }[]) => refusal(client.send(new SendMessageBatchCommand({ QueueUrl: await url('plain'), Entries: entries })));
        const seen = [
          await batch([]),
          await batch(Array.from({ length: 11 }, (_, i) => ({ Id: `m${i}`, MessageBody: 'x' }))),
          await batch([{ Id: 'same', MessageBody: 'x' }, { Id: 'same', MessageBody: 'y' }]),
          await batch([{ Id: 'not valid!', MessageBody: 'x' }]),
          await batch([{ Id: 'a', MessageBody: 'x'.repeat(600_000) }, { Id: 'b', MessageBody: 'x'.repeat(600_000) }]),
        ];
        const expected = ['EmptyBatchRequest', 'TooManyEntriesInBatchRequest', 'BatchEntryIdsNotDistinct', 'InvalidBatchEntryId', 'BatchRequestTooLong'];
        return JSON.stringify(seen) === JSON.stringify(expected) || `got ${seen.join(', ')}`;
      },
    ],
    [
      'a batch lists the entry SQS refuses alone (invalid character, delay over 900 s)',
      async () => {
        const answer = await client.send(
          new SendMessageBatchCommand({ QueueUrl: await url('plain'), Entries: [{ Id: 'a', MessageBody: 'one' }, { Id: 'b', MessageBody: 'bad \u0000 char' }, { Id: 'c', MessageBody: 'three', DelaySeconds: 901 }] }),
        );
        await drain('plain');
        const failed = (answer.Failed ?? []).map((entry) => `${entry.Id}:${entry.Code}`).join(',');
        return (failed === 'b:InvalidMessageContents,c:InvalidParameterValue' && answer.Successful?.length === 1) || `failed ${failed}`;
      },
    ],
    [
      'error codes: too large, empty body, bad receive arguments, unknown queue, bad receipt handle, bad attribute name',
      async () => {
        const plain = await url('plain');
        const seen = [
          await refusal(client.send(new SendMessageCommand({ QueueUrl: plain, MessageBody: 'x'.repeat(1_048_577) }))),
          await refusal(client.send(new SendMessageCommand({ QueueUrl: plain, MessageBody: '' }))),
          await refusal(client.send(new SendMessageCommand({ QueueUrl: plain, MessageBody: 'a \uFFFE b' }))),
          await refusal(receive('plain', { MaxNumberOfMessages: 11 })),
          await refusal(receive('plain', { WaitTimeSeconds: 21 })),
          await refusal(client.send(new GetQueueUrlCommand({ QueueName: 'nowhere' }))),
          await refusal(client.send(new DeleteMessageCommand({ QueueUrl: plain, ReceiptHandle: 'not-a-handle' }))),
          await refusal(client.send(new GetQueueAttributesCommand({ QueueUrl: plain, AttributeNames: ['Colour' as 'All'] }))),
        ];
        const expected = ['InvalidParameterValue', 'MissingParameter', 'InvalidMessageContents', 'InvalidParameterValue', 'InvalidParameterValue', 'QueueDoesNotExist', 'ReceiptHandleIsInvalid', 'InvalidAttributeName'];
        const wrong = seen.map((name, i) => (name === expected[i] ? '' : `#${i} ${name} (SQS: ${expected[i]})`)).filter(Boolean);
        return wrong.length === 0 || wrong.join('; ');
      },
    ],
    [
      'a receipt handle of another queue is refused there',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'mine' }));
        const [message] = (await receive('other')).Messages!;
        const seen = await refusal(client.send(new DeleteMessageCommand({ QueueUrl: await url('plain'), ReceiptHandle: message!.ReceiptHandle })));
        await drain('other');
        return seen === 'ReceiptHandleIsInvalid' || `got ${seen}`;
      },
    ],
    [
      'long polling: answers as a message arrives, empty after its wait',
      async () => {
        const started = Date.now();
        const polling = receive('other', { WaitTimeSeconds: 10 });
        await sleep(300);
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'arrived' }));
        const { Messages = [] } = await polling;
        const took = Date.now() - started;
        await drain('other');
        const empty = Date.now();
        const none = (await receive('other', { WaitTimeSeconds: 1 })).Messages;
        const waited = Date.now() - empty;
        return (Messages.length === 1 && took < 5_000 && !none && waited >= 900) || `arrived after ${took} ms, empty after ${waited} ms`;
      },
    ],
    [
      'delay: counted as delayed, then visible',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'later', DelaySeconds: 1 }));
        const delayed = await counts('other');
        const later = (await receive('other', { WaitTimeSeconds: 3 })).Messages ?? [];
        await drain('other');
        return (delayed === '0/0/1' && later.length === 1) || `counts ${delayed}, then ${later.length}`;
      },
    ],
    [
      'the settle seam: GET /_local/queues/<name>/settled',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'to settle' }));
        const waiting = fetch(`${emulator.endpoint}/_local/queues/other/settled?timeoutMs=5000`).then(async (response) => `${response.status} ${await response.text()}`);
        await drain('other');
        const answer = await waiting;
        return answer.startsWith('200 {"settled":true') || `answered ${answer.slice(0, 80)}`;
      },
    ],
    [
      'restart: every message not deleted kept, in-flight ones with their receive count',
      async () => {
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'kept' }));
        await client.send(new SendMessageCommand({ QueueUrl: await url('other'), MessageBody: 'deleted' }));
        const taken = (await receive('other', { VisibilityTimeout: 1 })).Messages!;
        await client.send(new DeleteMessageCommand({ QueueUrl: await url('other'), ReceiptHandle: taken.find((m) => m.Body === 'deleted')!.ReceiptHandle }));
        client.destroy();
        await emulator.stop();
        emulator = await start(dir);
        client = new SQSClient({ endpoint: emulator.endpoint, region: LOCAL_REGION, credentials });
        const after = (await receive('other', { WaitTimeSeconds: 3 })).Messages ?? [];
        await drain('other');
        const seen = after.map((m) => `${m.Body}:${m.Attributes?.ApproximateReceiveCount}`).join(',');
        return seen === 'kept:2' || `after the restart: ${seen}`;
      },
    ],
  ];

  for (const [name, check] of checks) {
    const outcome = await Promise.race([check(), sleep(30_000).then(() => 'no answer within 30 s')]).catch((error: Error) => `threw ${error.name}: ${error.message.slice(0, 100)}`);
    console.log(`${kind}\t${outcome === true ? 'pass' : 'FAIL'}\t${name}${outcome === true ? '' : `: ${outcome}`}`);
  }
  client.destroy();
  await emulator.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** kill -9 of the emulator's process after 50 messages were answered and one deleted: 49 must be there after a restart. */
async function killNine(kind: string, start: Start): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `sqs-fidelity-kill-${kind}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', process.argv[1]!, `serve-${kind}`, dir], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  let outcome: string | true;
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim()));
      child.once('exit', () => reject(new Error('the emulator process ended before listening')));
    });
    let client = new SQSClient({ endpoint, region: LOCAL_REGION, credentials });
    const queueUrl = (await client.send(new GetQueueUrlCommand({ QueueName: 'other' }))).QueueUrl!;
    for (let batch = 0; batch < 5; batch++) {
      await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `body ${batch}-${i}` })) }));
    }
    const taken = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: taken.Messages![0]!.ReceiptHandle }));
    client.destroy();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const emulator = await start(dir);
    client = new SQSClient({ endpoint: emulator.endpoint, region: LOCAL_REGION, credentials });
    const { Attributes = {} } = await client.send(new GetQueueAttributesCommand({ QueueUrl: (await client.send(new GetQueueUrlCommand({ QueueName: 'other' }))).QueueUrl!, AttributeNames: ['All'] }));
    const total = Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
    outcome = total === 49 || `${total} messages after the kill`;
    client.destroy();
    await emulator.stop();
  } catch (error) {
    outcome = `threw ${(error as Error).message}`;
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${kind}\t${outcome === true ? 'pass' : 'FAIL'}\tkill -9: every message answered before it is there after a restart${outcome === true ? '' : `: ${outcome}`}`);
}

const starts: Record<string, Start> = { local: startLocal, fauxqs: startFauxqs };
const [mode = 'local', dir] = process.argv.slice(2);
if (mode.startsWith('serve-')) {
  const emulator = await starts[mode.slice('serve-'.length)]!(dir!);
  console.log(emulator.endpoint);
} else {
  await run(mode, starts[mode]!);
  await killNine(mode, starts[mode]!);
}
