import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, transactWrite, updateItem, updateItemReturning, type TableWrite } from '../../adapters/store/table';

/** A user's consecutive failed sign-ins (Keycloak's `UserLoginFailure`). */
export interface LoginFailure {
  numFailures: number;
  /** Epoch milliseconds of the last failure. */
  lastFailure: number;
  /** Epoch seconds before which sign-in is refused (0: not locked). */
  notBefore: number;
}

export async function getLoginFailure(userUuid: string): Promise<LoginFailure | undefined> {
  return getItem<LoginFailure>(keys.loginFailure(userUuid), { consistent: true });
}

/**
 * Counts one more failure, starting again from 1 when the last one is older than `resetBefore`
 * (epoch ms), and returns the record as written. The count is an atomic ADD, so failures arriving
 * together are all counted. The item expires (TTL) once a reset would have cleared it anyway.
 */
export async function addLoginFailure(userUuid: string, at: number, resetBefore: number, expiresAt: number): Promise<LoginFailure> {
  // Both writes take the same values; only what they change, and when, differs.
  const write = (UpdateExpression: string, ConditionExpression: string) =>
    updateItemReturning<LoginFailure>({
      Key: keys.loginFailure(userUuid),
      UpdateExpression,
      ConditionExpression,
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':at': at, ':resetBefore': resetBefore, ':ttl': expiresAt, ':one': 1, ':zero': 0 },
    });
  const counted = await write(
    'ADD numFailures :one SET lastFailure = :at, notBefore = if_not_exists(notBefore, :zero), #ttl = :ttl',
    'attribute_not_exists(lastFailure) OR lastFailure >= :resetBefore',
  );
  if (counted) return counted;
  // The earlier failures are too old to count: this one is the first of a new series.
  const restarted = await write('SET numFailures = :one, lastFailure = :at, notBefore = :zero, #ttl = :ttl', 'lastFailure < :resetBefore');
  // Another failure restarted the series between the two writes: count this one on top of it.
  return restarted ?? addLoginFailure(userUuid, at, resetBefore, expiresAt);
}

/** Locks sign-in until `notBefore` (epoch seconds), unless a later lock is already set. */
export async function lockUntil(userUuid: string, notBefore: number): Promise<void> {
  await updateItem({
    Key: keys.loginFailure(userUuid),
    UpdateExpression: 'SET notBefore = :nb',
    ConditionExpression: 'attribute_exists(numFailures) AND notBefore < :nb',
    ExpressionAttributeValues: { ':nb': notBefore },
  });
}

/**
 * Starts a lock until `notBefore` (epoch seconds) on a user not locked at `now` (epoch seconds), with
 * `alongside` (the USER_LOCKED_OUT audit event) in the same transaction. False, writing nothing, when
 * the user is locked already (a concurrent failure started the lock first: `lockUntil` extends it).
 */
export async function startLock(userUuid: string, notBefore: number, now: number, alongside: readonly TableWrite[]): Promise<boolean> {
  const lock: TableWrite = {
    Update: {
      Key: keys.loginFailure(userUuid),
      UpdateExpression: 'SET notBefore = :nb',
      ConditionExpression: 'attribute_exists(numFailures) AND notBefore <= :now AND notBefore < :nb',
      ExpressionAttributeValues: { ':nb': notBefore, ':now': now },
    },
  };
  return (await transactWrite([lock, ...alongside])).length === 0;
}

/** Forgets the failures: a successful sign-in, or an ADMIN clearing the lock. */
export async function clearLoginFailures(userUuid: string): Promise<void> {
  await deleteItem({ Key: keys.loginFailure(userUuid) });
}

/**
 * Deletes a user's failure record, if there is one, with `alongside` (the audit event of an ADMIN's
 * unlock) in the same transaction; false when there was nothing to clear (then nothing is written).
 */
export async function clearLoginFailuresWith(userUuid: string, alongside: readonly TableWrite[]): Promise<boolean> {
  const failed = await transactWrite([{ Delete: { Key: keys.loginFailure(userUuid), ConditionExpression: 'attribute_exists(PK)' } }, ...alongside]);
  return failed.length === 0;
}
