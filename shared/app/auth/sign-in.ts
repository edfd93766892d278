import { createHash } from 'node:crypto';
import { auditContext, withAuditContext } from '../../domain/audit/audit-context';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { identityProvider as defaultIdentityProvider, type IdentityProvider } from './identity.port';
import { logger } from '../../kernel/logger';
import { count } from '../../kernel/metrics';
import type { UserRecord } from '../../domain/users/user.entities';
import { getUser, sameEmail } from '../../domain/users/user.repository';
import { getEmailClaim } from '../../domain/users/user-email-claims.repository';
import { admitAttempt, bruteForcePolicy, type Admitted } from '../../domain/sessions/brute-force';
import { clearLoginFailures, confirmLock, decoyLockWrite, uncountAttempt, type FailureSubject } from '../../domain/sessions/login-failure.repository';
import { realmIssuer } from './jwt';
import { invalidCredentials, OAuthError } from './oauth-errors';
import { organizationOfRealm } from './realm';
import { findProviderForEmail } from '../../domain/identity-providers/identity-provider.repository';

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
 * A username no user has: a sign-in whose password is not checked (no active user by that e-mail, or
 * a lock in force) checks it against this one instead, so that it takes as long as a wrong password.
 */
const DECOY_USERNAME = '00000000-0000-4000-8000-000000000000';

/**
 * Checks a realm user's e-mail and password, for the token endpoint and the account page alike.
 * Unknown realm, unknown e-mail, inactive user, wrong password and a locked user all throw the same
 * `invalid_grant`, so that no answer tells an attacker which one it was, and all do the same work
 * (the same reads and writes, one password check) so that its time does not either. An attempt is
 * counted as a failure before its password is checked, and one the lockout refuses is not checked at
 * all (see `admitAttempt`). A right password clears the failures, a temporary one included. A user of
 * a domain whose identity provider the organization enforces gets `ProviderEnforced`, whatever the
 * password.
 */
export async function checkPassword(
  realm: string,
  username: string,
  password: string,
  identityProvider: IdentityProvider = defaultIdentityProvider,
): Promise<SignedInUser> {
  const orgUuid = await organizationOfRealm(realm);
  const email = username.trim();
  const provider = orgUuid && email.length <= MAX_EMAIL ? await findProviderForEmail(orgUuid, email) : undefined;
  if (provider?.enforce) throw new ProviderEnforced(realm.toLowerCase(), provider);
  const user = orgUuid && email.length <= MAX_EMAIL ? await activeUserOf(orgUuid, email) : undefined;
  const subject: FailureSubject = user ? { userUuid: user.uuid } : { decoy: decoyOf(realm, email) };

  const at = Date.now();
  const admitted = await admitAttempt(subject, at);
  if (!orgUuid || !user || !admitted) {
    // Its answer is not needed, only its time; its failure must not fail the refusal.
    await identityProvider.verifyPassword(DECOY_USERNAME, password).catch(() => undefined);
    // A decoy's lock is confirmed as a user's is, for the time it takes, with a write standing for the audit event.
    if (admitted?.lock && 'decoy' in subject) {
      const standIn = decoyLockWrite(subject.decoy, at, admitted.lock.lockedUntil + bruteForcePolicy.failureResetSeconds);
      await confirmLock(subject, admitted.lock.lockedUntil, at, [standIn]);
    }
    throw invalidCredentials();
  }
  const takeBack = () => uncountAttempt(subject, admitted.lock && { lockedUntil: admitted.lock.lockedUntil, notBefore: admitted.lock.previousNotBefore });
  const checked = await identityProvider.verifyPassword(user.uuid, password).catch(async (error: unknown) => {
    // The identity provider failed: no guess was made.
    await takeBack();
    throw error;
  });
  if (checked === 'invalid') {
    if (admitted.lock) await lockedOut(user, admitted.lock, at);
    throw invalidCredentials();
  }
  if (checked === 'valid' || checked === 'temporary') {
    await clearLoginFailures(subject);
    return { orgUuid, user, temporary: checked === 'temporary' };
  }
  // Cognito's own lockout, or an expired temporary password: not this attempt's guess, so not counted.
  await takeBack();
  if (checked === 'expired') throw new ExpiredTemporaryPassword();
  throw invalidCredentials();
}

/**
 * The active user holding `email`, read as it is whether or not anyone holds it: the e-mail's claim,
 * then a user (a decoy's, that no one is, when no one holds it), so that an unknown e-mail costs the
 * same two reads as a user's.
 */
async function activeUserOf(orgUuid: string, email: string): Promise<UserRecord | undefined> {
  const claim = await getEmailClaim(orgUuid, email);
  const user = await getUser(orgUuid, claim?.userUuid ?? DECOY_USERNAME);
  return user && user.status === 'ACTIVE' && sameEmail(user.email, email) ? user : undefined;
}

/**
 * The decoy failure record of a sign-in naming no active user: the realm and e-mail as matched (without
 * regard to case), digested so that the table keeps no address nobody registered.
 */
function decoyOf(realm: string, email: string): string {
  return createHash('sha256').update(`${realm.toLowerCase()}\n${email.toLowerCase()}`).digest('base64url');
}

/**
 * A user whose password is only temporary may not have tokens: Keycloak's required-action answer
 * (its description begins as Keycloak's), naming the realm's account page, where the password is set.
 */
export const notFullySetUp = (realm: string) =>
  new OAuthError('invalid_grant', `Account is not fully set up: choose your own password on the account page, ${realmIssuer(realm)}/account, then sign in again`);

type StartedLock = NonNullable<Admitted['lock']>;

/**
 * The failure that locks was one: the lock it started when it was counted stays, confirmed, and its
 * USER_LOCKED_OUT audit event written. The user is the actor (nobody else acted), the request is the
 * sign-in's (`x-request-id`, set by the route).
 */
async function lockedOut(user: UserRecord, lock: StartedLock, at: number): Promise<void> {
  const { numFailures, lockedUntil } = lock;
  const userUuid = user.uuid;
  const cause = { actor: { uuid: userUuid, email: user.email }, requestId: auditContext().requestId };
  const events = await withAuditContext(cause, async () =>
    auditWrites({
      orgUuid: user.orgUuid,
      action: 'USER_LOCKED_OUT',
      resource: { type: 'USER', uuid: userUuid },
      changes: [
        { op: 'add', path: '/lockedUntil', value: new Date(lockedUntil * 1000).toISOString() },
        { op: 'add', path: '/numFailures', value: numFailures },
      ],
      at: new Date(at).toISOString(),
    }),
  );
  // An ADMIN cleared the lock while the password was being checked: nothing to record.
  if (!(await confirmLock({ userUuid }, lockedUntil, at, events))) return;
  count('UsersLockedOut');
  logger.warn('user temporarily locked out after failed sign-ins', { userUuid, numFailures, lockSeconds: lockedUntil - Math.floor(at / 1000) });
}
