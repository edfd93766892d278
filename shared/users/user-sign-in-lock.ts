import type { OrgScope } from '../access/org-access';
import { clearLoginFailures, readBruteForceStatus, type BruteForceStatus } from '../auth/sign-in';
import { readUser } from './user-queries';

/** An ADMIN's view of a user's failed sign-ins and temporary lock (Keycloak's attack detection). */
export async function readSignInLock(scope: OrgScope, userUuid: string): Promise<BruteForceStatus> {
  const user = await readUser(scope, userUuid);
  return readBruteForceStatus(user.uuid);
}

/** Forgets a user's failed sign-ins, which ends its lock at once. */
export async function clearSignInLock(scope: OrgScope, userUuid: string): Promise<void> {
  const user = await readUser(scope, userUuid);
  await clearLoginFailures(user.uuid);
}
