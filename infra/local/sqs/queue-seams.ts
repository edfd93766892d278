import type { ServerResponse } from 'node:http';
import type { Queue } from './queue-state';
import { sleep } from '../../../shared/kernel/retry';

/**
 * The local SQS's seam for tests in another process, with no AWS counterpart (docs/local-stack.md):
 * `GET /_local/queues/<name>/settled?timeoutMs=N` answers `{ settled, counts }`.
 */

const LOOK_EVERY_MS = 25;
const MAX_TIMEOUT_MS = 600_000;

/** True once every message of `queue` now is gone from it; false at the timeout, or when the endpoint closes. */
export async function settled(queue: Queue, timeoutMs: number, closing: () => boolean): Promise<boolean> {
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

type Answer = (response: ServerResponse, status: number, body: unknown) => void;

/** Answers a `GET /_local/…` request: the settled seam of a queue of `queues`, or 404 saying what there is. */
export async function answerSeam(url: URL, response: ServerResponse, queues: ReadonlyMap<string, Queue>, closing: () => boolean, answer: Answer): Promise<void> {
  const match = /^\/_local\/queues\/([^/]+)\/settled$/.exec(url.pathname);
  const queue = match ? queues.get(decodeURIComponent(match[1]!)) : undefined;
  if (!match || !queue) {
    return answer(response, 404, { message: `Not a local queue seam: use GET /_local/queues/<name>/settled?timeoutMs=N with one of ${[...queues.keys()].join(', ')}.` });
  }
  const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 0);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) return answer(response, 400, { message: `timeoutMs must be an integer from 0 to ${MAX_TIMEOUT_MS}.` });
  const done = await settled(queue, timeoutMs, closing);
  answer(response, 200, { settled: done, counts: queue.counts() });
}
