import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, nextFromLink, paginate } from '../src/index';

/** Cursor paging through a real HTTP server: a Page's nextPageToken, and a bare array's Link header. */

let server: Server;
let baseUrl: string;
const queries: URLSearchParams[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    queries.push(url.searchParams);
    const token = url.searchParams.get('pageToken');
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
