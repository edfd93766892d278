import type { OrgScope } from '../access/org-access';
import { NotFoundError } from '../errors';
import { compareText, fold, quickMatches } from '../text/matching';
import { readDirectory, type DirectoryEntry } from './user-directory';
import type { UserRecord } from './user.entities';
import { getUser, getUsers } from './user.repository';

/**
 * Reading users (spec 4.3): a listing and a quicksearch from one read of the organization's directory,
 * then only the users the answer holds; and one user. The handler authorizes the scope.
 */

export type UserOrder = 'createdAt' | 'name' | 'email' | 'company';

export interface UserListQuery {
  page: number;
  linesPerPage: number;
  orderBy: UserOrder;
  direction: 'ASC' | 'DESC';
  searchTerms?: string;
  status: 'ACTIVE' | 'DELETED' | 'ALL';
}

/** One page of a listing and how many users match in all. */
export interface UserListing {
  users: UserRecord[];
  total: number;
}

const comparators: Record<UserOrder, (a: DirectoryEntry, b: DirectoryEntry) => number> = {
  createdAt: (a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0),
  name: (a, b) => compareText(a.name, b.name),
  email: (a, b) => compareText(a.email, b.email),
  company: (a, b) => compareText(a.company, b.company),
};

/**
 * The users of page `query.page` (0-based) and the number matching. Reads: the directory's shards (one
 * BatchGetItem), then the page's users (one BatchGetItem of at most `linesPerPage` items).
 */
export async function listUsers(scope: OrgScope, query: UserListQuery): Promise<UserListing> {
  const words = fold(query.searchTerms ?? '').split(/\s+/).filter(Boolean);
  const matches = (entry: DirectoryEntry) => {
    if (query.status !== 'ALL' && entry.status !== query.status) return false;
    if (words.length === 0) return true;
    const text = fold(`${entry.name}\n${entry.email}\n${entry.company}`);
    return words.every((word) => text.includes(word));
  };
  const sign = query.direction === 'ASC' ? 1 : -1;
  const compare = comparators[query.orderBy];
  const found = (await readDirectory(scope.orgUuid))
    .filter(matches)
    .sort((a, b) => sign * (compare(a, b) || comparators.createdAt(a, b) || (a.uuid < b.uuid ? -1 : 1)));

  const slice = found.slice(query.page * query.linesPerPage, (query.page + 1) * query.linesPerPage);
  const users = await getUsers(scope.orgUuid, slice.map((entry) => entry.uuid));
  return { users, total: found.length };
}

/** Names of the organization's active users matching the quicksearch rule, alphabetical. Reads: the directory. */
export async function quicksearchUsers(scope: OrgScope, term: string, limit: number): Promise<string[]> {
  return (await readDirectory(scope.orgUuid))
    .filter((entry) => entry.status === 'ACTIVE' && quickMatches(term, entry.name))
    .map((entry) => entry.name)
    .sort(compareText)
    .slice(0, limit);
}

/** A user of the scope's organization, or 404. */
export async function requireUser(orgUuid: string, userUuid: string): Promise<UserRecord> {
  const user = await getUser(orgUuid, userUuid);
  if (!user) throw new NotFoundError('The user was not found');
  return user;
}

/** One user of the scope's organization; the caller itself is answered as authentication loaded it. */
export async function readUser(scope: OrgScope, userUuid: string): Promise<UserRecord> {
  return userUuid === scope.caller.uuid ? scope.caller : requireUser(scope.orgUuid, userUuid);
}
