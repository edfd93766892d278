import type { OrgScope } from '../../domain/users/org-scope';
import { compareText, fold, quickMatchesFolded, quickTermOf } from '../../kernel/text/matching';
import { NAME_CHANGE_TTL_SECONDS } from '../../domain/users/user-index';
import { readActiveNames, readNameChanges, readUserCount } from '../../domain/users/user-index.repository';
import { CLOCK_MARGIN_MS } from './user-queries';

/** Quicksearch (docs/api/users.md#quicksearch): the active users' names each container keeps per organization, caught up with the name changes. */

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
    const changes = await readNameChanges(orgUuid, cached.readFrom);
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
