import type { OrgScope } from '../../domain/users/org-scope';
import { changesBetween } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { readBruteForceStatus, type BruteForceStatus } from '../../domain/sessions/brute-force';
import { clearLoginFailuresWith } from '../../domain/sessions/login-failure.repository';
import { readUser } from '../../domain/users/user.repository';

/** An ADMIN's view of a user's failed sign-ins and temporary lock (Keycloak's attack detection). */
export async function readSignInLock(scope: OrgScope, userUuid: string): Promise<BruteForceStatus> {
  const user = await readUser(scope, userUuid);
  return readBruteForceStatus(user.uuid);
}

/**
 * Forgets a user's failed sign-ins, which ends its lock at once, with its audit event `USER_UNLOCKED`
 * (the failures and lock cleared) in the same transaction. Nothing to clear: nothing written, no event.
 */
export async function clearSignInLock(scope: OrgScope, userUuid: string): Promise<void> {
  const user = await readUser(scope, userUuid);
  const { numFailures, lockedUntil } = await readBruteForceStatus(user.uuid);
  const events = auditWrites({
    orgUuid: user.orgUuid,
    action: 'USER_UNLOCKED',
    resource: { type: 'USER', uuid: user.uuid },
    changes: changesBetween({ numFailures, lockedUntil }, { numFailures: 0, lockedUntil: null }),
  });
  await clearLoginFailuresWith(user.uuid, events);
}
