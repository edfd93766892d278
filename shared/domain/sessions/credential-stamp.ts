import type { UserRecord } from '../users/user.entities';

/**
 * Whether a session (or a token of it) that began at `startedAtMs` (epoch milliseconds) began before
 * the user's credentials last changed: then it no longer works, even where the revocation that
 * followed the change missed it (an index not yet consistent, a sign-in in flight).
 */
export function outlivedCredentials(user: Pick<UserRecord, 'credentialsChangedAt'>, startedAtMs: number): boolean {
  return user.credentialsChangedAt !== undefined && startedAtMs <= user.credentialsChangedAt;
}
