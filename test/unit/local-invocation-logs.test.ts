import { functionEnvironment, useFunctionEnvironments } from '../../infra/local/env/process-env';
import { invokeOnce } from '../../infra/local/invoke';
import { concurrentInvocationsEnv } from '../../infra/local/kernel/function-context';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { eventFunction } from '../../shared/edge/http/event-function';
import { logger } from '../../shared/kernel/logger';

// Every function runs in the local stack's one process and logs through the one logger: each line
// still names the function and the invocation that wrote it, however the invocations overlap (each
// function's environment as env/stack-environments.ts gives it).

let restore: () => void;
let lines: Record<string, unknown>[];
let write: jest.SpyInstance;

beforeEach(() => {
  const environment = (group: ResourceGroup) =>
    functionEnvironment(group, { POWERTOOLS_SERVICE_NAME: group, ...concurrentInvocationsEnv }, new Set(['POWERTOOLS_SERVICE_NAME']), () => undefined);
  restore = useFunctionEnvironments(new Map([['bulk-worker', environment('bulk-worker')], ['publisher', environment('publisher')]]));
  logger.setLogLevel('INFO');
  lines = [];
  write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n').filter((text) => text.startsWith('{'))) lines.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  });
});

afterEach(() => {
  write.mockRestore();
  restore();
});

test("a long invocation's lines name its function and request id while another function's invocations begin and end meanwhile", async () => {
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const worker = eventFunction('bulk-worker', {
    schedule: async () => {
      logger.info('worker begins');
      await released;
      logger.info('worker goes on');
    },
  });
  const publisher = eventFunction('publisher', { schedule: async () => logger.info('publisher polls') });

  const long = invokeOnce('bulk-worker', worker, {}, { timeoutMs: 5_000 });
  await new Promise((resolve) => setImmediate(resolve));
  const polls = [invokeOnce('publisher', publisher, {}, { timeoutMs: 5_000 }), invokeOnce('publisher', publisher, {}, { timeoutMs: 5_000 })];
  const polled = await Promise.all(polls.map((poll) => poll.attempt));
  release();
  const worked = await long.attempt;

  const line = (message: string) => lines.filter((entry) => entry.message === message);
  expect(line('worker begins')).toEqual([expect.objectContaining({ function_name: 'local-bulk-worker', requestId: worked.awsRequestId })]);
  expect(line('worker goes on')).toEqual([expect.objectContaining({ function_name: 'local-bulk-worker', requestId: worked.awsRequestId })]);
  expect(line('publisher polls')).toEqual(polled.map((poll) => expect.objectContaining({ function_name: 'local-publisher', requestId: poll.awsRequestId })));
});
