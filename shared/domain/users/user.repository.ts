import { ConflictError, NotFoundError } from '../../kernel/errors';
import { nothingPrefetched, type Prefetched } from '../requests/prefetch.repository';
import { callerUser, type OrgScope } from './org-scope';
import { offlineSessionDelete } from '../sessions/session.repository';
import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, getItems, queryIndex, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import { completeClaimWrite, getEmailClaim } from './user-email-claims.repository';
import { packTransactions } from '../../adapters/store/packed-writes';
import { sleep } from '../../kernel/retry';
import { indexWrites } from './user-index.repository';
import type { UserRecord, UserStatus } from './user.entities';

/** A user as stored: `countedStatus` is the status the organization's user count holds it under. */
export type StoredUser = UserRecord & { countedStatus?: UserStatus };

const userItem = (user: StoredUser) => ({ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...user });

const addAdminWrite = (orgUuid: string, userUuid: string): TableWrite => ({
  Update: { Key: keys.orgAdmins(orgUuid), UpdateExpression: 'ADD admins :user', ExpressionAttributeValues: { ':user': new Set([userUuid]) } },
});

/** The writes of `writeUser`'s transaction. */
function userWrites(
  user: UserRecord,
  condition: Omit<TableWrite['Put'] & object, 'Item'>,
  previous: StoredUser | undefined,
  claimedEmail: string | undefined,
  alongside: readonly TableWrite[],
): TableWrite[] {
  const { countedStatus: _counted, ...record } = user as StoredUser;
  const stored: StoredUser = { ...record, countedStatus: record.status };
  const writes: TableWrite[] = [{ Put: { Item: userItem(stored), ...condition } }, ...indexWrites(stored, previous)];
  if (user.role === 'ADMIN' && user.status === 'ACTIVE') writes.push(addAdminWrite(user.orgUuid, user.uuid));
  if (claimedEmail) writes.push(completeClaimWrite(user.orgUuid, claimedEmail, user.uuid));
  writes.push(...alongside);
  return writes;
}

const NEW_USER = { ConditionExpression: 'attribute_not_exists(PK)' };

/**
 * Writes a user and what derives from it in one transaction: the user item under `condition`, its
 * index items (listing entries, search postings, the count; see `user-index.ts`) moved on from what
 * `previous` had, its place in the ADMIN set when it is an active ADMIN, and, for a new e-mail, the
 * e-mail's claim marked done. So listings, counts, the ADMIN set and the claim never disagree with the
 * user. `alongside` joins the same transaction: the change's audit event, so neither is written
 * without the other. False when the user item's condition failed (nothing is written then);
 * EMAIL_TAKEN when the claim was taken over meanwhile.
 */
async function writeUser(
  user: UserRecord,
  condition: Omit<TableWrite['Put'] & object, 'Item'>,
  previous: StoredUser | undefined,
  claimedEmail: string | undefined,
  alongside: readonly TableWrite[],
): Promise<boolean> {
  const failed = await transactWrite(userWrites(user, condition, previous, claimedEmail, alongside));
  if (failed.includes(0)) return false;
  if (failed.length > 0) throw new ConflictError({ code: 'EMAIL_TAKEN', message: 'The e-mail is being registered by another request' });
  return true;
}

/**
 * Writes a new user (see `writeUser`) with `alongside` (its audit event) and completes its e-mail
 * claim; false when the user exists.
 */
export async function putNewUser(user: UserRecord, alongside: readonly TableWrite[] = []): Promise<boolean> {
  return writeUser(user, NEW_USER, undefined, user.email, alongside);
}

/**
 * Writes new users as `putNewUser` writes each, several in one transaction (`packTransactions`: at
 * most 100 items, the organization's count written once with what they all add). All of a
 * transaction's users are written, or none: its answer lists the users of the transactions not
 * written (a user that exists, a claim taken over meanwhile), for the caller to write one by one.
 */
export async function putNewUsers(users: readonly { user: UserRecord; alongside: readonly TableWrite[] }[]): Promise<UserRecord[]> {
  const transactions = packTransactions(users.map(({ user, alongside }) => ({ member: user, writes: userWrites(user, NEW_USER, undefined, user.email, alongside) })));
  const notWritten = await Promise.all(transactions.map(async ({ members, writes }) => ((await transactWrite(writes)).length > 0 ? members : [])));
  return notWritten.flat();
}

export async function getUser(orgUuid: string, userUuid: string, options?: { consistent?: boolean }): Promise<UserRecord | undefined> {
  return getItem<UserRecord>(keys.userKey(orgUuid, userUuid), options);
}

/** The users of an organization among `userUuids` that exist, in the order of `userUuids` (one BatchGetItem per 100). */
export async function getUsers(orgUuid: string, userUuids: string[]): Promise<UserRecord[]> {
  const users = await getItems<UserRecord>(userUuids.map((uuid) => keys.userKey(orgUuid, uuid)));
  const byUuid = new Map(users.map((user) => [user.uuid, user]));
  return userUuids.flatMap((uuid) => byUuid.get(uuid) ?? []);
}

export async function findActiveUser(orgUuid: string, userUuid: string): Promise<UserRecord | undefined> {
  const user = await getUser(orgUuid, userUuid);
  return user?.status === 'ACTIVE' ? user : undefined;
}

/**
 * Replaces a user with its directory entry and ADMIN-set place (see `writeUser`); false when it
 * changed since it was read (`seen`), so two writers never silently undo each other. With
 * `claimedEmail`, the new e-mail's claim is marked done in the same transaction; `alongside` (the
 * change's audit event) joins it too. Every attempt carries the same `alongside` and only the attempt
 * that succeeds writes anything, so the event is written once, and never for a change refused.
 */
export async function saveUser(
  user: UserRecord,
  seen: StoredUser,
  options: { claimedEmail?: string; alongside?: readonly TableWrite[] } = {},
): Promise<boolean> {
  let previous = seen;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const counted = previous.countedStatus;
    // The credential stamp never goes back: one written since `seen` was read (a password changed on
    // the account page) is kept, and the condition fails if another lands before this write.
    const stamp = laterStamp(user, previous);
    const written = await writeUser(
      stamp === undefined ? user : { ...user, credentialsChangedAt: stamp },
      {
        // `countedStatus` too: the users index migration may index the record meanwhile without
        // changing it, and this write must then move the count from where the migration left it.
        ConditionExpression:
          `updatedAt = :seen AND #status = :status AND ${counted ? 'countedStatus = :counted' : 'attribute_not_exists(countedStatus)'} AND ` +
          (stamp === undefined ? 'attribute_not_exists(credentialsChangedAt)' : '(attribute_not_exists(credentialsChangedAt) OR credentialsChangedAt <= :stamp)'),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':seen': seen.updatedAt, ':status': seen.status, ...(counted ? { ':counted': counted } : {}), ...(stamp === undefined ? {} : { ':stamp': stamp }) },
      },
      previous,
      options.claimedEmail,
      options.alongside ?? [],
    );
    if (written) return true;
    const current = (await getUser(user.orgUuid, user.uuid, { consistent: true })) as StoredUser | undefined;
    // Changed by someone else (or gone): the caller reads it again. Indexed or stamped meanwhile: write again.
    if (!current || current.updatedAt !== seen.updatedAt || current.status !== seen.status) return false;
    if (current.countedStatus === counted && laterStamp(current, previous) === laterStamp(previous, undefined)) return false;
    previous = current;
  }
  return false;
}

/**
 * Writes a user's index again from its record (the migration to the users index, and the repair of a
 * write an older version or an interrupted attempt left): the record itself unchanged, under the same
 * condition as any write, so a concurrent change wins and is indexed by its own transaction. Returns
 * false when the record changed meanwhile (read it again and retry) or no longer exists.
 */
export async function reindexStoredUser(seen: StoredUser): Promise<boolean> {
  return saveUser(seen, seen);
}

export const sameEmail = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The user that has an e-mail in an organization (deleted users keep theirs). */
export async function findUserByEmail(orgUuid: string, email: string): Promise<UserRecord | undefined> {
  const claim = await getEmailClaim(orgUuid, email);
  const user = claim ? await getUser(orgUuid, claim.userUuid) : undefined;
  return user && sameEmail(user.email, email) ? user : undefined;
}

/** The write noting that a user's welcome e-mail went out (so a rerun of a bulk job does not send it again). */
export function welcomedWrite(orgUuid: string, userUuid: string, now = new Date()): TableWrite {
  return {
    Update: {
      Key: keys.userKey(orgUuid, userUuid),
      UpdateExpression: 'SET welcomedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  };
}

/** Notes that a user's welcome e-mail went out. */
export async function markWelcomed(orgUuid: string, userUuid: string): Promise<void> {
  await updateItem(welcomedWrite(orgUuid, userUuid).Update!);
}

/**
 * Stamps the user's credentials as changed now (`credentialsChangedAt`, epoch milliseconds; never
 * moved back): every session begun before no longer works. Call it once the change is made (the
 * password set, the user disabled), so that a sign-in that checked the old credentials began before
 * the stamp. Returns the stamp, once the clock has passed it, so that a session begun after this
 * returns is newer. Leaves `updatedAt` alone: `saveUser` carries a stamp it did not read over.
 */
export async function stampCredentials(orgUuid: string, userUuid: string): Promise<number> {
  const at = Date.now();
  await updateItem({
    Key: keys.userKey(orgUuid, userUuid),
    UpdateExpression: 'SET credentialsChangedAt = :at',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(credentialsChangedAt) OR credentialsChangedAt < :at)',
    ExpressionAttributeValues: { ':at': at },
  });
  while (Date.now() <= at) await sleep(1);
  return at;
}

/** The later of two credential stamps, if either has one. */
const laterStamp = (a: UserRecord, b: UserRecord | undefined): number | undefined => {
  const stamps = [a.credentialsChangedAt, b?.credentialsChangedAt].filter((stamp): stamp is number => stamp !== undefined);
  return stamps.length === 0 ? undefined : Math.max(...stamps);
};

/** Records an active ADMIN (idempotent). */
export async function addAdmin(orgUuid: string, userUuid: string): Promise<void> {
  await updateItem(addAdminWrite(orgUuid, userUuid).Update!);
}

/**
 * Removes an ADMIN from the organization's set unless it is the last one. `absent` when it was not in
 * the set (an earlier attempt removed it already); `last` when removing it would leave none.
 */
export async function removeAdmin(orgUuid: string, userUuid: string): Promise<'removed' | 'absent' | 'last'> {
  const removed = await updateItem({
    Key: keys.orgAdmins(orgUuid),
    UpdateExpression: 'DELETE admins :user',
    ConditionExpression: 'contains(admins, :uuid) AND size(admins) > :one',
    ExpressionAttributeValues: { ':user': new Set([userUuid]), ':uuid': userUuid, ':one': 1 },
  });
  if (removed) return 'removed';
  const current = await getItem<{ admins?: Set<string> }>(keys.orgAdmins(orgUuid));
  return current?.admins?.has(userUuid) ? 'last' : 'absent';
}

/** The uuids of the organization's active ADMINs. */
export async function getAdmins(orgUuid: string): Promise<Set<string>> {
  return (await getItem<{ admins?: Set<string> }>(keys.orgAdmins(orgUuid)))?.admins ?? new Set();
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

/** Every user item of an organization, any status (GSI1 lists them: one Query, paged). */
export async function listUsersOf(orgUuid: string): Promise<UserRecord[]> {
  return queryIndex<UserRecord>(keys.usersOf(orgUuid));
}

/** The user directory's shards (the index before `user-index.ts`), which the migration to the users index removes. */
const LEGACY_DIRECTORY_SHARDS = 32;

/** Deletes an organization's old user directory shards (idempotent). */
export async function removeLegacyDirectory(orgUuid: string): Promise<void> {
  await Promise.all(Array.from({ length: LEGACY_DIRECTORY_SHARDS }, (_, shard) => deleteItem({ Key: keys.userDirectoryShard(orgUuid, shard) })));
}

/** Ends one of a user's offline sessions with `alongside` (its audit event) in one transaction; false when the user has no such session. */
export async function deleteOfflineSessionWith(userUuid: string, sessionId: string, alongside: TableWrite[]): Promise<boolean> {
  const failed = await transactWrite([offlineSessionDelete(userUuid, sessionId), ...alongside]);
  return !failed.includes(0);
}
