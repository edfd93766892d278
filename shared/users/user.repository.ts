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

/** Takes over a stale pending claim; false when someone else changed it first. */
export async function takeOverClaim(orgUuid: string, email: string, seenClaimedAt: string, now: string): Promise<boolean> {
  return updateItem({
    Key: keys.emailClaim(orgUuid, email),
    UpdateExpression: 'SET claimedAt = :now',
    ConditionExpression: '#state = :pending AND claimedAt = :seen',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':now': now, ':seen': seenClaimedAt, ':pending': 'PENDING' },
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

/** Gives up a pending claim this attempt holds (after the identity provider failed). */
export async function releaseClaim(orgUuid: string, email: string, userUuid: string): Promise<void> {
  await deleteItem({
    Key: keys.emailClaim(orgUuid, email),
    ConditionExpression: 'userUuid = :user AND #state = :pending',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':user': userUuid, ':pending': 'PENDING' },
  });
}

export async function putNewUser(user: UserRecord): Promise<boolean> {
  return putItem(
    { ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...user },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getUser(orgUuid: string, userUuid: string): Promise<UserRecord | undefined> {
  return getItem<UserRecord>(keys.userKey(orgUuid, userUuid));
}

export async function findActiveUser(orgUuid: string, userUuid: string): Promise<UserRecord | undefined> {
  const user = await getUser(orgUuid, userUuid);
  return user?.status === 'ACTIVE' ? user : undefined;
}

/** The user holding an e-mail in an organization, whatever the state of its claim. */
export async function findUserByEmail(orgUuid: string, email: string): Promise<UserRecord | undefined> {
  const claim = await getEmailClaim(orgUuid, email);
  return claim ? getUser(orgUuid, claim.userUuid) : undefined;
}
