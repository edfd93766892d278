import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { PutEventsRequestEntry as Entry } from '@aws-sdk/client-eventbridge';
import { PUT_EVENTS_MAX_BYTES, PUT_EVENTS_MAX_ENTRIES, entrySize } from '../../shared/adapters/events/event-bus';
import { answerJson, serveOnLoopback } from './kernel/gateway-port';
import { AwsJsonError, awsJsonServer } from './aws-json-endpoint';
import type { Teardown } from './kernel/teardown';
import { parseJson } from './kernel/parse-json';

/**
 * A local EventBridge that answers PutEvents as AWS does, for the stack's bus only. What it accepts is
 * kept (a JSON line per event in `file`) and listed at `GET /events`; `POST /faults` arms a `BusFault`.
 */

/**
 * A local-stack seam for tests of the `publisher` function dying part-way through a batch: once
 * `acceptEntries` entries of CloudEvent `source` were answered, the next `cutCalls` calls carrying such
 * an entry are kept, then cut without an answer, as when the function crashes after its call went out.
 */
export interface BusFault { source: string; acceptEntries: number; cutCalls: number }

export interface ReceivedEvent { id: string; receivedAt: string; bus: string; source: string; detailType: string; detail: Record<string, unknown> }

export type LocalEventBridge = ReturnType<typeof createLocalEventBridge>;

/** The entry's error as EventBridge reports it, or undefined when it is accepted. */
function entryError(entry: Entry, busName: string): { ErrorCode: string; ErrorMessage: string } | undefined {
  const invalid = (message: string) => ({ ErrorCode: 'InvalidArgument', ErrorMessage: message });
  if (!entry.Source) return invalid('Parameter Source is not valid. Reason: Source is a required argument.');
  if (!entry.DetailType) return invalid('Parameter DetailType is not valid. Reason: DetailType is a required argument.');
  if (!entry.Detail) return invalid('Parameter Detail is not valid. Reason: Detail is a required argument.');
  const detail = parseJson(entry.Detail);
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const bus = entry.EventBusName ?? 'default';
  const name = bus.startsWith('arn:') ? bus.slice(bus.lastIndexOf('/') + 1) : bus;
  if (name !== busName) return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${name} does not exist.` };
  if (entrySize(entry) > PUT_EVENTS_MAX_BYTES) return invalid('Parameter Detail is not valid. Reason: Event size exceeds the limit of 256 KB.');
  return undefined;
}

export function createLocalEventBridge(busName: string, file: string) {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const received = lines.map((line) => parseJson(line) as ReceivedEvent | undefined).filter((event) => event !== undefined);
  const faults: BusFault[] = [];

  /** Whether the call of `entries` is cut by an armed fault; counts the entries an armed fault lets through. */
  const cut = (entries: Entry[]): boolean => {
    for (const fault of faults) {
      const carried = entries.filter((entry) => (parseJson(entry.Detail) as { source?: unknown } | undefined)?.source === fault.source).length;
      if (carried === 0 || fault.cutCalls === 0) continue;
      if (fault.acceptEntries >= carried) {
        fault.acceptEntries -= carried;
        continue;
      }
      fault.cutCalls--;
      return true;
    }
    return false;
  };

  const putEvents = (entries: Entry[]) => {
    if (entries.length < 1 || entries.length > PUT_EVENTS_MAX_ENTRIES) {
      const message = `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${PUT_EVENTS_MAX_ENTRIES}`;
      throw new AwsJsonError('ValidationException', message);
    }
    if (entries.reduce((sum, entry) => sum + entrySize(entry), 0) > PUT_EVENTS_MAX_BYTES) {
      throw new AwsJsonError('ValidationException', 'Total size of the entries in the request is over the limit.');
    }
    const results = entries.map((entry) => {
      const error = entryError(entry, busName);
      if (error) return error;
      const detail = JSON.parse(entry.Detail!) as Record<string, unknown>;
      const [source, detailType] = [entry.Source!, entry.DetailType!];
      const event: ReceivedEvent = { id: randomUUID(), receivedAt: new Date().toISOString(), bus: busName, source, detailType, detail };
      received.push(event);
      appendFileSync(file, `${JSON.stringify(event)}\n`);
      return { EventId: event.id };
    });
    return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
  };

  const entriesOf = (input: { Entries?: Entry[] }) => input.Entries ?? [];
  const server = awsJsonServer({
    operations: { 'AWSEvents.PutEvents': (input) => putEvents(entriesOf(input)) },
    // The sizes are checked as the service checks them.
    maxBodyBytes: Number.POSITIVE_INFINITY,
    unknownOperation: 'Only PutEvents is supported by the local event bus',
    notJson: 'Request body is not JSON',
    internalError: ['InternalException', 'The local event bus failed'],
    cut: (input) => cut(entriesOf(input)),
    local: (request, response, body) => {
      const path = request.url?.split('?')[0];
      if (request.method === 'GET' && path === '/events') answerJson(response, 200, { events: received });
      else if (request.method === 'GET' && path === '/faults') answerJson(response, 200, { faults });
      else if (request.method === 'POST' && path === '/faults') {
        const fault = JSON.parse(body) as BusFault;
        faults.push({ source: String(fault.source), acceptEntries: Number(fault.acceptEntries) || 0, cutCalls: Number(fault.cutCalls) || 0 });
        answerJson(response, 201, { faults });
      } else return false;
      return true;
    },
  });
  // The events received so far, oldest first.
  return { server, received: () => received };
}

/** The stack's bus on a free loopback port, its events kept in `file`; its stop handed to `teardown`. */
export async function startLocalEventBridge(busName: string, file: string, teardown: Teardown): Promise<{ url: string }> {
  return { url: await serveOnLoopback(createLocalEventBridge(busName, file).server, 'local EventBridge', teardown) };
}
