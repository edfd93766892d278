import { PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { eventBridgeClient } from '../clients/eventbridge';
import { config } from '../../kernel/config';
import { sleep } from '../../kernel/retry';
import { logger } from '../../kernel/logger';

/**
 * Puts change events on the stack's EventBridge bus (docs/api/events.md#eventbridge): each one as an
 * entry whose `detail-type` is the event's type, whose `source` is the stack's type prefix and whose
 * `detail` is the whole CloudEvent. PutEvents takes at most 10 entries and 256 KB a call. The port:
 * `shared/app/change-events/event-bus.port.ts`.
 */

/** What of a CloudEvent the bus reads: its type and time for the entry, its patch to leave out of one too large. */
export interface BusEvent {
  type: string;
  time: string;
  data: { changes?: unknown };
}

export const PUT_EVENTS_MAX_ENTRIES = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
/** Entries EventBridge refused (throttled, internal) are put again this many times before the batch fails. */
const ENTRY_RETRIES = 3;

/** EventBridge's size of an entry: its detail, detail-type, source and resources, plus 14 bytes for its time. */
export function entrySize(entry: PutEventsRequestEntry): number {
  const bytes = (text: string | undefined) => (text ? Buffer.byteLength(text) : 0);
  return 14 + bytes(entry.Detail) + bytes(entry.DetailType) + bytes(entry.Source) + (entry.Resources ?? []).reduce((sum, arn) => sum + bytes(arn), 0);
}

/** The entry of an event; a patch that would take it past 256 KB is left out (`changesOmitted`). */
export function entryOf<E extends BusEvent>(event: E): PutEventsRequestEntry {
  const entry = (detail: E): PutEventsRequestEntry => ({
    EventBusName: config().events.busName,
    Source: config().events.typePrefix,
    DetailType: detail.type,
    Detail: JSON.stringify(detail),
    Time: new Date(detail.time),
  });
  const whole = entry(event);
  if (entrySize(whole) <= PUT_EVENTS_MAX_BYTES || !event.data.changes) return whole;
  const { changes: _omitted, ...data } = event.data;
  return entry({ ...event, data: { ...data, changesOmitted: true } });
}

/** The entries in PutEvents calls of at most 10 entries and 256 KB, in order. */
export function batchesOf(entries: PutEventsRequestEntry[]): PutEventsRequestEntry[][] {
  const batches: PutEventsRequestEntry[][] = [];
  let current: PutEventsRequestEntry[] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes = entrySize(entry);
    if (current.length === PUT_EVENTS_MAX_ENTRIES || (current.length > 0 && size + bytes > PUT_EVENTS_MAX_BYTES)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(entry);
    size += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Puts one batch, putting again the entries EventBridge refused; the index of the first entry still refused, or -1. */
async function putBatch(entries: PutEventsRequestEntry[]): Promise<number> {
  let pending = entries.map((entry, index) => ({ entry, index }));
  for (let attempt = 0; attempt <= ENTRY_RETRIES && pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(100 * 2 ** attempt);
    const answer = await eventBridgeClient().send(new PutEventsCommand({ Entries: pending.map(({ entry }) => entry) }));
    const refused = pending.filter((_, i) => answer.Entries?.[i]?.ErrorCode);
    if (refused.length > 0) {
      const codes = [...new Set(pending.map((_, i) => answer.Entries?.[i]?.ErrorCode).filter(Boolean))];
      logger.warn('EventBridge refused change events', { refused: refused.length, errorCodes: codes, attempt });
    }
    pending = refused;
  }
  return pending.length > 0 ? pending[0]!.index : -1;
}

/**
 * Publishes `events` in order; the number published before the first one that could not be (all of
 * them on success). Events after that one are not attempted, so the caller retries from there.
 */
export async function publishChangeEvents(events: readonly BusEvent[]): Promise<number> {
  let published = 0;
  for (const batch of batchesOf(events.map(entryOf))) {
    const failedAt = await putBatch(batch);
    if (failedAt >= 0) return published + failedAt;
    published += batch.length;
  }
  return published;
}
