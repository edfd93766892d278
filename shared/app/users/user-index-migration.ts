import { getUser, listUsersOf, reindexStoredUser, removeLegacyDirectory } from '../../domain/users/user.repository';

const LANES = 8;

export interface IndexReport {
  /** User items found. */
  users: number;
  /** Users whose index was written. */
  indexed: number;
  /** Writes a concurrent change of the same user beat (read again and written again). */
  retried: number;
}

/**
 * Builds an organization's users index from its user items (GSI1 lists them), while the organization
 * is live: each user is read strongly consistent and written back unchanged with its index items,
 * under the same condition as any write (`updatedAt` as read). A user changed meanwhile fails the
 * condition and is read and written again; a user created meanwhile was indexed by its own
 * transaction; a deleted user is a status change like any other. The count is exact because each
 * user is counted in the transaction that first indexes it (`countedStatus`), never twice.
 * Afterwards the old directory shards are removed. Idempotent: a second run changes nothing but the
 * count's version.
 */
export async function indexUsers(orgUuid: string): Promise<IndexReport> {
  const listed = await listUsersOf(orgUuid);
  const report: IndexReport = { users: listed.length, indexed: 0, retried: 0 };
  const pending = listed.map((user) => user.uuid);
  const lane = async () => {
    for (let uuid = pending.pop(); uuid; uuid = pending.pop()) {
      for (;;) {
        const current = await getUser(orgUuid, uuid, { consistent: true });
        if (!current) break;
        if (await reindexStoredUser(current)) {
          report.indexed += 1;
          break;
        }
        report.retried += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  await removeLegacyDirectory(orgUuid);
  return report;
}
