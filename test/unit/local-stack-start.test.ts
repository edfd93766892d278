import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Email } from 'aws-ses-v2-local/dist/store';
import { createGateway, type LambdaHandler } from '../../infra/local/gateway';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../infra/local/data-dir-lock';
import { keepMailboxIn, readMailbox } from '../../infra/local/ses-mailbox';
import { Teardown } from '../../infra/local/kernel/teardown';
import { defaultSubpaths, resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { tempDirs } from '../support/temp-dirs';

// The local stack's start-up parts, without the emulators: the gateway while starting, the data
// directory's lock, the file that keeps the SES emulator's mailbox, and the teardown list.

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});
const tempDir = tempDirs('local-stack-start-');

describe('the gateway while the stack starts', () => {
  test('answers 503 with Retry-After and the standard error body, without invoking, until ready', async () => {
    let ready = false;
    let invoked = 0;
    const handler: LambdaHandler = async () => {
      invoked++;
      return { statusCode: 200, body: 'served' };
    };
    const handlers = Object.fromEntries(resourceGroups.map((group) => [group, handler])) as Record<ResourceGroup, LambdaHandler>;
    const server = createGateway(resolveRoutes(defaultSubpaths), handlers, { ready: () => ready, log: () => undefined });
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${defaultSubpaths.user}/org/o1/users?x=1`;

    const starting = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"a"}' });
    const startingBody = (await starting.json()) as Record<string, unknown>;
    ready = true;
    const served = await fetch(url);

    expect({ status: starting.status, retryAfter: starting.headers.get('retry-after'), type: starting.headers.get('content-type') }).toEqual({
      status: 503,
      retryAfter: '1',
      type: 'application/json',
    });
    expect(startingBody).toEqual({
      timestamp: expect.any(Number),
      errorCode: 'STACK_STARTING',
      errorType: 'API_ERROR',
      message: 'The local stack is still starting: retry in a moment (Retry-After: 1 s)',
      path: `/${defaultSubpaths.user}/org/o1/users`,
    });
    expect({ status: served.status, body: await served.text(), invoked }).toEqual({ status: 200, body: 'served', invoked: 1 });
  });
});

describe('the data directory lock', () => {
  test('a second lock on the directory names the holder and its URL; released, the directory can be locked again', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    lock.describe('http://127.0.0.1:3000');

    let refused: unknown;
    try {
      lockDataDir(dir);
    } catch (error) {
      refused = error;
    }
    lock.release();
    const again = lockDataDir(dir);
    again.release();

    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as DataDirInUseError).holder).toEqual({ pid: process.pid, startTime: expect.any(String), apiUrl: 'http://127.0.0.1:3000' });
    expect((refused as Error).message).toBe(`The data directory ${dir} is in use by the local stack at http://127.0.0.1:3000 (pid ${process.pid})`);
  });

  test.each([
    ['a process that has ended', () => JSON.stringify({ pid: spawnSync(process.execPath, ['-e', '']).pid, apiUrl: 'http://127.0.0.1:3000' })],
    ['nothing readable', () => 'not json'],
  ])('the lock of %s is taken over', (_label, content) => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), content());

    const lock = lockDataDir(dir);
    const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as unknown;
    lock.release();

    expect(holder).toEqual({ pid: process.pid, startTime: expect.any(String) });
  });
});

describe('the mailbox file', () => {
  // The module instance the emulator itself uses, as the stack's process loads it.
  const store = createRequire(join(__dirname, '..', '..', 'package.json'))('aws-ses-v2-local/dist/store.js') as {
    saveEmail(email: Email): void;
    clearStore(): void;
    getStoreReadonly(): { emails: Email[] };
  };
  const email = (messageId: string): Email => ({
    messageId,
    from: 'no-reply@management-api.local',
    replyTo: [],
    destination: { to: [`${messageId}@example.test`], cc: [], bcc: [] },
    subject: `Welcome ${messageId}`,
    body: { text: 'Your temporary password: Tmp-1a' },
    attachments: [],
    at: 1_800_000_000,
  });

  test('puts the kept e-mails back into the emulator (a line cut short dropped), appends each new one, and empties with Clear', () => {
    const file = join(tempDir(), 'mailbox.jsonl');
    writeFileSync(file, `${JSON.stringify(email('one'))}\n${JSON.stringify(email('two'))}\n{"messageId":"thr`);

    keepMailboxIn(file);
    const loaded = store.getStoreReadonly().emails.map((mail) => mail.messageId);
    store.saveEmail(email('four'));
    const kept = readMailbox(file);
    store.clearStore();

    expect(loaded).toEqual(['one', 'two']);
    expect(kept).toEqual({ emails: [email('one'), email('two'), email('four')], cut: false });
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(store.getStoreReadonly().emails).toEqual([]);
  });
});

describe('the teardown list', () => {
  test('stops the services in reverse order of their start, goes on past one whose stop fails, and runs once', async () => {
    const stopped: string[] = [];
    const teardown = new Teardown();
    teardown.add('lock', () => stopped.push('lock'));
    teardown.add('emulators', async () => {
      await new Promise((done) => setTimeout(done, 10));
      stopped.push('emulators');
    });
    teardown.add('queues', () => {
      throw new Error('already closed');
    });
    teardown.add('gateway', () => stopped.push('gateway'));
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);

    await Promise.all([teardown.run(), teardown.run()]);
    const logged = errors.mock.calls.map(([line]) => JSON.parse(line as string) as Record<string, unknown>);
    errors.mockRestore();

    expect(stopped).toEqual(['gateway', 'emulators', 'lock']);
    expect(logged).toEqual([expect.objectContaining({ service: 'queues', errorType: 'Error' })]);
  });

  test('a service that comes up while the stack stops is stopped once the others are', async () => {
    const stopped: string[] = [];
    const teardown = new Teardown();
    teardown.add('lock', () => stopped.push('lock'));

    const running = teardown.run();
    teardown.add('late', () => stopped.push('late'));
    await running;
    await new Promise((done) => setImmediate(done));

    expect(stopped).toEqual(['lock', 'late']);
  });
});
