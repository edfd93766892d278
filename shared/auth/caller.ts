import { UnauthenticatedError } from '../errors';
import type { UserRecord } from '../users/user.entities';
import { findActiveUser } from '../users/user.repository';
import { verifyAccessToken, type AccessClaims } from './access-token';
import { getLiveSession } from './session.repository';

/** Who is calling: the verified token and the user as the store has it now. */
export interface Caller {
  claims: AccessClaims & { realm: string };
  user: UserRecord;
}

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** The token of a `Bearer` Authorization header, if it has one. */
export const bearerToken = (authorization: string | undefined) => authorization?.trim().match(BEARER)?.[1];

/**
 * Verifies an access token and loads its session and user. Both are read on every call, so an ended
 * session (logout, revocation, reuse detection) or a deleted user loses access at once. The session
 * read is one GetItem more per request, and it comes first because the session names the organization.
 */
export async function callerOfToken(token: string): Promise<Caller> {
  const claims = await verifyAccessToken(token);
  const session = await getLiveSession(claims.sid);
  const user = session?.userUuid === claims.sub ? await findActiveUser(session.orgUuid, claims.sub) : undefined;
  if (!user) throw new UnauthenticatedError('The bearer token is invalid or expired');
  return { claims, user };
}

/** Authenticates a request's `Authorization` header. */
export async function authenticate(authorization: string | undefined): Promise<Caller> {
  const token = bearerToken(authorization);
  if (!token) throw new UnauthenticatedError('A bearer token is required');
  return callerOfToken(token);
}
