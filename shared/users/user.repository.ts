import { ConflictError } from '../errors';
import { keys } from '../store/keys';
import { deleteItem, getItem, getItems, putItem, transactWrite, updateItem, type TableWrite } from '../store/table';
import { directoryEntryWrite, ensureDirectoryShard } from './user-directory';
import type { UserRecord } from './user.entities';

export interface EmailClaim {
  userUuid: string;
  state: 'PENDING' | 'DONE';
  claimedAt: string;
}

export async function claimEmail(orgUuid: string, email: string, userUuid: string, now: string): Promise<boolean> {
  return putItem(
    { ...keys.emailClaim(orgUuid, email), type: 'EMAIL', userUuid, state: 'PENDING', claimedAt: now },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getEmailClaim(orgUuid: string, email: string): Promise<EmailClaim | undefined> {
  return getItem<EmailClaim>(keys.emailClaim(orgUuid, email));
}

/**
 * Takes over a claim that no user holds (abandoned by a crashed attempt, or left behind by an e-mail
 * change) for `userUuid`, as a fresh pending claim; false when someone else changed it first.
 */
export async function takeOverClaim(
  orgUuid: string,
  email: string,
  seen: EmailClaim,
  userUuid: string,
  now: string,
): Promise<boolean> {
  return updateItem({
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET claimedAt = :now, userUuid = :user, #state = :pending',
    ConditionExpression: '#state = :seenState AND claimedAt = :seen AND userUuid = :seenUser',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':now': now,
      ':user': userUuid,
      ':pending': 'PENDING',
      ':seen': seen.claimedAt,
      ':seenState': seen.state,
      ':seenUser': seen.userUuid,
    },
  });
}

const completeClaimWrite = (orgUuid: string, email: string, userUuid: string): TableWrite => ({
  Update: {
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET #state = :done',
    ConditionExpression: 'userUuid = :user',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':done': 'DONE', ':user': userUuid },
  },
});

export async function completeClaim(orgUuid: string, email: string, userUuid: string): Promise<void> {
  await updateItem(completeClaimWrite(orgUuid, email, userUuid).Update!);
}

/** Gives up a pending claim this attempt holds (after the identity provider failed, or the e-mail left). */
export async function releaseClaim(orgUuid: string, email: string, userUuid: string, state = 'PENDING'): Promise<void> {
  await deleteItem({
    Key: keys.emailClaim(orgUuid, email),
    ConditionExpression: 'userUuid = :user AND #state = :state',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':user': userUuid, ':state': state },
  });
}

const userItem = (user: UserRecord) => ({ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...user });

const addAdminWrite = (orgUuid: string, userUuid: string): TableWrite => ({
  Update: { Key: keys.orgAdmins(orgUuid), UpdateExpression: 'ADD admins :user', ExpressionAttributeValues: { ':user': new Set([userUuid]) } },
});

/**
 * Writes a user and what derives from it in one transaction: the user item under `condition`, its
 * directory entry, its place in the ADMIN set when it is an active ADMIN, and, for a new e-mail, the
 * e-mail's claim marked done. So listings, the ADMIN set and the claim never disagree with the user.
 * False when the user item's condition failed; EMAIL_TAKEN when the claim was taken over meanwhile.
 */
async function writeUser(user: UserRecord, condition: Omit<TableWrite['Put'] & object, 'Item'>, claimedEmail?: string): Promise<boolean> {
  const writes: TableWrite[] = [{ Put: { Item: userItem(user), ...condition } }, directoryEntryWrite(user)];
  if (user.role === 'ADMIN' && user.status === 'ACTIVE') writes.push(addAdminWrite(user.orgUuid, user.uuid));
  if (claimedEmail) writes.push(completeClaimWrite(user.orgUuid, claimedEmail, user.uuid));
  let failed = await transactWrite(writes);
  if (failed.includes(1)) {
    // The shard's first user: create the shard, then write everything again.
    await ensureDirectoryShard(user.orgUuid, user.uuid);
    failed = await transactWrite(writes);
  }
  if (failed.includes(0)) return false;
  if (failed.length > 0) throw new ConflictError('EMAIL_TAKEN', 'The e-mail is being registered by another request');
  return true;
}

/** Writes a new user (see `writeUser`) and completes its e-mail claim; false when the user exists. */
export async function putNewUser(user: UserRecord): Promise<boolean> {
  return writeUser(user, { ConditionExpression: 'attribute_not_exists(PK)' }, user.email);
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
 * `claimedEmail`, the new e-mail's claim is marked done in the same transaction.
 */
export async function saveUser(user: UserRecord, seen: UserRecord, options: { claimedEmail?: string } = {}): Promise<boolean> {
  return writeUser(
    user,
    {
      ConditionExpression: 'updatedAt = :seen AND #status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':seen': seen.updatedAt, ':status': seen.status },
    },
    options.claimedEmail,
  );
}

export const sameEmail = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The user that has an e-mail in an organization (deleted users keep theirs). */
export async function findUserByEmail(orgUuid: string, email: string): Promise<UserRecord | undefined> {
  const claim = await getEmailClaim(orgUuid, email);
  const user = claim ? await getUser(orgUuid, claim.userUuid) : undefined;
  return user && sameEmail(user.email, email) ? user : undefined;
}

/** Notes that a user's welcome e-mail went out (so a rerun of a bulk job does not send it again). */
export async function markWelcomed(orgUuid: string, userUuid: string): Promise<void> {
  await updateItem({
    Key: keys.userKey(orgUuid, userUuid),
    UpdateExpression: 'SET welcomedAt = :now',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': new Date().toISOString() },
  });
}

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
