import { callerUser, type OrgScope } from './org-scope';
import { nothingPrefetched, type Prefetched } from '../org/prefetched.port';
import { NotFoundError, ValidationError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { getItem, queryPartition } from '../../adapters/store/table';
import { compareText, fold, quickMatchesFolded, quickTermOf } from '../../kernel/text/matching';
import {
  matchesSearch,
  NAME_CHANGE_TTL_SECONDS,
  POSTING_PREFIX,
  prefixOf,
  searchOf,
  sortKeyOf,
  type ListingEntry,
  type ListingOrder,
  type NameChange,
  type Search,
} from './user-index';
import type { UserRecord, UserStatus } from './user.entities';
import { getUser, getUsers } from './user.repository';
import { groupDigits } from '../../kernel/text/numbers';

/**
 * Reading users (docs/api/users.md) from the users index (`user-index.ts`): a page reads the first entries of
 * one listing partition per status, the count and then the page's users; a search reads the postings
 * of one word prefix; a quicksearch a list of names each container keeps. The handler authorizes the scope.
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

interface UserCount {
  ACTIVE?: number;
  DELETED?: number;
  version?: number;
}

const statusesOf = (status: UserListQuery['status']): UserStatus[] => (status === 'ALL' ? ['ACTIVE', 'DELETED'] : [status]);

export async function readUserCount(orgUuid: string, options?: { consistent?: boolean }): Promise<UserCount> {
  return (await getItem<UserCount>(keys.userCount(orgUuid), options)) ?? {};
}

/**
 * The users of page `query.page` (0-based), or of the page after the sort key `after` (a page
 * token's position), and the number matching. Without search terms: one entry more than the page of
 * each status's listing partition in the order asked (one Query each, merged for `ALL`): the first
 * `(page + 1) × linesPerPage + 1`, or, after a position, the `linesPerPage + 1` past it (the Query
 * starts there: the same cost at any depth); beside the count (one GetItem), then the page's users
 * (one BatchGetItem). With search terms: see `searchEntries`.
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
  const past = (entry: ListingEntry) => after === undefined || sign * (keyOf(entry) < after ? -1 : keyOf(entry) > after ? 1 : 0) > 0;
  let entries: ListingEntry[];
  let total: number;
  if (search.length > 0) {
    const found = (await searchEntries(orgUuid, search, statusesOf(query.status))).sort(order);
    entries = found.filter(past).slice(offset, offset + query.linesPerPage + 1);
    total = found.length;
  } else {
    const limit = offset + query.linesPerPage + 1;
    const [count, ...partitions] = await Promise.all([
      readUserCount(orgUuid),
      ...statusesOf(query.status).map((status) =>
        queryPartition<ListingEntry>(keys.userListing(orgUuid, status, query.orderBy), { forward: sign > 0, limit, exclusiveStart: after }),
      ),
    ]);
    entries = partitions.flat().sort(order).slice(offset, limit);
    total = statusesOf(query.status).reduce((sum, status) => sum + Math.max(0, count[status] ?? 0), 0);
  }
  const page = entries.slice(0, query.linesPerPage);
  const next = entries.length > query.linesPerPage ? keyOf(page.at(-1)!) : undefined;
  return { users: await getUsers(orgUuid, page.map((entry) => entry.uuid)), total, ...(next !== undefined ? { next } : {}) };
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
 * matching user has a word it begins), then checks each candidate's name, e-mail and company; when
 * every word is shorter than that, no posting narrows the search and the listing partitions are read
 * whole, up to `SHORT_SEARCH_MAX_USERS` users.
 */
async function searchEntries(orgUuid: string, search: Search, statuses: UserStatus[]): Promise<ListingEntry[]> {
  const longest = search.flat().sort((a, b) => Array.from(b).length - Array.from(a).length)[0]!;
  const candidates =
    Array.from(longest).length >= POSTING_PREFIX
      ? await queryPartition<ListingEntry>(keys.userPostings(orgUuid, prefixOf(longest)), { forward: true })
      : await shortSearchCandidates(orgUuid, statuses);
  return candidates.filter((entry) => statuses.includes(entry.status) && matchesSearch(entry, search));
}

async function shortSearchCandidates(orgUuid: string, statuses: UserStatus[]): Promise<ListingEntry[]> {
  const count = await readUserCount(orgUuid);
  if (statuses.reduce((sum, status) => sum + Math.max(0, count[status] ?? 0), 0) > SHORT_SEARCH_MAX_USERS) {
    throw new ValidationError({ details: [
      {
        fieldName: 'searchTerms',
        message: `With more than ${groupDigits(SHORT_SEARCH_MAX_USERS)} users, at least one search word must have ${POSTING_PREFIX} or more characters`,
        errorCode: 'FIELD_INVALID',
      },
    ] });
  }
  const entries = await Promise.all(statuses.map((status) => queryPartition<ListingEntry>(keys.userListing(orgUuid, status, 'createdAt'), { forward: true })));
  return entries.flat();
}

/** A name as the list keeps it: folded once, when read, not on every quicksearch (94,939 names folded took most of a request's time). */
interface ActiveName {
  name: string;
  folded: string;
}
const activeName = (name: string): ActiveName => ({ name, folded: fold(name) });

/**
 * The active users' names each container keeps per organization for quicksearch: by uuid, the count
 * version they are up to, and how far into the name changes they have read.
 */
interface NameList {
  version: number;
  names: Map<string, ActiveName>;
  /** Name changes filed at or after this time are read again on the next catch-up (see CLOCK_MARGIN_MS). */
  readFrom: string;
  loadedAt: number;
}
const nameLists = new Map<string, NameList>();
/** Writers' clocks may differ by this much: a catch-up reads again the changes of this last stretch. */
export const CLOCK_MARGIN_MS = 10_000;

/**
 * Names of the organization's active users matching the quicksearch rule, alphabetical, at most
 * `limit`. Reads: the count (its version: every user write moves it); when the version moved since
 * this container's last look, the name changes filed since (one Query, a few items); when the
 * container has no list, or one older than the changes are kept, every active user's name.
 */
export async function quicksearchUsers(scope: OrgScope, term: string, limit: number): Promise<string[]> {
  const names = await activeNames(scope.orgUuid);
  const found: string[] = [];
  const wanted = quickTermOf(term);
  for (const { name, folded } of names.values()) if (quickMatchesFolded(wanted, folded)) found.push(name);
  return found.sort(compareText).slice(0, limit);
}

async function activeNames(orgUuid: string): Promise<Map<string, ActiveName>> {
  // Strongly consistent throughout: an eventual read could pair a new version with names from before
  // it, and the container would keep them until the next write.
  const count = await readUserCount(orgUuid, { consistent: true });
  const { version = 0 } = count;
  const cached = nameLists.get(orgUuid);
  if (cached?.version === version) return cached.names;
  const startedAt = Date.now();
  const readFrom = new Date(startedAt - CLOCK_MARGIN_MS).toISOString();
  if (cached && startedAt - cached.loadedAt < (NAME_CHANGE_TTL_SECONDS * 1000) / 2) {
    const changes = await queryPartition<NameChange>(keys.userNameChanges(orgUuid), { forward: true, consistent: true, after: cached.readFrom });
    // In time order: the last change of a user is its state now.
    for (const change of changes) {
      if (change.active) cached.names.set(change.uuid, activeName(change.name));
      else cached.names.delete(change.uuid);
    }
    Object.assign(cached, { version, readFrom });
    return cached.names;
  }
  const entries = await readActiveNames(orgUuid, count.ACTIVE ?? 0);
  const list: NameList = { version, names: new Map(entries.map((entry) => [entry.uuid, activeName(entry.name)])), readFrom, loadedAt: startedAt };
  nameLists.set(orgUuid, list);
  return list.names;
}

/**
 * From this many active users on, the name list is read in `NAME_RANGES`, `NAME_RANGE_READS` at a time,
 * instead of as one Query: each range is its own short run of pages. One long run costs DynamoDB
 * Local a seek from the partition's start for every 1 MB page, so 94,939 names took 48 s as one Query
 * (past the function's 20 s) and 4.7 s in ranges (docs/benchmarks.md#users-at-scale); in DynamoDB the
 * ranges' pages are read 4 at a time instead of one after another. Below it, one Query reads the list
 * in a few pages.
 */
export const RANGED_READ_FROM = 5_000;
const NAME_RANGE_READS = 4;
/**
 * Where the name listing is cut: its sort keys begin with the folded name (`sortKeyOf`), so these
 * single characters split it by the name's first letter (Latin letters one or two each, then scripts
 * by their blocks: Greek and Cyrillic, Hebrew and Arabic, Indic and others, Hangul (folded to its
 * jamo), kana, Han in three, then the rest). No sort key equals a cut (a name's key goes on past it),
 * so the ranges meet without overlap.
 */
export const NAME_RANGES = ['0', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'r', 's', 't', 'u', 'w', '{', '\u0370', '\u0590', '\u0900', '\u1100', '\u3000', '\u4e00', '\u6000', '\u8000', '\ua000'];

/** Every active user's uuid and name: one Query, or, from `RANGED_READ_FROM` users on, one per name range. */
async function readActiveNames(orgUuid: string, active: number): Promise<{ uuid: string; name: string }[]> {
  const pk = keys.userListing(orgUuid, 'ACTIVE', 'name');
  const read = (range: { before?: string; between?: [string, string]; after?: string }) =>
    queryPartition<{ uuid: string; name: string }>(pk, { forward: true, attributes: ['uuid', 'name'], consistent: true, ...range });
  if (active < RANGED_READ_FROM) return read({});
  const ranges = [
    { before: NAME_RANGES[0]! },
    ...NAME_RANGES.slice(1).map((high, i) => ({ between: [NAME_RANGES[i]!, high] as [string, string] })),
    { after: NAME_RANGES.at(-1)! },
  ];
  const found: { uuid: string; name: string }[] = [];
  const lane = async () => {
    for (let range = ranges.shift(); range; range = ranges.shift()) found.push(...(await read(range)));
  };
  await Promise.all(Array.from({ length: NAME_RANGE_READS }, lane));
  return found;
}

/**
 * The listing entries of both statuses in creation order (oldest first), at most `first` of each when
 * given (a page's worth), with the number of users in all. Entries hold what a listing needs plus
 * `updatedAt` and `externalId` (`user-index.ts`), so a provisioning client's filter reads no user item.
 */
export async function entriesByCreation(orgUuid: string, first?: number): Promise<{ entries: ListingEntry[]; total: number }> {
  const statuses: UserStatus[] = ['ACTIVE', 'DELETED'];
  const [count, ...partitions] = await Promise.all([
    readUserCount(orgUuid),
    ...statuses.map((status) =>
      queryPartition<ListingEntry>(keys.userListing(orgUuid, status, 'createdAt'), { forward: true, ...(first !== undefined ? { limit: first } : {}) }),
    ),
  ]);
  const entries = partitions.flat().sort((a, b) => (sortKeyOf('createdAt', a) < sortKeyOf('createdAt', b) ? -1 : 1));
  const total = statuses.reduce((sum, status) => sum + Math.max(0, count[status] ?? 0), 0);
  return { entries: first !== undefined ? entries.slice(0, first) : entries, total };
}

/** A user of the scope's organization (from the request's first read when it was prefetched), or 404. */
export async function requireUser(orgUuid: string, userUuid: string, prefetched: Prefetched = nothingPrefetched): Promise<UserRecord> {
  const user = await prefetched.or(userReadKey(orgUuid, userUuid), () => getUser(orgUuid, userUuid));
  if (!user) throw new NotFoundError('The user was not found');
  return user;
}

/** One user of the scope's organization; the caller itself is answered as authentication loaded it. */
export async function readUser(scope: OrgScope, userUuid: string, prefetched: Prefetched = nothingPrefetched): Promise<UserRecord> {
  const caller = callerUser(scope);
  return caller && userUuid === caller.uuid ? caller : requireUser(scope.orgUuid, userUuid, prefetched);
}

/** The item `readUser` reads, for a route to read it together with its caller (`prefetch`). */
export const userReadKey = (orgUuid: string, userUuid: string) => keys.userKey(orgUuid, userUuid);
