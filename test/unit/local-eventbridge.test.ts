import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { createLocalEventBridge, type LocalEventBridge } from '../../infra/local/eventbridge-endpoint';

/** The local EventBridge refuses what PutEvents refuses, through the SDK the `publisher` function uses. */

const BUS = 'local-test-bus';
let dir: string;
let bus: LocalEventBridge;
let client: EventBridgeClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-bus-'));
  bus = createLocalEventBridge(BUS, join(dir, 'eventbridge.jsonl'));
  await new Promise<void>((resolve) => bus.server.listen(0, '127.0.0.1', resolve));
  const { port } = bus.server.address() as AddressInfo;
  client = new EventBridgeClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

afterAll(async () => {
  client.destroy();
  await new Promise((resolve) => bus.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const entry = (overrides: Partial<PutEventsRequestEntry> = {}): PutEventsRequestEntry => ({
  EventBusName: BUS,
  Source: 'com.example',
  DetailType: 'com.example.thing.done',
  Detail: JSON.stringify({ id: 'one' }),
  ...overrides,
});

test('accepted entries get an id each and are kept, in order, with their detail', async () => {
  const answer = await client.send(new PutEventsCommand({ Entries: [entry(), entry({ Detail: JSON.stringify({ id: 'two' }) })] }));
  expect(answer.FailedEntryCount).toBe(0);
  expect(answer.Entries!.map((e) => typeof e.EventId)).toEqual(['string', 'string']);
  expect(bus.received().slice(-2).map((event) => event.detail)).toEqual([{ id: 'one' }, { id: 'two' }]);
});

test('more than 10 entries, or none, is a ValidationException for the whole call', async () => {
  await expect(client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry()) }))).rejects.toMatchObject({ name: 'ValidationException' });
  await expect(client.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({ name: 'ValidationException' });
});

test('a call over 256 KB is refused whole; an entry missing a field, with a detail that is no JSON object, or for another bus is refused alone', async () => {
  const big = JSON.stringify({ text: 'x'.repeat(140 * 1024) });
  await expect(client.send(new PutEventsCommand({ Entries: [entry({ Detail: big }), entry({ Detail: big })] }))).rejects.toMatchObject({ name: 'ValidationException' });
  const before = bus.received().length;
  const answer = await client.send(
    new PutEventsCommand({
      Entries: [entry({ Source: undefined }), entry({ DetailType: undefined }), entry({ Detail: '[1]' }), entry({ EventBusName: 'other' }), entry()],
    }),
  );
  expect(answer.FailedEntryCount).toBe(4);
  expect(answer.Entries!.map((e) => e.ErrorCode ?? 'ok')).toEqual(['InvalidArgument', 'InvalidArgument', 'MalformedDetail', 'ResourceNotFoundException', 'ok']);
  expect(bus.received().length).toBe(before + 1);
});
