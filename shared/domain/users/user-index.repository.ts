import { keys, type ItemKey } from '../../adapters/store/keys';
import { queryPartition, getItem, type TableWrite } from '../../adapters/store/table';
import {
  entryOf,
  indexedWords,
  listingOrders,
  NAME_CHANGE_TTL_SECONDS,
  prefixOf,
  sortKeyOf,
  type ListingEntry,
  type ListingOrder,
  type NameChange,
} from './user-index';
import type { UserRecord, UserStatus } from './user.entities';

/**
 * The users index in the store (docs/data-model.md#the-users-index): the writes that keep it in step
 * with a user item, in the same transaction (`indexWrites`), and its reads: the count, a listing
 * partition, the postings of a word prefix, the name changes and the active users' names. The rules
 * of its entries and of the search are `user-index.ts`.
 */

interface IndexItem {
  key: ItemKey;
  item?: Record<string, unknown>;
}

/** Every index item a user record has (none for a record not yet written). */
function indexItemsOf(user: UserRecord): IndexItem[] {
  const entry = entryOf(user);
  const listings = listingOrders.map((order) => {
    const key = keys.userListingEntry(user.orgUuid, user.status, order, sortKeyOf(order, entry));
    return { key, item: { ...key, type: 'USERLIST', ...entry } };
  });
  const words = indexedWords(entry);
  const prefixes = [...new Set(words.map(prefixOf))];
  const postings = prefixes.map((prefix) => {
    const key = keys.userPosting(user.orgUuid, prefix, user.uuid);
    return { key, item: { ...key, type: 'USERTERM', ...entry } };
  });
  return [...listings, ...postings];
}

const keyOf = ({ PK, SK }: ItemKey) => `${PK}\u0000${SK}`;

/**
 * The writes that bring the index from what `previous` had (nothing for a new user, or for a user
 * the index has not seen yet: `countedStatus` absent) to what `user` needs: the items it no longer
 * has deleted, its items put, and the count moved when the counted status changes.
 */
export function indexWrites(user: UserRecord & { countedStatus?: UserStatus }, previous: (UserRecord & { countedStatus?: UserStatus }) | undefined): TableWrite[] {
  const next = indexItemsOf(user);
  const kept = new Set(next.map((item) => keyOf(item.key)));
  const removed = previous ? indexItemsOf(previous).filter((item) => !kept.has(keyOf(item.key))) : [];
  const counted = previous?.countedStatus;
  const count: Record<string, number> = { version: 1 };
  if (counted !== user.status) {
    count[user.status] = 1;
    if (counted) count[counted] = -1;
  }
  const names = Object.keys(count);
  const nameMoved = !previous?.countedStatus || previous.name !== user.name || previous.status !== user.status;
  const [entry, before] = [entryOf(user), previous ? entryOf(previous) : undefined];
  const listingMoved = !nameMoved && (before?.email !== entry.email || before?.company !== entry.company || before?.createdAt !== entry.createdAt);
  // Filed under the time of this write (not the record's `updatedAt`: the migration writes old records).
  const changedAt = new Date().toISOString();
  const change: NameChange = { uuid: user.uuid, name: user.name, active: user.status === 'ACTIVE', changedAt, entry };
  const ttl = Math.floor(Date.now() / 1000) + NAME_CHANGE_TTL_SECONDS;
  return [
    ...removed.map((item): TableWrite => ({ Delete: { Key: item.key } })),
    ...next.map((item): TableWrite => ({ Put: { Item: item.item! } })),
    ...(nameMoved ? [{ Put: { Item: { ...keys.userNameChange(user.orgUuid, changedAt, user.uuid), type: 'USERNAMECHANGE', ...change, ttl } } } satisfies TableWrite] : []),
    ...(listingMoved ? [{ Put: { Item: { ...keys.userListingChange(user.orgUuid, changedAt, user.uuid), type: 'USERLISTINGCHANGE', ...change, ttl } } } satisfies TableWrite] : []),
    {
      Update: {
        Key: keys.userCount(user.orgUuid),
        UpdateExpression: `ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:c${i}`, count[name]])),
      },
    },
  ];
}

/** An organization's user count: users by status, and the version every user write moves. */
export interface UserCount {
  ACTIVE?: number;
  DELETED?: number;
  version?: number;
}

export async function readUserCount(orgUuid: string, options?: { consistent?: boolean }): Promise<UserCount> {
  return (await getItem<UserCount>(keys.userCount(orgUuid), options)) ?? {};
}

/** One Query of a status's listing partition in an order: from its start (or past the sort key `exclusiveStart`), at most `limit` entries when given. */
export async function readListing(
  orgUuid: string,
  status: UserStatus,
  order: ListingOrder,
  options: { forward: boolean; limit?: number; exclusiveStart?: string; consistent?: boolean },
): Promise<ListingEntry[]> {
  return queryPartition<ListingEntry>(keys.userListing(orgUuid, status, order), options);
}

/**
 * The postings of one word prefix: every user with a word it begins, as listing entries. One Query,
 * or, with `ranged` (an organization of `RANGED_READ_FROM` users or more), one per `UUID_RANGES` range
 * (a posting's sort key is the user's uuid), as the name list is read.
 */
export async function readPostings(orgUuid: string, prefix: string, options: { consistent?: boolean; ranged?: boolean } = {}): Promise<ListingEntry[]> {
  const { ranged, ...read } = options;
  const pk = keys.userPostings(orgUuid, prefix);
  if (!ranged) return queryPartition<ListingEntry>(pk, { forward: true, ...read });
  const found = await readRanges(UUID_RANGES, (range) => queryPartition<ListingEntry>(pk, { forward: true, ...read, ...range }));
  // A range's bounds are inclusive: a sort key equal to a cut (no uuid is one character) is read by two ranges.
  return [...new Map(found.map((entry) => [entry.uuid, entry])).values()];
}

/** The name changes filed after `after`, in time order (one Query, strongly consistent). */
export async function readNameChanges(orgUuid: string, after: string): Promise<NameChange[]> {
  return queryPartition<NameChange>(keys.userNameChanges(orgUuid), { forward: true, consistent: true, after });
}

/**
 * Every change of a user's listing entry filed after `after`, in time order: the name changes and the
 * other listing changes (e-mail, company), two Queries in parallel, strongly consistent.
 */
export async function readListingChanges(orgUuid: string, after: string): Promise<NameChange[]> {
  const [names, others] = await Promise.all([
    readNameChanges(orgUuid, after),
    queryPartition<NameChange>(keys.userListingChanges(orgUuid), { forward: true, consistent: true, after }),
  ]);
  return [...names, ...others].sort((a, b) => (a.changedAt < b.changedAt ? -1 : a.changedAt > b.changedAt ? 1 : 0));
}

/**
 * From this many users on, the name list (and a search's postings) is read in ranges, `RANGE_READS` at a
 * time, instead of as one Query: each range is its own short run of pages. One long run costs DynamoDB
 * Local a seek from the partition's start for every 1 MB page, so 94,939 names took 48 s as one Query
 * (past the function's 20 s) and 4.7 s in ranges (docs/benchmarks.md#users-at-scale); in DynamoDB the
 * ranges' pages are read 4 at a time instead of one after another. Below it, one Query reads the list
 * in a few pages.
 */
export const RANGED_READ_FROM = 5_000;
const RANGE_READS = 4;
/**
 * Where the name listing is cut: its sort keys begin with the folded name (`sortKeyOf`), so these
 * single characters split it by the name's first letter (Latin letters one or two each, then scripts
 * by their blocks: Greek and Cyrillic, Hebrew and Arabic, Indic and others, Hangul (folded to its
 * jamo), kana, Han in three, then the rest). No sort key equals a cut (a name's key goes on past it),
 * so the ranges meet without overlap.
 */
export const NAME_RANGES = ['0', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'r', 's', 't', 'u', 'w', '{', '\u0370', '\u0590', '\u0900', '\u1100', '\u3000', '\u4e00', '\u6000', '\u8000', '\ua000'];

/** Every active user's uuid and name (strongly consistent): one Query, or, from `RANGED_READ_FROM` users on, one per name range. */
export async function readActiveNames(orgUuid: string, active: number): Promise<{ uuid: string; name: string }[]> {
  const pk = keys.userListing(orgUuid, 'ACTIVE', 'name');
  const read = (range: Range) => queryPartition<{ uuid: string; name: string }>(pk, { forward: true, attributes: ['uuid', 'name'], consistent: true, ...range });
  return active < RANGED_READ_FROM ? read({}) : readRanges(NAME_RANGES, read);
}

/** Where a posting partition is cut: its sort keys are uuids, whose first hex digit spreads them evenly over 16 ranges. */
export const UUID_RANGES = Array.from('123456789abcdef');

type Range = { before?: string; between?: [string, string]; after?: string };

/** Every item of the ranges `cuts` make (below the first, between each two, from the last on), `RANGE_READS` ranges at a time. */
async function readRanges<T>(cuts: string[], read: (range: Range) => Promise<T[]>): Promise<T[]> {
  const ranges: Range[] = [
    { before: cuts[0]! },
    ...cuts.slice(1).map((high, i) => ({ between: [cuts[i]!, high] as [string, string] })),
    { after: cuts.at(-1)! },
  ];
  const found: T[] = [];
  const lane = async () => {
    for (let range = ranges.shift(); range; range = ranges.shift()) found.push(...(await read(range)));
  };
  await Promise.all(Array.from({ length: RANGE_READS }, lane));
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
    ...statuses.map((status) => readListing(orgUuid, status, 'createdAt', { forward: true, ...(first !== undefined ? { limit: first } : {}) })),
  ]);
  const entries = partitions.flat().sort((a, b) => (sortKeyOf('createdAt', a) < sortKeyOf('createdAt', b) ? -1 : 1));
  const total = statuses.reduce((sum, status) => sum + Math.max(0, count[status] ?? 0), 0);
  return { entries: first !== undefined ? entries.slice(0, first) : entries, total };
}
