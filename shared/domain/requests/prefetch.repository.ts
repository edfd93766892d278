import { keys, type ItemKey } from '../../adapters/store/keys';
import { Prefetched } from '../../adapters/store/prefetched';
import { getItemsByKey, keyId } from '../../adapters/store/table';

/**
 * The authenticated call's one BatchGetItem: the session, its user, the stamp of the user's e-mail
 * domain and the items the route's access check and use case will read, read together and handed on
 * as `Prefetched` (`shared/domain/org/prefetched.port.ts`: a use case reads what was not asked for itself).
 */

/** The keys without repeats, in their order: BatchGetItem refuses a key asked twice. */
export const uniqueKeys = (asked: readonly ItemKey[]): ItemKey[] => [...new Map(asked.map((key) => [keyId(key), key])).values()];

/** Reads `asked` (each key once) in one BatchGetItem. */
export async function readAhead(asked: readonly ItemKey[]): Promise<Prefetched> {
  const unique = uniqueKeys(asked);
  return new Prefetched(unique, await getItemsByKey(unique));
}

/** Where a session and a user are kept, for the batch that reads them beside the rest. */
export const callerKeys = {
  session: (sessionId: string): ItemKey => keys.sessionKey(sessionId),
  user: (orgUuid: string, userUuid: string): ItemKey => keys.userKey(orgUuid, userUuid),
};
