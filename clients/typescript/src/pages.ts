import type { Client } from 'openapi-fetch';
import { apiErrorFrom } from './errors';
import type { components, paths } from './generated/api-types';

type GetOf<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type QueryOf<P extends keyof paths> = GetOf<P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<P extends keyof paths> = GetOf<P> extends { parameters: { path: infer A } } ? A : never;
type DataOf<P extends keyof paths> = GetOf<P> extends { responses: { 200: { content: { 'application/json': infer D } } } } ? D : never;

/** Every listing that pages by cursor (`pageToken`): users, audit events, agents, supervisors, revisions, deliveries, offline sessions. */
export type ListingPath = { [P in keyof paths]: 'pageToken' extends keyof QueryOf<P> ? P : never }[keyof paths];

/** What a listing lists: a Page's `content`, or a bare array's items. */
export type ItemOf<P extends ListingPath> = DataOf<P> extends { content: (infer I)[] } ? I : DataOf<P> extends (infer I)[] ? I : never;

export interface ListingInit<P extends ListingPath> {
  params: { path: PathParamsOf<P>; query?: Omit<QueryOf<P>, 'pageToken' | 'page'> };
}

/**
 * Every item of a listing, page after page, by cursor (docs/api/README.md#cursor-paging): each page's
 * `nextPageToken` (or, for the listings that answer a bare array, the `Link: rel="next"` header) asks
 * for the next, until there is none. Stop early with `break`; a refusal throws an ApiError.
 */
export async function* paginate<P extends ListingPath>(client: Client<paths>, path: P, init: ListingInit<P>): AsyncGenerator<ItemOf<P>> {
  let pageToken: string | undefined;
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  do {
    const query = { ...(init.params.query ?? {}), ...(pageToken ? { pageToken } : {}) };
    const { data, error, response } = await get(path, { params: { path: init.params.path, query } });
    if (!response.ok || data === undefined) throw apiErrorFrom(response, error, 'GET');
    const items = Array.isArray(data) ? data : ((data as { content?: unknown[] }).content ?? []);
    for (const item of items) yield item as ItemOf<P>;
    pageToken = Array.isArray(data) ? nextFromLink(response.headers.get('link')) : ((data as { nextPageToken?: string | null }).nextPageToken ?? undefined);
  } while (pageToken);
}

/** The `pageToken` of a `Link` header's `rel="next"` address (RFC 8288), if any. */
export function nextFromLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) return new URL(match[1]!).searchParams.get('pageToken') ?? undefined;
  }
  return undefined;
}

type ScimListResponse = components['schemas']['ScimListResponse'];
const SCIM_USERS = '/user-management/org/{orgUUID}/scim/v2/Users';
type ScimQuery = NonNullable<paths[typeof SCIM_USERS]['get']['parameters']['query']>;

/**
 * Every resource of the SCIM Users listing, which pages by offset (RFC 7644 §3.4.2.4): `startIndex`
 * moves on by each page's `itemsPerPage` until `totalResults` are read or a page comes back empty.
 * The client's `auth` is then the SCIM token.
 */
export async function* paginateScimUsers(
  client: Client<paths>,
  init: { params: { path: { orgUUID: string }; query?: Omit<ScimQuery, 'startIndex'> } },
): AsyncGenerator<ScimListResponse['Resources'][number]> {
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  let startIndex = 1;
  for (;;) {
    const { data, error, response } = await get(SCIM_USERS, { params: { path: init.params.path, query: { ...(init.params.query ?? {}), startIndex } } });
    if (!response.ok || data === undefined) throw apiErrorFrom(response, error, 'GET');
    const page = data as ScimListResponse;
    for (const resource of page.Resources) yield resource;
    startIndex += page.Resources.length;
    if (page.Resources.length === 0 || startIndex > page.totalResults) return;
  }
}

export type ChangeFeedPage = components['schemas']['ChangeFeedPage'];

export interface ChangeFeedOptions {
  /** A `next` a previous page gave (stored by the consumer); without it, the oldest event kept. */
  after?: string;
  /** Full types, or ending in `*` (`com.agentplatform.user.*`); all types when absent. */
  types?: string[];
  /** Events per page, 1 to 100 (default 50). */
  limit?: number;
  /**
   * false (the default): stop at the end of the feed (the first page with no event). true: keep
   * reading, each request waiting up to `wait` seconds (default 20) for the next event, until `signal` aborts.
   */
  follow?: boolean;
  wait?: number;
  signal?: AbortSignal;
}

/**
 * The organization's change feed (docs/api/events.md#the-change-feed) page by page, oldest first:
 * each page's `next` asks for the next. Store `page.next` after handling a page's events, and pass it
 * as `after` to resume there after a restart. A refusal (400 cursor of another feed, 410 cursor past
 * retention) throws an ApiError.
 */
export async function* changeFeed(client: Client<paths>, orgUUID: string, options: ChangeFeedOptions = {}): AsyncGenerator<ChangeFeedPage> {
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const wait = options.follow ? (options.wait ?? 20) : 0;
  let after = options.after;
  for (;;) {
    options.signal?.throwIfAborted();
    const query = { ...(after ? { after } : {}), ...(options.types?.length ? { types: options.types } : {}), ...(options.limit ? { limit: options.limit } : {}), wait };
    const { data, error, response } = await get('/user-management/org/{orgUUID}/events', { params: { path: { orgUUID }, query }, signal: options.signal });
    if (!response.ok || data === undefined) throw apiErrorFrom(response, error, 'GET');
    const page = data as ChangeFeedPage;
    after = page.next;
    if (page.events.length > 0) yield page;
    else if (!options.follow) return;
  }
}
