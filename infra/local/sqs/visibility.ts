import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { parseJson } from '../kernel/parse-json';
import { integerIn } from './message-checks';
import { stored, type Queue } from './queue-state';
import { invalidParameter, missingParameter, serviceError, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS, SqsError, type Message } from './sqs-model';

/**
 * Visibility and redrive: a receive takes a visible message and hides it for the visibility timeout
 * under a new receipt handle; deleting or changing its visibility needs a handle the queue issued; a
 * message received `maxReceiveCount` times moves to the dead-letter queue on the next receive, keeping
 * its id, body and attributes, as a redrive policy moves it.
 */

/** A receipt handle's content: the queue, the message and the receipt. */
const Receipt = z.object({ q: z.string(), m: z.string(), r: z.string() });

export const encodeReceipt = (queue: string, message: Message) => Buffer.from(JSON.stringify({ q: queue, m: message.id, r: message.receipt })).toString('base64url');

const decodeReceipt = (handle: string) => Receipt.safeParse(parseJson(Buffer.from(handle, 'base64url').toString('utf8'))).data;

/**
 * Takes up to `max` visible messages of `queue`, each hidden for `visibilitySeconds`, moving those past
 * the redrive policy's count to the dead-letter queue (`queues` finds it by name).
 */
export function take(queue: Queue, queues: ReadonlyMap<string, Queue>, max: number, visibilitySeconds: number): Message[] {
  const now = Date.now();
  queue.expire(now);
  const taken: Message[] = [];
  const { deadLetterQueue, maxReceiveCount } = queue.settings;
  for (const message of queue.messages.values()) {
    if (taken.length >= max) break;
    if (message.delayUntil > now || message.visibleAt > now) continue;
    if (deadLetterQueue && maxReceiveCount !== undefined && message.receiveCount >= maxReceiveCount) {
      // Written to the dead-letter queue before it leaves this one: a kill in between repeats it, never loses it.
      queues.get(deadLetterQueue)!.add({ ...stored(message), receiveCount: 0, firstReceivedAt: undefined, delayUntil: 0, deadLetterSourceArn: queue.arn });
      queue.remove(message.id);
      continue;
    }
    message.receiveCount++;
    message.firstReceivedAt ??= now;
    message.visibleAt = now + visibilitySeconds * 1000;
    message.receipt = randomUUID();
    queue.received(message);
    taken.push(message);
  }
  return taken;
}

/** The message a receipt handle names, undefined when it was deleted already; refuses a handle this queue did not issue. */
function messageOf(queue: Queue, handle: unknown): Message | undefined {
  const receipt = typeof handle === 'string' ? decodeReceipt(handle) : undefined;
  if (receipt?.q !== queue.settings.name) throw new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${String(handle)}" is not a valid receipt handle.`);
  return queue.messages.get(receipt.m);
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

export function deleteMessage(queue: Queue, handle: unknown): void {
  if (!given(handle)) throw missingParameter('ReceiptHandle');
  const message = messageOf(queue, handle);
  // Deleting a message that is gone already succeeds, as in SQS.
  if (message) queue.remove(message.id);
}

export function changeVisibility(queue: Queue, handle: unknown, timeout: unknown): void {
  if (!given(handle)) throw missingParameter('ReceiptHandle');
  if (timeout === undefined || timeout === null) throw missingParameter('VisibilityTimeout');
  const seconds = integerIn(timeout, 'VisibilityTimeout', 0, SQS_MAX_VISIBILITY_TIMEOUT_SECONDS)!;
  const message = messageOf(queue, handle);
  const now = Date.now();
  if (!message) throw invalidParameter(`Value ${String(handle)} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`);
  if (message.visibleAt <= now) throw serviceError('MessageNotInflight', 'The message referred to is not in flight.');
  message.visibleAt = now + seconds * 1000;
  if (seconds === 0) queue.wake();
}
