import type { CloudEvent } from '../../shared/domain/audit/cloud-event';
import type { ReceivedEvent } from '../../infra/local/eventbridge-endpoint';
import { stack } from './stack';

/** Helpers for change events: what the local EventBridge bus received (`eventsUrl` of stack.json). */

export type ReceivedChange = ReceivedEvent & { detail: CloudEvent & Record<string, unknown> };

/** Every change event the local EventBridge has received so far. */
export async function receivedEvents(): Promise<ReceivedChange[]> {
  const response = await fetch(stack().eventsUrl);
  if (response.status !== 200) throw new Error(`The local event bus answered ${response.status}`);
  return ((await response.json()) as { events: ReceivedChange[] }).events;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The events matching `which`, once `count` of them have arrived and no more arrive for `settleMs`
 * (so a duplicate would be seen); fails after `timeoutMs` with what arrived.
 */
export async function eventsWhen(which: (event: ReceivedChange) => boolean, count: number, { timeoutMs = 20_000, settleMs = 1_000 } = {}): Promise<ReceivedChange[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const matching = (await receivedEvents()).filter(which);
    if (matching.length >= count) {
      await pause(settleMs);
      return (await receivedEvents()).filter(which);
    }
    if (Date.now() > deadline) return matching;
    await pause(200);
  }
}

/** The events of one organization (its CloudEvent `source`). */
export const ofOrg = (orgUuid: string) => (event: ReceivedChange) => event.detail.source === `/org/${orgUuid}`;

/** The events of one request (`data.requestId`). */
export const ofRequest = (requestId: string) => (event: ReceivedChange) => event.detail.data.requestId === requestId;
