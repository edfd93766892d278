import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';

/** A user's consecutive failed sign-ins (Keycloak's `UserLoginFailure`). */
export interface LoginFailure {
  numFailures: number;
  /** Epoch milliseconds of the last failure. */
  lastFailure: number;
  /** Epoch seconds before which sign-in is refused (0: not locked). */
  notBefore: number;
  /**
   * Epoch milliseconds the lock was confirmed: the attempt that started it, counted before its check,
   * had a wrong password. Absent while that attempt's password is still being checked (a lock that a
   * right password clears).
   */
  lockedAt?: number;
}

/**
 * Whose failures a record counts: a user's, or, for a sign-in naming no active user, a decoy kept
 * under a digest of the realm and e-mail, so that such a sign-in reads and writes what a user's does.
 */
export type FailureSubject = { userUuid: string } | { decoy: string };

const keyOf = (subject: FailureSubject) => ('userUuid' in subject ? keys.loginFailure(subject.userUuid) : keys.signInDecoy(subject.decoy));

export async function getLoginFailure(userUuid: string): Promise<LoginFailure | undefined> {
  return readLoginFailure({ userUuid });
}

/** Strongly consistent: a lock written by one attempt must be seen by the next. */
export async function readLoginFailure(subject: FailureSubject): Promise<LoginFailure | undefined> {
  return getItem<LoginFailure>(keyOf(subject), { consistent: true });
}

/** Where one attempt is counted: `at` (epoch ms) its time, `expiresAt` (epoch seconds) the record's TTL. */
interface AttemptTimes {
  at: number;
  expiresAt: number;
}

/**
 * Counts one attempt on a series that stays under `below` failures (its first one included): an
 * atomic ADD, so attempts arriving together all count and none waits for another. False, writing
 * nothing, when the record holds `below - 1` failures or more, its last failure is older than
 * `resetBefore` (epoch ms), or it is locked at `at`.
 */
export async function addAttempt(subject: FailureSubject, { at, expiresAt, resetBefore, below }: AttemptTimes & { resetBefore: number; below: number }): Promise<boolean> {
  return updateItem({
    Key: keyOf(subject),
    UpdateExpression: 'ADD numFailures :one SET lastFailure = :at, notBefore = if_not_exists(notBefore, :zero), #ttl = :ttl',
    ConditionExpression: 'attribute_not_exists(numFailures) OR (numFailures < :last AND lastFailure >= :resetBefore AND notBefore <= :now)',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: {
      ':one': 1,
      ':zero': 0,
      ':at': at,
      ':ttl': expiresAt,
      ':resetBefore': resetBefore,
      ':last': below - 1,
      ':now': Math.floor(at / 1000),
    },
  });
}

/**
 * Replaces the record `expected` (as read) by `next`: the attempt that starts a new series or a lock.
 * False, writing nothing, when another write changed the record since it was read, or when it is
 * locked at `at`, so that of attempts racing for the one that locks, one wins and the others are
 * refused unchecked.
 */
export async function replaceAttempt(subject: FailureSubject, expected: LoginFailure, next: LoginFailure, { at, expiresAt }: AttemptTimes): Promise<boolean> {
  return updateItem({
    Key: keyOf(subject),
    // A lock this attempt starts is unconfirmed until its password proves wrong (`confirmLock`).
    UpdateExpression: `SET numFailures = :n, lastFailure = :at, notBefore = :nb, #ttl = :ttl${next.notBefore > 0 ? ' REMOVE lockedAt' : ''}`,
    ConditionExpression: 'numFailures = :was AND lastFailure = :wasAt AND notBefore = :wasNb AND notBefore <= :now',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: {
      ':n': next.numFailures,
      ':at': at,
      ':nb': next.notBefore,
      ':ttl': expiresAt,
      ':was': expected.numFailures,
      ':wasAt': expected.lastFailure,
      ':wasNb': expected.notBefore,
      ':now': Math.floor(at / 1000),
    },
  });
}

/**
 * Notes an attempt the lock refused, unchecked and uncounted: a write as an admitted attempt's is (a
 * write refused by its condition answers sooner than one made), so that a refusal takes as long.
 */
export async function noteRefusal(subject: FailureSubject, at: number): Promise<void> {
  await updateItem({
    Key: keyOf(subject),
    UpdateExpression: 'SET lastRefusal = :at',
    // A record a right password cleared meanwhile stays cleared.
    ConditionExpression: 'attribute_exists(numFailures)',
    ExpressionAttributeValues: { ':at': at },
  });
}

/**
 * Takes back an attempt whose check said nothing of its password (the identity provider's own
 * lockout, an expired temporary password): one failure less and, when the attempt started the lock
 * ending at `lockedUntil` (epoch seconds), the lock it replaced (`notBefore`) back.
 */
export async function uncountAttempt(subject: FailureSubject, lock?: { lockedUntil: number; notBefore: number }): Promise<void> {
  const Key = keyOf(subject);
  if (
    lock &&
    (await updateItem({
      Key,
      UpdateExpression: 'ADD numFailures :minus SET notBefore = :nb',
      ConditionExpression: 'notBefore = :lockedUntil AND numFailures > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':nb': lock.notBefore, ':lockedUntil': lock.lockedUntil, ':zero': 0 },
    }))
  )
    return;
  await updateItem({
    Key,
    UpdateExpression: 'ADD numFailures :minus',
    ConditionExpression: 'numFailures > :zero',
    ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
  });
}

/**
 * Confirms the lock ending at `lockedUntil` (epoch seconds) that a failed attempt started, then writes
 * `alongside` (the USER_LOCKED_OUT audit event). False, writing nothing, when the lock is no longer
 * there (an ADMIN cleared it meanwhile). Not one transaction: attempts refused by the lock write the
 * same record meanwhile, and a transaction would be cancelled by their writes.
 */
export async function confirmLock(subject: FailureSubject, lockedUntil: number, at: number, alongside: readonly TableWrite[]): Promise<boolean> {
  const confirmed = await updateItem({
    Key: keyOf(subject),
    UpdateExpression: 'SET lockedAt = :at',
    ConditionExpression: 'notBefore = :nb',
    ExpressionAttributeValues: { ':nb': lockedUntil, ':at': at },
  });
  if (!confirmed) return false;
  await transactWrite([...alongside]);
  return true;
}

/** The write a decoy's lock makes where a user's writes its audit event, expiring with the decoy's failures. */
export function decoyLockWrite(decoy: string, at: number, expiresAt: number): TableWrite {
  return { Put: { Item: { ...keys.signInDecoyLock(decoy), at, ttl: expiresAt } } };
}

/** Forgets the failures: a successful sign-in, or an ADMIN clearing the lock. */
export async function clearLoginFailures(subject: FailureSubject): Promise<void> {
  await deleteItem({ Key: keyOf(subject) });
}

/**
 * Deletes a user's failure record, if there is one, with `alongside` (the audit event of an ADMIN's
 * unlock) in the same transaction; false when there was nothing to clear (then nothing is written).
 */
export async function clearLoginFailuresWith(userUuid: string, alongside: readonly TableWrite[]): Promise<boolean> {
  const failed = await transactWrite([{ Delete: { Key: keys.loginFailure(userUuid), ConditionExpression: 'attribute_exists(PK)' } }, ...alongside]);
  return failed.length === 0;
}
