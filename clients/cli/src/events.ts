import { Webhook } from 'standardwebhooks';
import { apiErrorOf } from '../../typescript/src/index';
import { orgOf, updateProfile, type Connection } from './connection';
import { EXIT, note, UsageError } from './output';
import { newWebhookSecret, type ListenPosition } from './profile';

/** A change event as the feed lists it: the CloudEvent EventBridge and webhooks receive. */
export interface ChangeEvent {
  id: string;
  type: string;
  time: string;
  source?: string;
  subject?: string;
  data?: unknown;
  [field: string]: unknown;
}

interface FeedPage {
  events: ChangeEvent[];
  next: string;
}

const TYPE_PREFIX = 'com.agentplatform.';
/** The feed holds a request open this long when nothing follows the cursor (its maximum). */
const WAIT_SECONDS = 20;

/** Full event types: `user.created` is taken as `com.agentplatform.user.created`; `*` may end one. */
export function fullTypes(types: string[] | undefined): string[] {
  return (types ?? []).flatMap((type) => type.split(',')).map((type) => type.trim()).filter(Boolean).map((type) => (type.startsWith(TYPE_PREFIX) ? type : `${TYPE_PREFIX}${type}`));
}

/** One page of the organization's change feed after `after`, waiting up to `wait` seconds for one. */
async function readFeed(connection: Connection, orgUUID: string, query: { after?: string; types: string[]; wait: number }, signal: AbortSignal): Promise<FeedPage> {
  const url = new URL(`${connection.apiUrl}/user-management/org/${orgUUID}/events`);
  if (query.after) url.searchParams.set('after', query.after);
  for (const type of query.types) url.searchParams.append('types', type);
  url.searchParams.set('limit', '100');
  url.searchParams.set('wait', String(query.wait));
  const response = await connection.send(new Request(url, { headers: { accept: 'application/json' }, signal }));
  if (response.status === 410) {
    const error = await apiErrorOf(response, 'GET');
    throw new UsageError(`${error.body?.message ?? 'The position is older than the events kept'}: start again without the stored position (apctl events listen --reset)`);
  }
  if (!response.ok) throw await apiErrorOf(response, 'GET');
  return (await response.json()) as FeedPage;
}

/** Stops the loop on Ctrl-C (a normal end: exit 0). */
function interruption(): AbortController {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('stopped'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller;
}

const stopped = (controller: AbortController, error: unknown) => controller.signal.aborted && !(error instanceof UsageError);

/** `events tail`: prints the feed as it grows, one line per event (or JSON lines). */
export async function tail(connection: Connection, flags: { types?: string[]; since?: string; json: boolean }): Promise<number> {
  const since = flags.since === undefined ? undefined : Date.parse(flags.since);
  if (since !== undefined && Number.isNaN(since)) throw new UsageError(`--since must be a date or time, e.g. 2026-12-01 or 2026-12-01T09:30:00Z, not ${flags.since}`);
  const orgUUID = await orgOf(connection);
  const types = fullTypes(flags.types);
  const controller = interruption();
  let after: string | undefined;
  try {
    if (since === undefined) after = await endOfFeed(connection, orgUUID, types, controller.signal);
    for (;;) {
      const page = await readFeed(connection, orgUUID, { after, types, wait: WAIT_SECONDS }, controller.signal);
      for (const event of page.events) {
        if (since !== undefined && Date.parse(event.time) < since) continue;
        process.stdout.write(flags.json ? `${JSON.stringify(event)}\n` : `${event.time}  ${shortType(event.type)}  ${event.id}${event.subject ? `  ${event.subject}` : ''}\n`);
      }
      after = page.next;
    }
  } catch (error) {
    if (stopped(controller, error)) return EXIT.ok;
    throw error;
  }
}

/** The cursor after the last event kept now: what follows it is what happens from now on. */
async function endOfFeed(connection: Connection, orgUUID: string, types: string[], signal: AbortSignal): Promise<string> {
  let after: string | undefined;
  for (;;) {
    const page = await readFeed(connection, orgUUID, { after, types, wait: 0 }, signal);
    after = page.next;
    if (page.events.length === 0) return after;
  }
}

const shortType = (type: string) => (type.startsWith(TYPE_PREFIX) ? type.slice(TYPE_PREFIX.length) : type);

export interface ListenFlags {
  forwardTo: string;
  types?: string[];
  json: boolean;
  reset: boolean;
}

/** Attempts per delivery, and the pauses between them. */
const DELIVERY_PAUSES_MS = [1000, 2000, 4000];
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * `events listen --forward-to URL`: follows the feed and POSTs each event to URL as a Standard Webhooks
 * delivery (`webhook-id`, `webhook-timestamp`, `webhook-signature`), signed with the profile's secret.
 * The position is kept in the profile after each delivery, so a restart resumes right after the last
 * event delivered (or at the end of the feed as it was when the first run started).
 */
export async function listen(connection: Connection, flags: ListenFlags): Promise<number> {
  let target: URL;
  try {
    target = new URL(flags.forwardTo);
  } catch {
    throw new UsageError(`--forward-to must be an address such as http://localhost:4242/webhooks, not ${flags.forwardTo}`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new UsageError('--forward-to must be an http or https address');
  const orgUUID = await orgOf(connection);
  const types = fullTypes(flags.types);
  const secret = connection.profile?.webhookSecret ?? process.env.APCTL_WEBHOOK_SECRET ?? newWebhookSecret();
  if (connection.profile && !connection.profile.webhookSecret) updateProfile(connection, { webhookSecret: secret });
  const signer = new Webhook(secret);
  const key = `${orgUUID} ${target.href} ${types.join(',')}`;
  const controller = interruption();
  const keep = (position: ListenPosition) => updateProfile(connection, { listenPositions: { ...connection.profile?.listenPositions, [key]: position } });
  let position = flags.reset ? undefined : connection.profile?.listenPositions?.[key];
  try {
    if (!position) {
      position = { after: await endOfFeed(connection, orgUUID, types, controller.signal), delivered: 0 };
      keep(position);
    }
    note(`Ready. Forwarding change events to ${target.href}; the deliveries are signed with ${secret} (Ctrl-C to stop)`);
    for (;;) {
      const page = await readFeed(connection, orgUUID, { after: position.after, types, wait: WAIT_SECONDS }, controller.signal);
      // The same cursor answers the same events first: those an earlier run delivered before it stopped are passed over.
      for (const [index, event] of page.events.entries()) {
        if (index < position.delivered) continue;
        await deliver(signer, target, event, flags.json, controller.signal);
        position = { after: position.after, delivered: index + 1 };
        keep(position);
      }
      if (page.next !== position.after || position.delivered > 0) {
        position = { after: page.next, delivered: 0 };
        keep(position);
      }
    }
  } catch (error) {
    if (stopped(controller, error)) return EXIT.ok;
    throw error;
  }
}

async function deliver(signer: Webhook, target: URL, event: ChangeEvent, json: boolean, signal: AbortSignal): Promise<void> {
  const payload = JSON.stringify(event);
  let status: number | string = 'no answer';
  let ms = 0;
  let attempts = 0;
  for (const pause of [0, ...DELIVERY_PAUSES_MS]) {
    if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
    signal.throwIfAborted();
    attempts++;
    const now = new Date();
    const started = performance.now();
    try {
      const response = await fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'apctl-listen',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(event.id, now, payload),
        },
        body: payload,
        signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
        redirect: 'manual',
      });
      await response.body?.cancel();
      status = response.status;
    } catch {
      signal.throwIfAborted();
      status = 'no answer';
    }
    ms = Math.round(performance.now() - started);
    if (typeof status === 'number' && status >= 200 && status < 300) break;
  }
  const line = json
    ? JSON.stringify({ type: event.type, id: event.id, status, ms, attempts })
    : `${new Date().toISOString()}  --> ${shortType(event.type)} [${event.id}]  <-- ${status} (${ms} ms)${attempts > 1 ? `, ${attempts} attempts` : ''}`;
  process.stdout.write(`${line}\n`);
}
