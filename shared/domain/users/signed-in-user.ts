import { sessionOutlivedNow } from '../sessions/credential-stamp.repository';
import type { Session } from '../sessions/session.repository';
import type { UserRecord } from './user.entities';
import { getUser } from './user.repository';

/**
 * The user a session, a code or an approval still stands for: read as written (strongly consistent,
 * so a password change, a deletion or a disabling that just landed counts at once), active, and with
 * no credential stamp (the user's, or its domain's for a password sign-in) at or after the sign-in
 * began (`proof`); undefined when any of that fails.
 */
export async function userStillSignedIn(
  orgUuid: string,
  userUuid: string,
  proof: Pick<Session, 'startedAtMs' | 'createdAt' | 'authTime' | 'signedInWith'>,
): Promise<UserRecord | undefined> {
  const user = await getUser(orgUuid, userUuid, { consistent: true });
  if (user?.status !== 'ACTIVE' || (await sessionOutlivedNow(proof, user))) return undefined;
  return user;
}
