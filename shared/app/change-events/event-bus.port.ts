import { publishChangeEvents } from '../../adapters/events/event-bus';
import type { CloudEvent } from '../../domain/audit/cloud-event';

/** Port: the stack's event bus (EventBridge), bound here to its adapter. */
export interface EventBus {
  /**
   * Publishes `events` in order; the number published before the first one that could not be (all of
   * them on success). Events after that one are not attempted, so the caller retries from there.
   */
  publish(events: readonly CloudEvent[]): Promise<number>;
}

export const eventBus: EventBus = { publish: publishChangeEvents };
