import { passwordProblem, type IdentityProvider } from './identity.port';
import { revokeSessionsOf } from '../../domain/sessions/session-revocation.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { stampCredentials } from '../../domain/users/user.repository';

/** Why a new password is refused, in the words of the pages that ask for one. */
export type NewPasswordProblem = 'password-mismatch' | 'password-weak' | 'password-reused';

/**
 * What is wrong with a new password and its confirmation, if anything. A first password may not be the
 * temporary one, which sits in the user's mailbox.
 */
export async function newPasswordProblem(
  userUuid: string,
  next: string,
  confirmation: string,
  firstPassword: boolean,
  identityProvider: IdentityProvider,
): Promise<NewPasswordProblem | undefined> {
  if (next !== confirmation) return 'password-mismatch';
  if (passwordProblem(next)) return 'password-weak';
  if (firstPassword && (await identityProvider.verifyPassword(userUuid, next)) === 'temporary') return 'password-reused';
  return undefined;
}

/**
 * Sets the user's password, stamps its credentials and ends every session of the user (its tokens stop
 * at once, and the stamp ends any a sign-in in flight begins with the old password); `password-weak`
 * when the pool's own policy (the CDK stack's) refuses it, so that the user can pick another. A
 * session begun once this returns is newer than the stamp.
 */
export async function replacePassword(user: Pick<UserRecord, 'uuid' | 'orgUuid'>, next: string, identityProvider: IdentityProvider): Promise<'password-weak' | undefined> {
  try {
    await identityProvider.setPassword(user.uuid, next);
  } catch (error) {
    if (error instanceof Error && error.name === 'InvalidPasswordException') return 'password-weak';
    throw error;
  }
  await stampCredentials(user.orgUuid, user.uuid);
  await revokeSessionsOf(user.uuid);
  return undefined;
}
