import { keys, type ItemKey } from '../../adapters/store/keys';
import { Prefetched as StorePrefetched } from '../../adapters/store/prefetched';
import { getItemsByKey, keyId } from '../../adapters/store/table';

/**
 * The authenticated call's one BatchGetItem: the session, its user, the stamp of the user's e-mail
 * domain and the items the route's access check and use case will read, read together and handed on
 * as `Prefetched` (below: a use case reads what was not asked for itself).
 */

/** The keys without repeats, in their order: BatchGetItem refuses a key asked twice. */
export const uniqueKeys = (asked: readonly ItemKey[]): ItemKey[] => [...new Map(asked.map((key) => [keyId(key), key])).values()];

/** Reads `asked` (each key once) in one BatchGetItem. */
export async function readAhead(asked: readonly ItemKey[]): Promise<Prefetched> {
  const unique = uniqueKeys(asked);
  return new StorePrefetched(unique, await getItemsByKey(unique));
}

/** Where a session and a user are kept, for the batch that reads them beside the rest. */
export const callerKeys = {
  session: (sessionId: string): ItemKey => keys.sessionKey(sessionId),
  user: (orgUuid: string, userUuid: string): ItemKey => keys.userKey(orgUuid, userUuid),
};

export type { ItemKey };

/**
 * The items a route read ahead, in the caller's BatchGetItem (docs/architecture.md#request-path). The
 * repositories name what a route may read ahead (`agentReads`, `botPathReads`, …) and look their
 * items up in it; the tiers above only hand both on, so what a route prefetches only saves round
 * trips: it never decides what a use case sees. The store's `Prefetched` implements it.
 */
export interface Prefetched {
  /** Whether the batch asked for `key` (then `or` answers without a read). */
  has(key: ItemKey): boolean;
  /** The item under `key` as the batch found it (undefined: it does not exist), or `read()`'s when the batch did not ask for it. */
  or<T>(key: ItemKey, read: () => Promise<T | undefined>): Promise<T | undefined>;
}

/** Nothing was read ahead (operator tools, benchmarks, tests calling use cases directly). */
export const nothingPrefetched: Prefetched = StorePrefetched.none;
