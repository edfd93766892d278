import { getLoginFailure, type LoginFailure } from './login-failure.repository';

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

export async function readBruteForceStatus(userUuid: string): Promise<BruteForceStatus> {
  return bruteForceStatusOf(await getLoginFailure(userUuid));
}
