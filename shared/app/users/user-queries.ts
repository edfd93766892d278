import type { OrgScope } from '../../domain/users/org-scope';
import { ValidationError } from '../../kernel/errors';
import {
  matchesSearch,
  POSTING_PREFIX,
  prefixOf,
  searchOf,
  sortKeyOf,
  type ListingEntry,
  type ListingOrder,
  type Search,
} from '../../domain/users/user-index';
import { RANGED_READ_FROM, readListing, readListingChanges, readPostings, readUserCount, type UserCount } from '../../domain/users/user-index.repository';
import { recall, remember, resized, type Listed, type Remembered } from './listing-memo';
import type { UserRecord, UserStatus } from '../../domain/users/user.entities';
import { getUsers } from '../../domain/users/user.repository';
import { groupDigits } from '../../kernel/text/numbers';
import { firstIndexNotBefore } from '../../kernel/sorted';

/**
 * Reading users (docs/api/users.md) from the users index (`user-index.ts`, read through `user-index.repository.ts`): a page reads the first entries of
 * one listing partition per status, the count and then the page's users; a search reads the postings
 * of one word prefix (quicksearch: `user-quicksearch.ts`). The handler authorizes the scope.
 */

export type UserOrder = ListingOrder;

export interface UserListQuery {
  page: number;
  linesPerPage: number;
  orderBy: UserOrder;
  direction: 'ASC' | 'DESC';
  searchTerms?: string;
  status: 'ACTIVE' | 'DELETED' | 'ALL';
}

/**
 * One page of a listing, how many users match in all, and where the next page starts (the sort key
 * of this page's last entry in the listing's order; absent on the last page).
 */
export interface UserListing {
  users: UserRecord[];
  total: number;
  next?: string;
}

const statusesOf = (status: UserListQuery['status']): UserStatus[] => (status === 'ALL' ? ['ACTIVE', 'DELETED'] : [status]);

/**
 * From this offset on a page is deep: its listing is read strongly consistent and remembered
 * (`listing-memo.ts`), so that the pages after it, and it again, cost what a first page costs while
 * the organization is not written (docs/decisions/deep-pages-from-a-versioned-memo.md). Shallower
 * pages read as they always did.
 */
export const DEEP_FROM = 100;
/** A deep page's read goes this many pages past it, so that the next pages are in memory too. */
export const READ_AHEAD_PAGES = 10;

/**
 * The users of page `query.page` (0-based), or of the page after the sort key `after` (a page
 * token's position), and the number matching. Without search terms, before `DEEP_FROM`: one entry
 * more than the page of each status's listing partition in the order asked (one Query each, merged
 * for `ALL`): the first `(page + 1) × linesPerPage + 1`, or, after a position, the `linesPerPage + 1`
 * past it (the Query starts there: the same cost at any depth); beside the count (one GetItem), then
 * the page's users (one BatchGetItem). A deep page, and any page of a search (whose exact total needs
 * every match), read the count first and, when this container remembers the listing at the count's
 * version, only the page's users: see `rememberedPage`.
 */
export async function listUsers(scope: OrgScope, query: UserListQuery, after?: string): Promise<UserListing> {
  const { orgUuid } = scope;
  const offset = after === undefined ? query.page * query.linesPerPage : 0;
  const search = searchOf(query.searchTerms ?? '');
  const sign = query.direction === 'ASC' ? 1 : -1;
  const keyOf = (entry: ListingEntry) => sortKeyOf(query.orderBy, entry);
  const order = (a: ListingEntry, b: ListingEntry) => {
    const [x, y] = [keyOf(a), keyOf(b)];
    return sign * (x < y ? -1 : x > y ? 1 : 0);
  };
  if (search.length > 0 || (after === undefined && offset >= DEEP_FROM)) return rememberedPage(orgUuid, query, search, after);
  const limit = offset + query.linesPerPage + 1;
  const [count, ...partitions] = await Promise.all([
    readUserCount(orgUuid),
    ...statusesOf(query.status).map((status) =>
      readListing(orgUuid, status, query.orderBy, { forward: sign > 0, limit, exclusiveStart: after }),
    ),
  ]);
  const entries = partitions.flat().sort(order).slice(offset, limit);
  const page = entries.slice(0, query.linesPerPage);
  const next = entries.length > query.linesPerPage ? keyOf(page.at(-1)!) : undefined;
  return { users: await getUsers(orgUuid, page.map((entry) => entry.uuid)), total: countOf(count, query.status), ...(next !== undefined ? { next } : {}) };
}

const countOf = (count: UserCount, status: UserListQuery['status']) => statusesOf(status).reduce((sum, s) => sum + Math.max(0, count[s] ?? 0), 0);

/** Writers' clocks may differ by this much: a catch-up reads again the changes of this last stretch. */
export const CLOCK_MARGIN_MS = 10_000;

/** A deep listing read this long ago is read whole again (a change filed more than the clock margin late would be missed until then). */
export const MEMO_RELOAD_MS = 10 * 60_000;

/**
 * A deep page, or a page of a search (from its start or past the sort key `after`): the count read
 * strongly consistent (its version moves with every user write), then the listing this container
 * remembers (`rememberedListing`), then the page's users. A page of the plain listing nearer its end
 * than its start is read from the end: the same listing in the other direction, up to the page, so
 * that the last pages cost what the first ones do (the count gives the position from the end).
 */
async function rememberedPage(orgUuid: string, query: UserListQuery, search: Search, after: string | undefined): Promise<UserListing> {
  const lines = query.linesPerPage;
  const offset = after === undefined ? query.page * lines : 0;
  const count = await readUserCount(orgUuid, { consistent: true });
  const plainTotal = countOf(count, query.status);
  const fromEnd = search.length === 0 && after === undefined && offset > plainTotal - offset;
  const direction = fromEnd ? (query.direction === 'ASC' ? 'DESC' : 'ASC') : query.direction;
  const tail = plainTotal - offset;
  if (fromEnd && tail <= 0) return { users: [], total: plainTotal };
  const listing = await rememberedListing(orgUuid, { ...query, direction }, search, count, fromEnd ? tail : offset + lines + 1);
  const total = search.length > 0 ? listing.entries.length : plainTotal;
  let page: Listed[];
  let more: boolean;
  if (fromEnd) {
    page = listing.entries.slice(Math.max(0, tail - lines), Math.max(0, tail)).reverse();
    more = offset + lines < total;
  } else {
    const start = after === undefined ? offset : firstPast(listing.entries, after, query.direction === 'ASC' ? 1 : -1);
    const entries = listing.entries.slice(start, start + lines + 1);
    [page, more] = [entries.slice(0, lines), entries.length > lines];
  }
  const next = more && page.length > 0 ? page.at(-1)!.key : undefined;
  return { users: await getUsers(orgUuid, page.map((entry) => entry.uuid)), total, ...(next !== undefined ? { next } : {}) };
}

/**
 * The listing of `query`'s status, order, direction and `search` this container remembers, holding at
 * least `needed` entries (or all): as it is at the count's version, or caught up with the listing
 * changes filed since its last read (one strongly consistent Query of each change partition: a few
 * items); when it has none, or an older one than `MEMO_RELOAD_MS`, read strongly consistent (the first
 * entries up to `READ_AHEAD_PAGES` pages past `needed`, or a search's every match) and remembered.
 */
async function rememberedListing(orgUuid: string, query: UserListQuery, search: Search, count: UserCount, needed: number): Promise<Remembered> {
  const statuses = statusesOf(query.status);
  const version = count.version ?? 0;
  const startedAt = Date.now();
  const readFrom = new Date(startedAt - CLOCK_MARGIN_MS).toISOString();
  const sign = query.direction === 'ASC' ? 1 : -1;
  const keyOf = (entry: ListingEntry) => sortKeyOf(query.orderBy, entry);
  // Each entry's sort key made once, then compared: a sort compares each entry some 17 times at 100,000.
  const inOrder = (entries: ListingEntry[]) =>
    entries.map((entry) => ({ uuid: entry.uuid, key: keyOf(entry) })).sort((a, b) => sign * (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const id = [orgUuid, query.status, query.orderBy, query.direction, search.map((joined) => joined.join('.')).join(' ')].join('\u0000');
  const kept = recall(id, needed);
  if (kept && kept.version === version) return kept;
  if (kept && startedAt - kept.loadedAt < MEMO_RELOAD_MS) {
    const changes = await readListingChanges(orgUuid, kept.readFrom);
    const belongs = (entry: ListingEntry) => statuses.includes(entry.status) && (search.length === 0 || matchesSearch(entry, search));
    if (changes.every((change) => change.entry)) {
      const before = kept.entries.length;
      for (const change of changes) applyChange(kept, change.entry!, belongs(change.entry!) ? keyOf(change.entry!) : undefined, sign);
      Object.assign(kept, { version, readFrom });
      resized(id, kept.entries.length - before);
      if (kept.complete || kept.entries.length >= needed) return kept;
    }
  }
  let listing: Remembered;
  if (search.length > 0) {
    listing = { version, entries: inOrder(await searchEntries(orgUuid, search, query.status, count, { consistent: true })), complete: true, readFrom, loadedAt: startedAt };
  } else {
    const limit = needed + READ_AHEAD_PAGES * query.linesPerPage;
    const partitions = await Promise.all(
      statuses.map((status) => readListing(orgUuid, status, query.orderBy, { forward: sign > 0, limit, consistent: true })),
    );
    listing = { version, entries: inOrder(partitions.flat()).slice(0, limit), complete: partitions.every((p) => p.length < limit), readFrom, loadedAt: startedAt };
  }
  remember(id, listing);
  return listing;
}

/**
 * A user's entry as it is now, in a remembered listing: its place there, if any, left, and `key` (its
 * sort key, when it belongs to the listing) taken in order. A listing read only up to a key takes no
 * entry past that key (it holds every entry up to it, and no more). Applying a change twice changes nothing.
 */
function applyChange(listing: Remembered, entry: ListingEntry, key: string | undefined, sign: number): void {
  const at = listing.entries.findIndex((listed) => listed.uuid === entry.uuid);
  if (at >= 0) listing.entries.splice(at, 1);
  if (key === undefined) return;
  const last = listing.entries.at(-1);
  const before = (a: string, b: string) => sign * (a < b ? -1 : a > b ? 1 : 0) < 0;
  if (!listing.complete && (last === undefined || before(last.key, key))) return;
  listing.entries.splice(firstPast(listing.entries, key, sign, true), 0, { uuid: entry.uuid, key });
}

/** The index of the first entry past `key` in the listing's order (or at it, `orAt`): a binary search. */
function firstPast(entries: Listed[], key: string, sign: number, orAt = false): number {
  return firstIndexNotBefore(entries.length, (index) => sign * (entries[index]!.key < key ? -1 : entries[index]!.key > key ? 1 : 0) < (orAt ? 0 : 1));
}

/**
 * The most users a search whose every word is shorter than `POSTING_PREFIX` reads: such a search has
 * no posting to narrow it and reads the listing partitions whole (about 20,000 entries, some 1,500
 * read units and a second on DynamoDB Local, well inside the users function's 20 s). Beyond it the
 * search is refused with a 422 asking for a longer word, rather than timing out.
 */
export const SHORT_SEARCH_MAX_USERS = 20_000;

/**
 * The entries matching the search (`matchesSearch`). Reads the postings of the first three characters
 * of the search's longest word (a word joined to others by punctuation counts on its own: every
 * matching user has a word it begins), in ranges in an organization of `RANGED_READ_FROM` users or
 * more, then checks each candidate's name, e-mail and company; when every word is shorter than that,
 * no posting narrows the search and the listing partitions are read whole, up to
 * `SHORT_SEARCH_MAX_USERS` users. `count` is the organization's, read before.
 */
async function searchEntries(orgUuid: string, search: Search, status: UserListQuery['status'], count: UserCount, options: { consistent?: boolean }): Promise<ListingEntry[]> {
  const statuses = statusesOf(status);
  const longest = search.flat().sort((a, b) => Array.from(b).length - Array.from(a).length)[0]!;
  const users = countOf(count, 'ALL');
  if (Array.from(longest).length < POSTING_PREFIX && countOf(count, status) > SHORT_SEARCH_MAX_USERS) {
    throw new ValidationError({ details: [
      {
        fieldName: 'searchTerms',
        message: `With more than ${groupDigits(SHORT_SEARCH_MAX_USERS)} users, at least one search word must have ${POSTING_PREFIX} or more characters`,
        errorCode: 'FIELD_INVALID',
      },
    ] });
  }
  const candidates =
    Array.from(longest).length >= POSTING_PREFIX
      ? await readPostings(orgUuid, prefixOf(longest), { ...options, ranged: users >= RANGED_READ_FROM })
      : (await Promise.all(statuses.map((status) => readListing(orgUuid, status, 'createdAt', { forward: true, ...options })))).flat();
  return candidates.filter((entry) => statuses.includes(entry.status) && matchesSearch(entry, search));
}

// Reading one user is the repository's (identity-provider links read it too); the users function reaches it here.
export { readUser, userReadKey } from '../../domain/users/user.repository';
