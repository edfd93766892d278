import { randomUUID } from 'node:crypto';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { keys } from '../../shared/adapters/store/keys';
import { appendToFeed, readFeedEntries, readFeedHead } from '../../shared/domain/audit/change-feed.repository';
import type { CloudEvent } from '../../shared/domain/audit/cloud-event';
import { config, DEFAULT_EVENT_TYPE_PREFIX } from '../../shared/kernel/config';
import { agentBody, agentsUrl, freshBot, type AgentDto, type FreshBot } from '../support/bot-helpers';
import { eventsWhen, ofOrg, type ReceivedChange } from '../support/change-events-helpers';
import { expectError } from '../support/error-body';
import { call, type ApiResponse, type TokenSource } from '../support/http-client';
import { unique, userArea } from '../support/stack';
import { createViaApi, freshOrganization, member, type TestOrg } from '../support/user-helpers';

/**
 * The change feed (docs/api/events.md#the-change-feed): the CloudEvents the bus receives, read by
 * cursor, against the local stack. Changes are made through the API; the publisher appends them.
 */

jest.setTimeout(180_000);

interface FeedPage {
  events: CloudEvent[];
  next: string;
}

const type = (short: string) => `${DEFAULT_EVENT_TYPE_PREFIX}.${short}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `GET …/events` of `org` as `who`, with the query as given (repeated names kept). */
function feed(org: Pick<TestOrg, 'orgUuid'>, who: TokenSource, query: [string, string | number][] = []): Promise<ApiResponse<FeedPage>> {
  const search = new URLSearchParams(query.map(([name, value]): [string, string] => [name, String(value)]));
  return call<FeedPage>(who, 'GET', userArea(org.orgUuid, `/events${query.length ? `?${search}` : ''}`));
}

/** A page that must be a 200. */
async function page(org: TestOrg, query: [string, string | number][] = []): Promise<FeedPage> {
  const response = await feed(org, org.admin.token, query);
  expect({ status: response.status, text: response.status === 200 ? '' : response.text }).toEqual({ status: 200, text: '' });
  return response.body;
}

/** Every event from `after` (or the start) to the end of the feed, in pages of `limit`, and the cursor after them. */
async function readToEnd(org: TestOrg, after?: string, limit = 100, extra: [string, string][] = []): Promise<FeedPage> {
  const events: CloudEvent[] = [];
  let next = after;
  for (;;) {
    const answer = await page(org, [...(next ? [['after', next] as [string, string]] : []), ['limit', limit], ...extra]);
    events.push(...answer.events);
    if (answer.events.length === 0 && answer.next === next) return { events, next: answer.next };
    next = answer.next;
  }
}

/** The end of `org`'s feed once nothing more has come for 3 s: the events its creation caused are in. */
async function settledEnd(org: TestOrg): Promise<FeedPage> {
  let end = await readToEnd(org);
  for (;;) {
    const more = await page(org, [['after', end.next], ['wait', 3]]);
    if (more.events.length === 0) return end;
    end = await readToEnd(org, more.next);
  }
}

/** The events the bus received for `org`, once `count` have arrived. */
async function busEvents(org: TestOrg, count: number): Promise<ReceivedChange[]> {
  const events = await eventsWhen(ofOrg(org.orgUuid), count, { timeoutMs: 60_000 });
  expect(events.length).toBeGreaterThanOrEqual(count);
  return events;
}

/** An agent update as a client sends it: the agent read back, with one field changed. */
function agentUpdate(agent: AgentDto, goal: string) {
  const { uuid: _uuid, flowUUID: _flow, heirs: _heirs, ...rest } = agent;
  return { ...rest, persona: { uuid: agent.persona!.uuid }, functions: agent.functions.map(({ uuid }) => ({ uuid })), knowledge: agent.knowledge.map(({ uuid }) => ({ uuid })), goal };
}

let org: TestOrg;
let stranger: TestOrg;
let bot: FreshBot;
beforeAll(async () => {
  [org, stranger] = await Promise.all([freshOrganization(), freshOrganization()]);
  bot = await freshBot({ orgUuid: org.orgUuid, envUuid: org.envA });
});

test('a consumer following next in small pages misses no event and sees each once, while changes commit concurrently in many partitions', async () => {
  const admin = org.admin.api;
  const agents = await Promise.all(
    [1, 2, 3, 4].map(async () => {
      const created = await admin.post<AgentDto>(agentsUrl(bot), agentBody(bot));
      expect(created.status).toBe(201);
      return created.body;
    }),
  );

  // The consumer: pages of 3, waiting a second when it is at the end, until told to stop and then at the end.
  const seen: CloudEvent[] = [];
  let stop = false;
  const consumer = (async () => {
    let next: string | undefined;
    for (;;) {
      const answer = await page(org, [...(next ? [['after', next] as [string, string]] : []), ['limit', 3], ['wait', 1]]);
      seen.push(...answer.events);
      next = answer.next;
      if (stop && answer.events.length === 0) return;
    }
  })();

  // Dozens of changes at once: users (each its own partition) created then updated, agents updated.
  const users = await Promise.all(Array.from({ length: 24 }, (_, index) => createViaApi(org, { name: `Feed user ${index}` })));
  const writes = [
    ...users.slice(0, 12).map(async (user) => expect((await admin.put(org.url(`/${user.uuid}`), { ...user, name: `${user.name} renamed` })).status).toBe(200)),
    ...agents.flatMap((agent) => [1, 2, 3].map(async (round) => expect((await admin.put(agentsUrl(bot, `/${agent.uuid}`), agentUpdate(agent, `Goal ${round}`))).status).toBe(200))),
  ];
  await Promise.all(writes);
  // Every change of the organization: the bus has them all (the org's set-up, 4 agents, 24 users, 12 + 12 updates).
  const published = await busEvents(org, 4 + 24 + 12 + 12);
  const deadline = Date.now() + 60_000;
  while (seen.length < published.length && Date.now() < deadline) await pause(250);
  stop = true;
  await consumer;

  const ids = seen.map((event) => event.id);
  expect(new Set(ids).size).toBe(ids.length);
  // The same CloudEvents as the bus received, whole.
  const byId = new Map(published.map((event) => [event.detail.id, event.detail]));
  expect([...ids].sort()).toEqual([...byId.keys()].sort());
  for (const event of seen) expect(event).toEqual(byId.get(event.id));
  // One resource's events in the feed's order are in the order they happened.
  const byResource = new Map<string, string[]>();
  for (const event of seen) byResource.set(event.data.resource.uuid, [...(byResource.get(event.data.resource.uuid) ?? []), event.sequence]);
  for (const sequences of byResource.values()) expect(sequences).toEqual([...sequences].sort());
});

test('appends by many writers at once, each batch handed over again, stay gapless, in order and once each; a reader following next meanwhile misses none', async () => {
  // The local stream is read by one poller; in AWS, shards are read in parallel: this drives the
  // publisher's append as parallel invocations would. A shard's batch is handed over again only once
  // its invocation has ended (a retry), so each batch's second append follows its first.
  const own = await freshOrganization();
  const start = (await settledEnd(own)).next;
  const events = Array.from({ length: 120 }, (_, index): CloudEvent => ({
    specversion: '1.0',
    id: randomUUID(),
    source: `/org/${own.orgUuid}`,
    type: type('user.updated'),
    subject: `users/${randomUUID()}`,
    time: new Date(Date.now() + index).toISOString(),
    datacontenttype: 'application/json',
    sequence: `${new Date().toISOString()}#${index}`,
    data: { resource: { type: 'USER', uuid: randomUUID() }, actor: { uuid: null, email: null }, requestId: `append-${index}` },
  }));
  const batches = Array.from({ length: 30 }, (_, index) => events.slice(index * 4, index * 4 + 4));

  const seen: CloudEvent[] = [];
  let stop = false;
  const reader = (async () => {
    let next = start;
    for (;;) {
      const answer = await page(own, [['after', next], ['limit', 4], ['wait', 1]]);
      seen.push(...answer.events);
      next = answer.next;
      if (stop && answer.events.length === 0) return;
    }
  })();
  // Every batch at once, each appended again once its first append has ended.
  await Promise.all(batches.map(async (batch) => {
    expect(await appendToFeed(own.orgUuid, batch)).toBe(batch.length);
    expect(await appendToFeed(own.orgUuid, batch)).toBe(0);
  }));
  const deadline = Date.now() + 60_000;
  while (seen.length < events.length && Date.now() < deadline) await pause(250);
  stop = true;
  await reader;

  const head = await readFeedHead(own.orgUuid);
  const entries = await readFeedEntries(own.orgUuid, 0, head + 10);
  expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: head }, (_, index) => index + 1));
  const appendedIds = entries.map((entry) => (JSON.parse(entry.event) as CloudEvent).id).filter((id) => events.some((event) => event.id === id));
  expect([...appendedIds].sort()).toEqual(events.map((event) => event.id).sort());
  // Each batch's events are consecutive, in their order.
  for (const batch of batches) {
    const places = batch.map((event) => appendedIds.indexOf(event.id));
    expect(places).toEqual(places.map((_, index) => places[0]! + index));
  }
  // The organization's own change events (its fixtures') may follow `start` too: the appended ones are each seen once.
  const seenAppended = seen.filter((event) => events.some((appended) => appended.id === event.id));
  expect(seenAppended.map((event) => event.id).sort()).toEqual(events.map((event) => event.id).sort());
});

test('a stored next resumes exactly where the consumer stopped; the same cursor answers the same events', async () => {
  const { next: end } = await readToEnd(org);
  const created = await Promise.all([1, 2, 3].map(() => createViaApi(org)));
  await busEvents(org, 1);
  const deadline = Date.now() + 30_000;
  let all: CloudEvent[] = [];
  while (all.length < 3 && Date.now() < deadline) all = (await readToEnd(org, end)).events;
  expect(all.map((event) => event.data.resource.uuid).sort()).toEqual(created.map((user) => user.uuid).sort());

  const first = await page(org, [['after', end], ['limit', 1]]);
  expect(first.events.map((event) => event.id)).toEqual([all[0]!.id]);
  // A consumer that restarts with its stored cursor continues with the next event, however often it asks.
  const again = await page(org, [['after', first.next], ['limit', 1]]);
  const once_more = await page(org, [['after', first.next], ['limit', 1]]);
  expect(again).toEqual(once_more);
  expect(again.events.map((event) => event.id)).toEqual([all[1]!.id]);
  const rest = await page(org, [['after', again.next]]);
  expect(rest.events.map((event) => event.id)).toEqual([all[2]!.id]);
  // At the end, next stays where it is.
  const tail = await page(org, [['after', rest.next]]);
  expect(tail).toEqual({ events: [], next: rest.next });
});

test('wait: a request at the end answers soon after a change, and with no change answers an empty page after about the wait', async () => {
  const { next: end } = await readToEnd(org);

  const quiet = Date.now();
  const nothing = await page(org, [['after', end], ['wait', 2]]);
  const quietMs = Date.now() - quiet;
  expect(nothing).toEqual({ events: [], next: end });
  expect(quietMs).toBeGreaterThanOrEqual(1_900);
  expect(quietMs).toBeLessThan(5_000);

  const asked = Date.now();
  const waiting = page(org, [['after', end], ['wait', 10]]);
  await pause(1_000);
  const user = await createViaApi(org);
  const answer = await waiting;
  const elapsed = Date.now() - asked;
  expect(answer.events.map((event) => [event.type, event.data.resource.uuid])).toEqual([[type('user.created'), user.uuid]]);
  expect(elapsed).toBeLessThan(8_000);
});

test('types: full types, aliases and a trailing *; next passes over the events left out', async () => {
  const { next: end } = await readToEnd(org);
  const user = await createViaApi(org);
  const agent = (await org.admin.api.post<AgentDto>(agentsUrl(bot), agentBody(bot))).body;
  expect((await org.admin.api.put(org.url(`/${user.uuid}`), { ...user, name: 'Typed renamed' })).status).toBe(200);
  const deadline = Date.now() + 30_000;
  let all: CloudEvent[] = [];
  while (all.length < 3 && Date.now() < deadline) all = (await readToEnd(org, end)).events;
  expect(all.map((event) => event.type).sort()).toEqual([type('agent.created'), type('user.created'), type('user.updated')]);

  const users = await readToEnd(org, end, 1, [['types', type('user.*')]]);
  expect(users.events.map((event) => event.type)).toEqual([type('user.created'), type('user.updated')]);
  const chosen = await readToEnd(org, end, 100, [['types', 'agent.created'], ['types', type('user.updated')]]);
  expect(chosen.events.map((event) => [event.type, event.data.resource.uuid])).toEqual([
    [type('agent.created'), agent.uuid],
    [type('user.updated'), user.uuid],
  ]);
  // A filter that keeps none of them still moves past them: the next read starts after all three.
  const none = await page(org, [['after', end], ['types', type('webhook.*')]]);
  expect(none.events).toEqual([]);
  expect(await page(org, [['after', none.next]])).toEqual({ events: [], next: none.next });
});

test('bad cursors are 400; bad types, limits and waits are 422; the error says what to do', async () => {
  const strangers = (await readToEnd(stranger)).next;
  for (const after of ['not-a-cursor', 'Zm9v', strangers]) {
    const body = expectError(await feed(org, org.admin.token, [['after', after]]), 400, 'FEED_CURSOR_INVALID');
    expect(body.message).toMatch(/leave after out/);
  }
  expect((await feed(org, org.admin.token, [['after', strangers]])).body).toMatchObject({ message: expect.stringContaining('another organization') });
  for (const [name, value] of [
    ['types', 'user.exploded'],
    ['types', 'com.other.user.created'],
    ['types', 'nothing.*'],
    ['limit', 0],
    ['limit', 101],
    ['limit', 'many'],
    ['wait', 21],
    ['wait', -1],
  ] as [string, string | number][]) {
    const body = expectError(await feed(org, org.admin.token, [[name, value]]), 422, 'VALIDATION_FAILED');
    expect(body.details?.[0]?.fieldName).toMatch(new RegExp(`^${name}`));
  }
});

test('only an ADMIN of the organization reads its feed: another role 403, another organization 404', async () => {
  const editor = await member(org, 'EDITOR');
  expectError(await feed(org, editor.token), 403, 'FORBIDDEN');
  expectError(await feed(org, stranger.admin.token), 404, 'NOT_FOUND');
});

test('a cursor older than what is kept is 410, saying to start again; without after the feed starts at the oldest event kept', async () => {
  const own = await freshOrganization();
  const { next: start } = await settledEnd(own);
  const first = await createViaApi(own);
  const deadline = Date.now() + 30_000;
  let afterFirst: FeedPage = { events: [], next: start };
  while (afterFirst.events.length === 0 && Date.now() < deadline) afterFirst = await page(own, [['after', start], ['wait', 2]]);
  expect(afterFirst.events.map((event) => event.data.resource.uuid)).toEqual([first.uuid]);
  const second = await createViaApi(own);
  const afterSecond = await page(own, [['after', afterFirst.next], ['wait', 10]]);
  expect(afterSecond.events.map((event) => event.data.resource.uuid)).toEqual([second.uuid]);

  // Age every entry but the last past its retention, as 31 days would.
  const head = await readFeedHead(own.orgUuid);
  const { Items = [] } = await documentClient().send(
    new QueryCommand({ TableName: config().tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :seq)', ExpressionAttributeValues: { ':pk': keys.feedHead(own.orgUuid).PK, ':seq': 'SEQ#' } }),
  );
  const aged = Math.floor(Date.now() / 1000) - 86_400;
  for (const item of Items.filter((entry) => entry.seq < head)) {
    await documentClient().send(new UpdateCommand({ TableName: config().tableName, Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'SET #ttl = :aged', ExpressionAttributeNames: { '#ttl': 'ttl' }, ExpressionAttributeValues: { ':aged': aged } }));
  }

  const expired = await feed(own, own.admin.token, [['after', start]]);
  expect(expectError(expired, 410, 'FEED_CURSOR_EXPIRED').message).toMatch(/without after/);
  expect((await page(own, [['after', afterFirst.next]])).events.map((event) => event.data.resource.uuid)).toEqual([second.uuid]);
  const fromOldest = await page(own);
  expect(fromOldest.events.map((event) => event.data.resource.uuid)).toEqual([second.uuid]);
  expect(fromOldest.next).toBe(afterSecond.next);

  // An entry TTL already removed reads the same as one past its time.
  const removed = Items.find((entry) => entry.seq === head - 1)!;
  await documentClient().send(new DeleteCommand({ TableName: config().tableName, Key: { PK: removed.PK, SK: removed.SK } }));
  expectError(await feed(own, own.admin.token, [['after', start]]), 410, 'FEED_CURSOR_EXPIRED');
});

test('reading the feed changes nothing: no audit event, no change event, the same feed', async () => {
  const own = await freshOrganization();
  await createViaApi(own, { name: `Reader ${unique()}` });
  await busEvents(own, 1);
  const before = { head: await readFeedHead(own.orgUuid), bus: (await eventsWhen(ofOrg(own.orgUuid), 1)).length };
  const audit = async () => (await own.admin.api.get<{ totalElements: number }>(userArea(own.orgUuid, '/audit-events'))).body.totalElements;
  const auditBefore = await audit();
  const read = await readToEnd(own, undefined, 1);
  await page(own, [['after', read.next], ['wait', 1]]);
  await feed(own, own.admin.token, [['after', 'broken']]);
  expect(await readToEnd(own, undefined, 1)).toEqual(read);
  expect(await readFeedHead(own.orgUuid)).toBe(before.head);
  expect(await audit()).toBe(auditBefore);
  expect((await eventsWhen(ofOrg(own.orgUuid), 1)).length).toBe(before.bus);
});
