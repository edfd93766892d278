import { keys, type RefreshSessionKind } from '../../adapters/store/keys';
import { deleteItems, queryIndexPage } from '../../adapters/store/table';
import { logger } from '../../kernel/logger';

/**
 * Ending many of a user's sessions at once: all of them (a password changed, the user deleted or
 * unlinked), or those one realm session's sign-ins began (its logout). Bounded work, page by page of the
 * user's sessions index: what a bound leaves ends by the credential stamp every such caller writes
 * first, or at its refresh token's idle time, and its TTL removes it.
 */

/** The most session items one revocation of all of a user's sessions deletes (see `revokeSessionsOf`). */
export const REVOKE_AT_MOST = 5000;

const REVOKE_PAGE = 200;

/** How long one ending of many sessions deletes for, at most. */
const REVOKE_MILLISECONDS = 3000;

/**
 * Deletes the items of the user's sessions index (under `prefix`, when given) that `ends` picks, for at
 * most `atMost` items or `REVOKE_MILLISECONDS`; how many it deleted, and whether it stopped short.
 */
async function endListed(
  userUuid: string,
  choice: { prefix?: string; attributes: readonly string[]; ends: (item: Record<string, unknown>) => boolean; atMost: number },
): Promise<{ deleted: number; stoppedShort: boolean }> {
  const until = Date.now() + REVOKE_MILLISECONDS;
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryIndexPage(keys.sessionsOf(userUuid), {
      limit: Math.min(REVOKE_PAGE, choice.atMost - deleted),
      attributes: choice.attributes,
      ...(choice.prefix === undefined ? {} : { prefix: choice.prefix }),
      ...(start ? { start } : {}),
    });
    const ending = page.items.filter(choice.ends).map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
    deleted += await deleteItems(ending, { until });
    start = page.next;
  } while (start !== undefined && deleted < choice.atMost && Date.now() < until);
  return { deleted, stoppedShort: start !== undefined };
}

/**
 * Ends every session the user's sessions index lists (refresh sessions of every kind, the realm
 * sessions, anything else kept there), for at most `REVOKE_AT_MOST` items or `REVOKE_MILLISECONDS`:
 * bounded work, which completes whatever the user holds because every caller stamps the user's
 * credentials first, so a session the index does not list yet, or one past the bound, no longer
 * works anyway; listings skip it unread and its TTL removes it. Returns how many items it deleted.
 */
export async function revokeSessionsOf(userUuid: string): Promise<number> {
  const { deleted, stoppedShort } = await endListed(userUuid, { attributes: ['PK', 'SK'], ends: () => true, atMost: REVOKE_AT_MOST });
  if (stoppedShort) logger.info('sessions left to the credential stamp and their TTL', { deleted });
  return deleted;
}

/**
 * Ends a user's ordinary and account-page sessions begun from one realm session (`realmSessionId`):
 * signing out of the realm ends what its sign-ins gave the browser's applications, as Keycloak's
 * logout ends the client sessions of its SSO session; offline sessions are kept, as Keycloak keeps
 * them. Bounded as `revokeSessionsOf` is; what is left ends at its refresh token's idle time.
 */
export async function endSessionsOfRealmSession(userUuid: string, realmSessionId: string): Promise<number> {
  let ended = 0;
  for (const kind of ['ONLINE', 'PAGE'] satisfies RefreshSessionKind[]) {
    const { deleted } = await endListed(userUuid, {
      prefix: keys.refreshSessionsOfKind(kind),
      attributes: ['PK', 'SK', 'realmSessionId'],
      ends: (item) => item.realmSessionId === realmSessionId,
      atMost: REVOKE_AT_MOST,
    });
    ended += deleted;
  }
  return ended;
}
