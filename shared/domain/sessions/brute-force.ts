import { addAttempt, getLoginFailure, noteRefusal, readLoginFailure, replaceAttempt, type FailureSubject, type LoginFailure } from './login-failure.repository';

/**
 * Keycloak's brute-force detection (temporary lockout), with these numbers: from the 5th
 * consecutive failure each failure locks the user for 1 minute per 5 failures, at most 15 minutes; a
 * failure more than 12 hours after the previous one starts the count again (Keycloak's defaults for
 * the reset). Keycloak's "quick login check" (a lock for failures under a second apart) is not applied.
 */
export const bruteForcePolicy = {
  failureFactor: 5,
  waitIncrementSeconds: 60,
  maxWaitSeconds: 15 * 60,
  failureResetSeconds: 12 * 60 * 60,
} as const;

/** How long the `numFailures`-th consecutive failure locks sign-in, in seconds (0: not at all). */
export function lockSecondsAfter(numFailures: number): number {
  const { failureFactor, waitIncrementSeconds, maxWaitSeconds } = bruteForcePolicy;
  return Math.min(maxWaitSeconds, waitIncrementSeconds * Math.floor(numFailures / failureFactor));
}

/** Keycloak's attack-detection view of a user: its failures (none once they are too old to count) and lock. */
export interface BruteForceStatus {
  disabled: boolean;
  numFailures: number;
  lastFailure: number;
  lockedUntil: string | null;
}

export function bruteForceStatusOf(failure: LoginFailure | undefined, now = Date.now()): BruteForceStatus {
  const current = failure && failure.lastFailure >= now - bruteForcePolicy.failureResetSeconds * 1000 ? failure : undefined;
  const notBefore = current?.notBefore ?? 0;
  const locked = notBefore * 1000 > now;
  return {
    disabled: locked,
    numFailures: current?.numFailures ?? 0,
    lastFailure: current?.lastFailure ?? 0,
    lockedUntil: locked ? new Date(notBefore * 1000).toISOString() : null,
  };
}

/**
 * How one more attempt is counted, before its password is checked, as if it failed: by `add` while it
 * cannot lock, or by replacing the record read (`expected`) with `next`: a new series once the
 * earlier failures are too old to count, or the failure that locks, its lock starting now.
 */
export type AttemptCount = { kind: 'add' } | { kind: 'replace'; expected: LoginFailure; next: LoginFailure };

export function attemptCount(current: LoginFailure | undefined, at: number): AttemptCount {
  const series = current && current.lastFailure >= at - bruteForcePolicy.failureResetSeconds * 1000 ? current : undefined;
  const numFailures = (series?.numFailures ?? 0) + 1;
  const lockSeconds = lockSecondsAfter(numFailures);
  if (!current || (series && lockSeconds === 0)) return { kind: 'add' };
  return {
    kind: 'replace',
    expected: current,
    next: { numFailures, lastFailure: at, notBefore: lockSeconds > 0 ? Math.floor(at / 1000) + lockSeconds : 0 },
  };
}

/** An attempt let through to its password check, already counted as a failure. */
export interface Admitted {
  /** The lock this attempt started (the failure that locks if its password is wrong), and the one it replaced. */
  lock?: { numFailures: number; lockedUntil: number; previousNotBefore: number };
}

/** Attempts racing for one record read it again at most this often before they are refused. */
const ADMISSION_ROUNDS = 8;
/**
 * How long an attempt waits, at most, on a lock that an attempt in flight started as it was counted and
 * whose password is still being checked (a right one clears the lock), and how often it reads again:
 * sign-ins of one user sent together with the right password all go through, while wrong ones sent
 * together still check no more than the policy allows.
 */
const UNCONFIRMED_LOCK_WAIT_MS = 3_000;
const UNCONFIRMED_LOCK_POLL_MS = 100;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Counts a sign-in attempt as a failure before its password is checked, and answers whether it may be
 * checked at all (undefined: refused): not while a lock is in force, and not once the attempt that
 * would lock is in flight, so that attempts sent together never check more passwords than the policy
 * allows (20 wrong passwords at once check 5, the 5th locking). An attempt that finds a lock whose
 * attempt is still being checked waits for its answer (at most `UNCONFIRMED_LOCK_WAIT_MS`): a right
 * password clears the lock and the waiting attempts are counted afresh, so a user's own sign-ins sent
 * together all go through. An attempt reads the record and makes
 * one write, counted or refused, so that a refusal does the same work as an admission; only attempts
 * racing each other read and write again.
 */
export async function admitAttempt(subject: FailureSubject, at = Date.now()): Promise<Admitted | undefined> {
  const { failureFactor, failureResetSeconds } = bruteForcePolicy;
  const times = { at, expiresAt: Math.ceil(at / 1000) + failureResetSeconds };
  let waited = 0;
  for (let round = 0; round < ADMISSION_ROUNDS; round++) {
    const current = await readLoginFailure(subject);
    if (current && current.notBefore * 1000 > at) {
      if (current.lockedAt !== undefined || waited >= UNCONFIRMED_LOCK_WAIT_MS) break;
      // The attempt that locked is still being checked: its password may be right, and clear the lock.
      await pause(UNCONFIRMED_LOCK_POLL_MS);
      waited += UNCONFIRMED_LOCK_POLL_MS;
      round--;
      continue;
    }
    const count = attemptCount(current, at);
    if (count.kind === 'add') {
      if (await addAttempt(subject, { ...times, resetBefore: at - failureResetSeconds * 1000, below: failureFactor })) return {};
    } else if (await replaceAttempt(subject, count.expected, count.next, times)) {
      const { numFailures, notBefore } = count.next;
      return notBefore > 0 ? { lock: { numFailures, lockedUntil: notBefore, previousNotBefore: count.expected.notBefore } } : {};
    }
    // Another attempt wrote first: read the record again.
  }
  await noteRefusal(subject, at);
  return undefined;
}

export async function readBruteForceStatus(userUuid: string): Promise<BruteForceStatus> {
  return bruteForceStatusOf(await getLoginFailure(userUuid));
}
