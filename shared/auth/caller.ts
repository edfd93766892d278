import { UnauthenticatedError } from '../errors';
import type { UserRecord } from '../users/user.entities';
import { findActiveUser } from '../users/user.repository';
import { verifyAccessToken, type AccessClaims } from './access-token';

/** Who is calling: the verified token and the user as the store has it now. */
export interface Caller {
  claims: AccessClaims;
  user: UserRecord;
}

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * Authenticates a request's `Authorization` header. The user is loaded on every call, so a deleted
 * user's tokens stop working at once.
 */
export async function authenticate(authorization: string | undefined): Promise<Caller> {
  const token = authorization?.trim().match(BEARER)?.[1];
  if (!token) throw new UnauthenticatedError('A bearer token is required');
  const claims = await verifyAccessToken(token);
  const user = await findActiveUser(claims.org, claims.sub);
  if (!user) throw new UnauthenticatedError('The bearer token is invalid or expired');
  return { claims, user };
}
