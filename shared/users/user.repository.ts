import { keys } from '../store/keys';
import { deleteItem, getItem, putItem, updateItem } from '../store/table';
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

export async function completeClaim(orgUuid: string, email: string, userUuid: string): Promise<void> {
  await updateItem({
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET #state = :done',
    ConditionExpression: 'userUuid = :user',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':done': 'DONE', ':user': userUuid },
  });
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

export async function putNewUser(user: UserRecord): Promise<boolean> {
  return putItem(
    { ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...user },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getUser(orgUuid: string, userUuid: string, options?: { consistent?: boolean }): Promise<UserRecord | undefined> {
  return getItem<UserRecord>(keys.userKey(orgUuid, userUuid), options);
}

export async function findActiveUser(orgUuid: string, userUuid: string): Promise<UserRecord | undefined> {
  const user = await getUser(orgUuid, userUuid);
  return user?.status === 'ACTIVE' ? user : undefined;
}

/**
 * Replaces a user; false when it changed since it was read (`seen`), so two writers never silently
 * undo each other.
 */
export async function saveUser(user: UserRecord, seen: UserRecord): Promise<boolean> {
  return putItem(
    { ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...user },
    {
      ConditionExpression: 'updatedAt = :seen AND #status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':seen': seen.updatedAt, ':status': seen.status },
    },
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
  await updateItem({
    Key: keys.orgAdmins(orgUuid),
    UpdateExpression: 'ADD admins :user',
    ExpressionAttributeValues: { ':user': new Set([userUuid]) },
  });
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
