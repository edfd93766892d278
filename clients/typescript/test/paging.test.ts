import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, changeFeed, createApiClient, nextFromLink, paginate, paginateScimUsers } from '../src/index';

/** Cursor paging through a real HTTP server: a Page's nextPageToken, and a bare array's Link header. */

let server: Server;
let baseUrl: string;
const queries: URLSearchParams[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    queries.push(url.searchParams);
    const token = url.searchParams.get('pageToken');
    if (url.pathname.endsWith('/scim/v2/Users')) {
      const people = ['ana', 'bo', 'cy', 'di', 'ed'];
      const start = Number(url.searchParams.get('startIndex') ?? '1');
      const resources = people.slice(start - 1, start - 1 + 2).map((userName) => ({ userName }));
      response.writeHead(200, { 'content-type': 'application/scim+json' });
      return void response.end(
        JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: people.length, startIndex: start, itemsPerPage: resources.length, Resources: resources }),
      );
    }
    if (url.pathname.endsWith('/events')) {
      const feed = ['e1', 'e2', 'e3'];
      const at = Number(url.searchParams.get('after') ?? '0');
      if (at > feed.length) {
        response.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req-feed' });
        return void response.end(JSON.stringify({ errorCode: 'FEED_CURSOR_INVALID', message: 'after is not a cursor of this feed' }));
      }
      const events = feed.slice(at, at + 2).map((id) => ({ id, type: 'com.agentplatform.user.created' }));
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(JSON.stringify({ events, next: String(at + events.length) }));
    }
    if (url.pathname.endsWith('/deliveries')) {
      const next = token ? undefined : `${baseUrl}${url.pathname}?limit=2&pageToken=second`;
      response.writeHead(200, { 'content-type': 'application/json', ...(next ? { link: `<${next}>; rel="next"` } : {}) });
      return void response.end(JSON.stringify(token ? [{ deliveryId: 'c' }] : [{ deliveryId: 'a' }, { deliveryId: 'b' }]));
    }
    const pages: Record<string, { content: { uuid: string }[]; nextPageToken: string | null }> = {
      first: { content: [{ uuid: '1' }, { uuid: '2' }], nextPageToken: 'p2' },
      p2: { content: [{ uuid: '3' }], nextPageToken: null },
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(pages[token ?? 'first']));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const org = '0b0b0b0b-0000-4000-8000-000000000001';

test('a Page listing is followed by nextPageToken, keeping the query', async () => {
  const api = createApiClient({ apiUrl: baseUrl });
  const uuids: string[] = [];

  for await (const user of paginate(api, '/user-management/org/{orgUUID}/users', { params: { path: { orgUUID: org }, query: { linesPerPage: 2, orderBy: 'name' } } })) uuids.push(user.uuid);

  expect(uuids).toEqual(['1', '2', '3']);
  expect(queries.at(-1)?.get('pageToken')).toBe('p2');
  expect(queries.at(-1)?.get('orderBy')).toBe('name');
});

test('a bare array listing is followed by its Link header', async () => {
  const api = createApiClient({ apiUrl: baseUrl });
  const ids: string[] = [];

  for await (const attempt of paginate(api, '/user-management/org/{orgUUID}/webhooks/{webhookId}/deliveries', {
    params: { path: { orgUUID: org, webhookId: 'w1' }, query: { limit: 2 } },
  }))
    ids.push(attempt.deliveryId);

  expect(ids).toEqual(['a', 'b', 'c']);
  expect(nextFromLink('<https://x.example/a?pageToken=t1>; rel="next"')).toBe('t1');
  expect(nextFromLink(null)).toBeUndefined();
});

test('the SCIM Users listing is followed by startIndex until totalResults', async () => {
  const api = createApiClient({ apiUrl: baseUrl, auth: 'scim-token' });
  const names: unknown[] = [];

  for await (const user of paginateScimUsers(api, { params: { path: { orgUUID: org }, query: { count: 2, filter: 'active eq true' } } })) names.push(user.userName);

  const scimQueries = queries.filter((query) => query.has('startIndex'));
  expect(names).toEqual(['ana', 'bo', 'cy', 'di', 'ed']);
  expect(scimQueries.map((query) => query.get('startIndex'))).toEqual(['1', '3', '5']);
  expect(scimQueries.every((query) => query.get('filter') === 'active eq true' && query.get('count') === '2')).toBe(true);
});

test("the change feed is read page by page by each page's next, with the types repeated, to its end", async () => {
  const api = createApiClient({ apiUrl: baseUrl });
  const pages: { ids: string[]; next: string }[] = [];

  for await (const page of changeFeed(api, org, { types: ['com.agentplatform.user.*', 'com.agentplatform.agent.created'], limit: 2 }))
    pages.push({ ids: page.events.map((event) => event.id), next: page.next });

  const feedQueries = queries.filter((query) => query.has('wait'));
  expect(pages).toEqual([
    { ids: ['e1', 'e2'], next: '2' },
    { ids: ['e3'], next: '3' },
  ]);
  expect(feedQueries.map((query) => query.get('after'))).toEqual([null, '2', '3']);
  expect(feedQueries[0]!.getAll('types')).toEqual(['com.agentplatform.user.*', 'com.agentplatform.agent.created']);
  expect(feedQueries.every((query) => query.get('wait') === '0' && query.get('limit') === '2')).toBe(true);
});

test('the change feed resumes after a stored next, and a refused cursor throws an ApiError with the body', async () => {
  const api = createApiClient({ apiUrl: baseUrl });
  const resumed: string[] = [];

  for await (const page of changeFeed(api, org, { after: '2' })) resumed.push(...page.events.map((event) => event.id));
  const refused = await (async () => {
    for await (const page of changeFeed(api, org, { after: '9' })) void page;
  })().catch((error: unknown) => error);

  expect(resumed).toEqual(['e3']);
  expect(refused).toBeInstanceOf(ApiError);
  expect(refused).toMatchObject({ status: 400, code: 'FEED_CURSOR_INVALID', requestId: 'req-feed', body: { message: 'after is not a cursor of this feed' } });
});
