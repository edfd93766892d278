import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PUT_EVENTS_MAX_BYTES, PUT_EVENTS_MAX_ENTRIES, entrySize } from '../../shared/adapters/events/event-bus';
import { readBody } from './kernel/gateway-answers';
import { answerJson, serveOnLoopback } from './kernel/gateway-port';
import type { Teardown } from './kernel/teardown';

/**
 * A local EventBridge that answers PutEvents as AWS does for what the `publisher` function sends: at
 * most 10 entries and 256 KB a call, `Source`, `DetailType` and a JSON-object `Detail` required, the
 * stack's bus only. What it accepts is kept (one JSON line per event in `file`) and listed at
 * `GET /events`, as the mailbox lists e-mails. `POST /faults` arms a failure for tests of the
 * `events` function's crash (see `BusFault`): a local-stack seam only, no AWS counterpart.
 */

/**
 * What the `publisher` function meets when it dies part-way through a batch: once `acceptEntries`
 * entries whose CloudEvent `source` is `source` were answered, each of the next `cutCalls` calls
 * carrying such an entry is kept and then cut without an answer (its connection closed), as when the
 * function times out or crashes after its PutEvents call went out: the bus has the events, the
 * function never learns it, its SDK tries again and at last the invocation fails.
 */
export interface BusFault {
  source: string;
  acceptEntries: number;
  cutCalls: number;
}

export interface ReceivedEvent {
  id: string;
  receivedAt: string;
  bus: string;
  source: string;
  detailType: string;
  detail: Record<string, unknown>;
}

interface Entry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
}

export interface LocalEventBridge {
  server: Server;
  /** The events received so far, oldest first. */
  received(): ReceivedEvent[];
}

/** The whole request body as text (the endpoint checks its sizes itself, as the service does). */
const bodyText = async (request: IncomingMessage) => (await readBody(request, Number.POSITIVE_INFINITY))!.toString('utf8');

const answer = (response: ServerResponse, status: number, body: unknown, type = 'application/x-amz-json-1.1') => answerJson(response, status, body, type);

const validation = (message: string) => ({ __type: 'ValidationException', message });

/** The entry's error as EventBridge reports it, or undefined when it is accepted. */
function entryError(entry: Entry, busName: string): { ErrorCode: string; ErrorMessage: string } | undefined {
  const invalid = (message: string) => ({ ErrorCode: 'InvalidArgument', ErrorMessage: message });
  if (!entry.Source) return invalid('Parameter Source is not valid. Reason: Source is a required argument.');
  if (!entry.DetailType) return invalid('Parameter DetailType is not valid. Reason: DetailType is a required argument.');
  if (!entry.Detail) return invalid('Parameter Detail is not valid. Reason: Detail is a required argument.');
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail);
  } catch {
    detail = undefined;
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const bus = entry.EventBusName ?? 'default';
  const name = bus.startsWith('arn:') ? bus.slice(bus.lastIndexOf('/') + 1) : bus;
  if (name !== busName) return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${name} does not exist.` };
  if (entrySize(entry) > PUT_EVENTS_MAX_BYTES) return invalid('Parameter Detail is not valid. Reason: Event size exceeds the limit of 256 KB.');
  return undefined;
}

export function createLocalEventBridge(busName: string, file: string): LocalEventBridge {
  const received: ReceivedEvent[] = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as ReceivedEvent];
          } catch {
            return [];
          }
        })
    : [];

  const faults: BusFault[] = [];
  const sourceOf = (entry: Entry) => {
    try {
      return (JSON.parse(entry.Detail ?? '') as { source?: unknown }).source;
    } catch {
      return undefined;
    }
  };
  /** Whether the call of `entries` is cut by an armed fault; counts the entries an armed fault lets through. */
  const cut = (body: string): boolean => {
    let entries: Entry[];
    try {
      entries = (JSON.parse(body) as { Entries?: Entry[] }).Entries ?? [];
    } catch {
      return false;
    }
    for (const fault of faults) {
      const carried = entries.filter((entry) => sourceOf(entry) === fault.source).length;
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

  const putEvents = (body: string): [number, unknown] => {
    let request: { Entries?: Entry[] };
    try {
      request = JSON.parse(body) as { Entries?: Entry[] };
    } catch {
      return [400, { __type: 'SerializationException', message: 'Request body is not JSON' }];
    }
    const entries = request.Entries ?? [];
    if (entries.length < 1 || entries.length > PUT_EVENTS_MAX_ENTRIES) {
      return [400, validation(`1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${PUT_EVENTS_MAX_ENTRIES}`)];
    }
    if (entries.reduce((sum, entry) => sum + entrySize(entry), 0) > PUT_EVENTS_MAX_BYTES) {
      return [400, validation('Total size of the entries in the request is over the limit.')];
    }
    const results = entries.map((entry) => {
      const error = entryError(entry, busName);
      if (error) return error;
      const event: ReceivedEvent = {
        id: randomUUID(),
        receivedAt: new Date().toISOString(),
        bus: busName,
        source: entry.Source!,
        detailType: entry.DetailType!,
        detail: JSON.parse(entry.Detail!) as Record<string, unknown>,
      };
      received.push(event);
      appendFileSync(file, `${JSON.stringify(event)}\n`);
      return { EventId: event.id };
    });
    return [200, { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results }];
  };

  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyText(request);
      const path = request.url?.split('?')[0];
      if (request.method === 'GET' && path === '/events') return answer(response, 200, { events: received }, 'application/json');
      if (request.method === 'POST' && path === '/faults') {
        const fault = JSON.parse(body) as BusFault;
        faults.push({ source: String(fault.source), acceptEntries: Number(fault.acceptEntries) || 0, cutCalls: Number(fault.cutCalls) || 0 });
        return answer(response, 201, { faults }, 'application/json');
      }
      if (request.method === 'GET' && path === '/faults') return answer(response, 200, { faults }, 'application/json');
      const target = request.headers['x-amz-target'];
      if (request.method !== 'POST' || target !== 'AWSEvents.PutEvents') {
        return answer(response, 400, { __type: 'UnknownOperationException', message: 'Only PutEvents is supported by the local event bus' });
      }
      const cutOff = cut(body);
      const [status, result] = putEvents(body);
      if (cutOff) return void request.socket.destroy();
      answer(response, status, result);
    })().catch(() => answer(response, 500, { __type: 'InternalException', message: 'The local event bus failed' }));
  });
  return { server, received: () => received };
}

/** The stack's bus on a free loopback port, its events kept in `file`; its stop handed to `teardown`. */
export async function startLocalEventBridge(busName: string, file: string, teardown: Teardown): Promise<{ url: string }> {
  return { url: await serveOnLoopback(createLocalEventBridge(busName, file).server, 'local EventBridge', teardown) };
}
