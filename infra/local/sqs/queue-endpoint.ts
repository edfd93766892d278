import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from '../kernel/gateway-answers';
import { answerJson } from '../kernel/gateway-port';
import { parseJson } from '../kernel/parse-json';
import { validateSettings } from './message-checks';
import { Queue } from './queue-state';
import { sqsOperations } from './sqs-operations';
import { LOCAL_ACCOUNT_ID } from '../kernel/local-account';
import { SqsError, type LocalQueueSettings, type Request } from './sqs-model';
import { sleep } from '../../../shared/kernel/retry';

/**
 * A local Amazon SQS (standard queues) answering the AWS JSON 1.0 protocol as `@aws-sdk/client-sqs`
 * speaks it, its queues fixed when created, as CloudFormation creates them. docs/local-stack.md
 * describes it; docs/decisions/sqs-and-eventbridge-emulated-in-house.md says why it is this project's own.
 * Its seam for tests in another process, with no AWS counterpart: `GET /_local/queues/<name>/settled?timeoutMs=N`
 * answers `{ settled, counts }`.
 */

const LOOK_EVERY_MS = 25;
const MAX_TIMEOUT_MS = 600_000;

export type LocalQueues = ReturnType<typeof createLocalQueues>;

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  answerJson(response, status, body, 'application/x-amz-json-1.0', { 'x-amzn-requestid': randomUUID(), ...headers });

const refuse = (response: ServerResponse, error: SqsError) =>
  json(response, 400, { __type: `com.amazonaws.sqs#${error.code}`, message: error.message }, { 'x-amzn-query-error': `${error.queryCode};Sender` });

/** True once every message of `queue` now is gone from it; false at the timeout, or when the endpoint closes. */
async function settled(queue: Queue, timeoutMs: number, closing: () => boolean): Promise<boolean> {
  const pending = new Set(queue.messages.keys());
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  for (;;) {
    // Expiry by retention also settles a message.
    queue.expire(Date.now());
    if (queue.removals !== seen) {
      seen = queue.removals;
      for (const id of pending) if (!queue.messages.has(id)) pending.delete(id);
    }
    if (pending.size === 0) return true;
    if (Date.now() >= deadline || closing()) return false;
    await sleep(Math.min(LOOK_EVERY_MS, deadline - Date.now()));
  }
}

export function createLocalQueues(settings: LocalQueueSettings[], dir: string) {
  validateSettings(settings);
  mkdirSync(dir, { recursive: true });
  const queues = new Map(settings.map((queue) => [queue.name, new Queue(queue, dir)]));
  let closing = false;
  const operate = sqsOperations(queues, () => closing);

  const queueNamed = (name: string) => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`No local queue is named "${name}"; the stack's queues are ${[...queues.keys()].join(', ')}.`);
    return queue;
  };

  /** Answers a `GET /_local/…` request: the settled seam of a queue, or 404 saying what there is. */
  async function answerSeam(url: URL, response: ServerResponse): Promise<void> {
    const match = /^\/_local\/queues\/([^/]+)\/settled$/.exec(url.pathname);
    const queue = match ? queues.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !queue) {
      return json(response, 404, { message: `Not a local queue seam: use GET /_local/queues/<name>/settled?timeoutMs=N with one of ${[...queues.keys()].join(', ')}.` });
    }
    const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 0);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) return json(response, 400, { message: `timeoutMs must be an integer from 0 to ${MAX_TIMEOUT_MS}.` });
    json(response, 200, { settled: await settled(queue, timeoutMs, () => closing), counts: queue.counts() });
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // The whole body: the endpoint checks its sizes itself, as the service does.
    const body = (await readBody(request, Number.POSITIVE_INFINITY))!.toString('utf8');
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname.startsWith('/_local/')) return answerSeam(url, response);
    const target = String(request.headers['x-amz-target'] ?? '');
    if (request.method !== 'POST' || !target.startsWith('AmazonSQS.') || !String(request.headers['content-type'] ?? '').startsWith('application/x-amz-json-1.0')) {
      return refuse(response, new SqsError('UnsupportedOperation', 'The local SQS answers the AWS JSON 1.0 protocol only: POST with x-amz-target AmazonSQS.<Operation> and content-type application/x-amz-json-1.0.'));
    }
    const input = parseJson(body || '{}') as Request | undefined;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return json(response, 400, { __type: 'com.amazon.coral.service#SerializationException', message: 'The request body is not a JSON object.' });
    }
    let gone = false;
    response.on('close', () => (gone = true));
    try {
      json(response, 200, await operate(target.slice('AmazonSQS.'.length), input, request.headers.host ?? '127.0.0.1', () => gone));
    } catch (error) {
      if (error instanceof SqsError) return refuse(response, error);
      throw error;
    }
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      console.error(JSON.stringify({ timestamp: new Date().toISOString(), level: 'ERROR', source: 'local-sqs', errorType: error instanceof Error ? error.name : typeof error, message: 'a request failed' }));
      json(response, 500, { __type: 'com.amazonaws.sqs#InternalError', message: 'The local SQS failed; its log on stderr has the error type.' }, { 'x-amzn-query-error': 'InternalError;Receiver' });
    });
  });

  return {
    server,
    /** The queue's URL as SQS names it, on the endpoint listening at `baseUrl` (`http://127.0.0.1:<port>`). */
    queueUrl: (name: string, baseUrl: string) => `${baseUrl.replace(/\/$/, '')}/${LOCAL_ACCOUNT_ID}/${queueNamed(name).settings.name}`,
    counts: (name: string) => queueNamed(name).counts(),
    /** True once every message sent to `name` before the call is deleted or moved to the dead-letter queue; false at the timeout. */
    settled: (name: string, timeoutMs: number) => settled(queueNamed(name), timeoutMs, () => closing),
    /** Stops the server, answering pending long polls with no messages. */
    close: async () => {
      closing = true;
      for (const queue of queues.values()) queue.wake();
      await new Promise<void>((resolve) => {
        server.close(() => {
          for (const queue of queues.values()) queue.closeJournal();
          resolve();
        });
        server.closeIdleConnections();
        // Connections kept alive by a client that just got its last answer.
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
    },
  };
}
