import type { Client } from 'openapi-fetch';
import { apiErrorFrom } from './errors';
import type { paths } from './generated/api-types';

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
