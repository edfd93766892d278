import { sessionStartMs, type Session } from './session.repository';

/**
 * Credential stamps: the backstop that ends sessions whatever a revocation missed. A user's stamp
 * (`credentialsChangedAt`) moves when its password is set or changed and when it is disabled; an
 * e-mail domain's stamp moves when the organization's provider for it starts to be enforced, and ends
 * the sessions its users began with a password (there may be any number of such users: one item per
 * domain, read beside the user, instead of a write per user).
 */

/**
 * Whether a session (or a token of it) that began at `startedAtMs` (epoch milliseconds) began before
 * the user's credentials last changed: then it no longer works, even where the revocation that
 * followed the change missed it (an index not yet consistent, a sign-in in flight).
 */
export function outlivedCredentials(user: StampedUser, startedAtMs: number): boolean {
  return user.credentialsChangedAt !== undefined && startedAtMs <= user.credentialsChangedAt;
}

/** What of a user the stamps are checked against (a `UserRecord` has it). */
export interface StampedUser {
  orgUuid?: string;
  email?: string;
  /** Epoch milliseconds of the last change of how the user signs in. */
  credentialsChangedAt?: number;
}

/** An e-mail domain whose password sign-ins ended at `passwordsEndedAt` (epoch milliseconds). */
export interface DomainStamp {
  domain: string;
  passwordsEndedAt: number;
}

/** The part of an e-mail after its last `@`, lower-cased; undefined when there is none. */
export function emailDomainOf(email: unknown): string | undefined {
  if (typeof email !== 'string') return undefined;
  const at = email.lastIndexOf('@');
  const domain = at < 0 ? '' : email.slice(at + 1).trim().toLowerCase();
  return domain.length > 0 && domain.length <= 253 ? domain : undefined;
}

/**
 * Whether a session no longer works because of a stamp: the user's credentials changed at or after
 * it began, or it began with a password and its user's domain ended password sign-ins since.
 */
export function sessionOutlived(
  session: Pick<Session, 'startedAtMs' | 'createdAt' | 'authTime' | 'signedInWith'>,
  user: StampedUser,
  domainStamp: Pick<DomainStamp, 'passwordsEndedAt'> | undefined,
): boolean {
  const startedAtMs = sessionStartMs(session);
  if (outlivedCredentials(user, startedAtMs)) return true;
  return session.signedInWith !== 'provider' && domainStamp !== undefined && startedAtMs <= domainStamp.passwordsEndedAt;
}
