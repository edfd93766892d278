import { pageAndTokenError, pageTokenOf, positionOf, type PagePosition } from '../../domain/requests/page-token.repository';
import { ok } from './types';

/**
 * Cursor paging beside page numbers (docs/api/README.md#cursor-paging), the same for every listing:
 * the request's `pageToken` read back into a position, and the answer's `nextPageToken` and `Link:
 * <…>; rel="next"` (RFC 8288) made from the position after the page's last item.
 */

/** What a listing request brings: its validated query (with `pageToken`), the query as sent and its address. */
export interface ListingRequest {
  query: { pageToken?: string | undefined } & Record<string, unknown>;
  rawQuery: Record<string, string | undefined>;
  url: string;
}

export interface Cursor<P> {
  /** Where the page starts when the request gave a token; undefined for a numbered page. */
  start: PagePosition<P> | undefined;
  /** The answer: the page with `nextPageToken` (null on the last page) and, when there is a next page, its `Link`. */
  reply: <B extends object>(body: B, next: PagePosition<P> | undefined) => Promise<{ status: 200; body: B & { nextPageToken: string | null }; headers?: Record<string, string> }>;
  /** The next page's token alone, for listings whose body is a bare array (the `Link` header carries it). */
  headers: (next: PagePosition<P> | undefined) => Promise<Record<string, string>>;
}

/**
 * The cursor of a listing request. `listing` names the listing (its operation id), `owner` what it
 * lists under (the organization, or the bot or agent whose organization the caller's scope checked);
 * `pageField` is the query's page number (left out of the binding with the token itself): giving both is a 422.
 */
export async function cursorOf<P>(listing: string, owner: string, request: ListingRequest, pageField?: string): Promise<Cursor<P>> {
  const { pageToken, ...query } = request.query;
  if (pageField !== undefined) delete query[pageField];
  const binding = { listing, owner, query };
  if (pageToken !== undefined && pageField !== undefined && request.rawQuery[pageField] !== undefined) throw pageAndTokenError(pageField);
  const start = pageToken === undefined ? undefined : await positionOf<P>(pageToken, binding);
  const next = async (position: PagePosition<P> | undefined) => {
    const token = position === undefined ? null : await pageTokenOf(binding, position);
    const headers: Record<string, string> = token === null ? {} : { link: `<${nextPageUrl(request, token, pageField)}>; rel="next"` };
    return { token, headers };
  };
  return {
    start,
    headers: async (position) => (await next(position)).headers,
    reply: async (body, position) => {
      const { token, headers } = await next(position);
      return ok({ ...body, nextPageToken: token }, headers);
    },
  };
}

/** The request's address and query with `pageToken` set to the next page's (and no page number). */
function nextPageUrl(request: ListingRequest, token: string, pageField?: string): string {
  const url = new URL(request.url);
  for (const [name, value] of Object.entries(request.rawQuery)) {
    if (value !== undefined && name !== 'pageToken' && name !== pageField) url.searchParams.set(name, value);
  }
  url.searchParams.set('pageToken', token);
  return url.toString();
}
