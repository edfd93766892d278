import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { tableSecret } from '../../adapters/store/table-secret';

/**
 * Page tokens (docs/api/README.md#cursor-paging): an opaque `pageToken` that names where the next page
 * of a listing starts, so that a page at any depth costs what the first one does. A token is
 * `base64url(payload).base64url(HMAC-SHA256(key, payload))`; the payload holds a digest of what it is
 * bound to (listing, organization, order, filter and page size), the next page's number, the position
 * after the last item shown and an expiry. A token that was altered, is bound to anything else or has
 * expired answers 422: it never reads from another position than one this API wrote for that listing.
 *
 * The key is 32 random bytes kept in the table (one item, made by the first function that needs it):
 * the same code path locally and in AWS, no stack resource, and nobody who cannot read the table can
 * forge a position. Deleting the item changes the key; tokens issued before then answer 422.
 */

/** What a token is bound to: the listing (an operation id), the organization or bot, and every query parameter but the page's. */
export interface PageBinding {
  listing: string;
  owner: string;
  query: Record<string, unknown>;
}

/** Where a page starts: its number as the numbered pages count it, and the position after the previous page's last item. */
export interface PagePosition<P> {
  number: number;
  after: P;
}

/** How long a token may be used: a walk through a listing takes minutes, not days. */
export const PAGE_TOKEN_TTL_SECONDS = 24 * 3600;

interface Payload {
  /** Digest of the binding. */
  b: string;
  n: number;
  a: unknown;
  /** Expiry, in seconds since the epoch. */
  x: number;
}

const START_AGAIN = 'start again from the first page, without pageToken';

/** A pageToken that cannot be used, as a 422 of the request's `pageToken` field. */
const unusable = (why: string) =>
  new ValidationError({ details: [{ fieldName: 'pageToken', message: `${why}: ${START_AGAIN}`, errorCode: 'FIELD_INVALID' }] });

/** The token of the page `position` names, bound to `binding`. */
export async function pageTokenOf<P>(binding: PageBinding, position: PagePosition<P>, now = Date.now()): Promise<string> {
  const payload: Payload = { b: digestOf(binding), n: position.number, a: position.after, x: Math.floor(now / 1000) + PAGE_TOKEN_TTL_SECONDS };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${(await sign(body)).toString('base64url')}`;
}

/** The position a token names, once its signature, binding and expiry are checked; a 422 otherwise. */
export async function positionOf<P>(token: string, binding: PageBinding, now = Date.now()): Promise<PagePosition<P>> {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0) throw unusable('The pageToken is not one this API issued');
  const expected = await sign(body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unusable('The pageToken is not one this API issued, or it was altered');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  if (payload.b !== digestOf(binding)) {
    throw unusable('The pageToken belongs to another listing, organization, order, filter or page size than this request');
  }
  if (payload.x * 1000 <= now) throw unusable(`The pageToken has expired (tokens last ${PAGE_TOKEN_TTL_SECONDS / 3600} hours)`);
  return { number: payload.n, after: payload.a as P };
}

/** The 422 of a request that gives both a page number and a pageToken. */
export const pageAndTokenError = (pageField: string) =>
  new ValidationError({ details: [
    {
      fieldName: pageField,
      message: `Give either ${pageField} or pageToken, not both: a pageToken carries its page's number (to jump to a page by number, leave pageToken out)`,
      errorCode: 'FIELD_INVALID',
    },
  ] });

/** Sorted keys, so that the same query digests the same whatever order its parameters came in. */
const canonical = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]))
    : value;

/** A digest rather than the values: a search term or a filter never travels in a token. */
const digestOf = (binding: PageBinding) => createHash('sha256').update(JSON.stringify(canonical(binding))).digest('base64url').slice(0, 22);

async function sign(body: string): Promise<Buffer> {
  return createHmac('sha256', await signingKey()).update(body).digest();
}

/** The key, read once per container; the first reader of a new table writes it. */
const signingKey = tableSecret(keys.pageTokenKey(), 'PAGETOKENKEY');
