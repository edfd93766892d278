import { auditContext, withAuditContext } from '../../domain/audit/audit-context';
import { auditWrites } from '../../domain/audit/audit-event';
import { cognitoIdentityProvider, type IdentityProvider } from '../../adapters/identity/identity-provider';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import type { UserRecord } from '../../domain/users/user.entities';
import { findUserByEmail } from '../../domain/users/user.repository';
import { bruteForcePolicy, lockSecondsAfter } from '../../domain/sessions/brute-force';
import { addLoginFailure, clearLoginFailures, getLoginFailure, lockUntil, startLock } from '../../domain/sessions/login-failure.repository';
import { realmIssuer } from './jwt';
import { invalidCredentials, OAuthError } from './oauth-errors';
import { organizationOfRealm } from './realm';
import { findProviderForEmail } from '../../domain/identity-providers/identity-provider.service';

/** Longest e-mail address (RFC 5321 path limit); longer usernames cannot be anyone's. */
const MAX_EMAIL = 320;

export interface SignedInUser {
  orgUuid: string;
  user: UserRecord;
  /** The password is a temporary one: good only for setting a new password. */
  temporary: boolean;
}

/** The temporary password was right but has expired: only an ADMIN can give a new one. */
export class ExpiredTemporaryPassword extends OAuthError {
  constructor() {
    super('invalid_grant', 'Account is not fully set up: the temporary password has expired; ask an administrator of your organization for a new one');
  }
}

/**
 * The user's e-mail domain belongs to an identity provider the organization enforces: passwords are
 * not theirs to use; they sign in at the provider, through the authorization endpoint.
 */
export class ProviderEnforced extends OAuthError {
  constructor(
    realm: string,
    readonly provider: { alias: string; displayName: string },
  ) {
    super(
      'invalid_grant',
      `Your organization signs you in with ${provider.displayName}, its identity provider: passwords cannot be used. Sign in through ${realmIssuer(realm)}/protocol/openid-connect/auth (the authorization code flow), with scope offline_access for automation`,
    );
  }
}

/**
 * A username no user has: refusals that need no password check still make one, against it, so that
 * an unknown e-mail, an inactive user and a locked user take as long to refuse as a wrong password.
 */
const DECOY_USERNAME = '00000000-0000-4000-8000-000000000000';

/**
 * Checks a realm user's e-mail and password, for the token endpoint and the account page alike.
 * Unknown realm, unknown e-mail, inactive user, wrong password and a locked user all throw the same
 * `invalid_grant`, so that no answer tells an attacker which one it was; a locked user's password is
 * not even tried. A right password clears the failures, a temporary one included. A user of a domain
 * whose identity provider the organization enforces gets `ProviderEnforced`, whatever the password.
 */
export async function checkPassword(
  realm: string,
  username: string,
  password: string,
  identityProvider: IdentityProvider = cognitoIdentityProvider,
): Promise<SignedInUser> {
  const orgUuid = await organizationOfRealm(realm);
  const email = username.trim();
  const provider = orgUuid && email.length <= MAX_EMAIL ? await findProviderForEmail(orgUuid, email) : undefined;
  if (provider?.enforce) throw new ProviderEnforced(realm.toLowerCase(), provider);
  const user = orgUuid && email.length <= MAX_EMAIL ? await findUserByEmail(orgUuid, email) : undefined;
  const refuse = async () => {
    // Its answer is not needed, only its time; its failure must not fail the refusal.
    await identityProvider.verifyPassword(DECOY_USERNAME, password).catch(() => undefined);
    return invalidCredentials();
  };
  if (!orgUuid || !user || user.status !== 'ACTIVE') throw await refuse();

  // Strongly consistent: a lock written by the previous failure must be seen by the next attempt.
  const failure = await getLoginFailure(user.uuid);
  const now = Date.now();
  if (failure && failure.notBefore * 1000 > now) throw await refuse();
  const checked = await identityProvider.verifyPassword(user.uuid, password);
  if (checked === 'invalid') {
    await countFailure(user, now);
    throw invalidCredentials();
  }
  // Cognito's own lockout, or an expired temporary password: not this attempt's guess, so not counted.
  if (checked === 'throttled') throw invalidCredentials();
  if (checked === 'expired') throw new ExpiredTemporaryPassword();
  if (failure) await clearLoginFailures(user.uuid);
  return { orgUuid, user, temporary: checked === 'temporary' };
}

/**
 * A user whose password is only temporary may not have tokens: Keycloak's required-action answer
 * (its description begins as Keycloak's), naming the realm's account page, where the password is set.
 */
export const notFullySetUp = (realm: string) =>
  new OAuthError('invalid_grant', `Account is not fully set up: choose your own password on the account page, ${realmIssuer(realm)}/account, then sign in again`);

/**
 * Counts a failed sign-in and, from the policy's threshold on, locks the user. A lock that starts (the
 * user was not locked) is written with its USER_LOCKED_OUT audit event in one transaction: the user is
 * the actor (nobody else acted), the request is the sign-in's (`x-request-id`, set by the route). A
 * failure arriving while another one's lock is being set only extends it, without an event.
 */
async function countFailure(user: UserRecord, at: number): Promise<void> {
  const { failureResetSeconds } = bruteForcePolicy;
  const userUuid = user.uuid;
  const failure = await addLoginFailure(userUuid, at, at - failureResetSeconds * 1000, Math.ceil(at / 1000) + failureResetSeconds);
  const lockSeconds = lockSecondsAfter(failure.numFailures);
  if (lockSeconds === 0) return;
  const notBefore = Math.floor(at / 1000) + lockSeconds;
  const cause = { actor: { uuid: userUuid, email: user.email }, requestId: auditContext().requestId };
  const events = await withAuditContext(cause, async () =>
    auditWrites({
      orgUuid: user.orgUuid,
      action: 'USER_LOCKED_OUT',
      resource: { type: 'USER', uuid: userUuid },
      changes: [
        { op: 'add', path: '/lockedUntil', value: new Date(notBefore * 1000).toISOString() },
        { op: 'add', path: '/numFailures', value: failure.numFailures },
      ],
      at: new Date(at).toISOString(),
    }),
  );
  if (!(await startLock(userUuid, notBefore, Math.floor(at / 1000), events))) {
    await lockUntil(userUuid, notBefore);
    return;
  }
  count('UsersLockedOut');
  logger.warn('user temporarily locked out after failed sign-ins', { userUuid, numFailures: failure.numFailures, lockSeconds });
}
