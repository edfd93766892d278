import { UnauthenticatedError } from '../../kernel/errors';
import { sessionOutlived, type DomainStamp } from '../../domain/sessions/credential-stamp';
import { domainStampKey, readDomainStamp } from '../../domain/sessions/credential-stamp.repository';
import type { ItemKey, Prefetched } from '../../domain/requests/prefetch.repository';
import { callerKeys, readAhead } from '../../domain/requests/prefetch.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { getUser } from '../../domain/users/user.repository';
import { MALFORMED_TOKEN, verifyAccessToken, type AccessClaims } from './access-token';
import { getSession } from '../../domain/sessions/session.repository';

/** Who is calling: the verified token and the user as the store has it now. */
export interface Caller {
  claims: AccessClaims & { realm: string };
  user: UserRecord;
}

/** What a request names before its data is read: the organization of its path and the items its route will read. */
export interface Addressed {
  /** The path's organization, when valid: the user is read under it in the same batch as the session. */
  orgUuid?: string;
  prefetch?: ItemKey[];
}

export interface Authenticated {
  caller: Caller;
  prefetched: Prefetched;
}

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** The token of a `Bearer` Authorization header, if it has one. */
export const bearerToken = (authorization: string | undefined) => authorization?.trim().match(BEARER)?.[1];

const sessionEnded = () =>
  new UnauthenticatedError({
    message: 'The session of this token has ended (signed out, revoked, the password changed, or the user was deleted): sign in again for a new token',
    tokenRefused: true,
  });

/** The verified claims of a `Bearer` Authorization header: no read, so a bad token is refused before anything else. */
export async function verifyBearer(authorization: string | undefined): Promise<Caller['claims']> {
  if (authorization === undefined || authorization.trim() === '') {
    throw new UnauthenticatedError('A bearer token is required: send Authorization: Bearer <access_token>, from the token endpoint');
  }
  if (!/^Bearer\s/i.test(authorization.trim())) {
    throw new UnauthenticatedError({ message: 'The Authorization header must use the Bearer scheme: Authorization: Bearer <access_token>', tokenRefused: true });
  }
  const token = bearerToken(authorization);
  if (!token) throw new UnauthenticatedError({ message: MALFORMED_TOKEN, tokenRefused: true });
  return verifyAccessToken(token);
}

/**
 * Loads a verified token's session and user, with the stamp of the user's e-mail domain and the items
 * the request addresses, in one BatchGetItem. Session and user are read on every call, so an ended
 * session (logout, revocation, reuse detection, a credential stamp newer than its sign-in) or a
 * deleted user loses access at once. The session names the organization; the user and its domain's
 * stamp are read under the path's, and read again under the session's only when the two differ (a
 * request for another organization's path, which authorization then answers 404).
 */
export async function readCaller(claims: Caller['claims'], addressed: Addressed = {}): Promise<Authenticated> {
  const sessionKey = callerKeys.session(claims.sid);
  // The user and the stamp of its e-mail's domain (`credential-stamp.ts`) under the path's
  // organization, guessed from the token, so that both come in the session's batch.
  const stampGuess = addressed.orgUuid ? domainStampKey(addressed.orgUuid, claims.email) : undefined;
  const userGuess = addressed.orgUuid ? [callerKeys.user(addressed.orgUuid, claims.sub), ...(stampGuess ? [stampGuess] : [])] : [];
  // Each key once (a user reading itself names the caller's own item).
  const prefetched = await readAhead([sessionKey, ...userGuess, ...(addressed.prefetch ?? [])]);

  const session = await prefetched.or(sessionKey, () => getSession(claims.sid));
  if (!session || session.endsAt <= Math.floor(Date.now() / 1000) || session.userUuid !== claims.sub) throw sessionEnded();
  const { orgUuid } = session;
  // Under the session's organization when the path named another (or none): user and stamp in one read.
  const userKey = callerKeys.user(orgUuid, claims.sub);
  const byPassword = session.signedInWith !== 'provider';
  const stampGuessed = byPassword ? domainStampKey(orgUuid, claims.email) : undefined;
  const missing = [userKey, ...(stampGuessed ? [stampGuessed] : [])].filter((key) => !prefetched.has(key));
  const reread = missing.length === 0 ? prefetched : await readAhead(missing);
  const read = <T>(key: ItemKey, fallback: () => Promise<T | undefined>) => (prefetched.has(key) ? prefetched : reread).or(key, fallback);
  const user = await read(userKey, () => getUser(orgUuid, claims.sub));
  if (user?.status !== 'ACTIVE') throw sessionEnded();
  // A session begun before the last change of the user's credentials (or, begun with a password,
  // before its domain's provider was enforced) is over, whatever a revocation missed.
  const stampKey = byPassword ? domainStampKey(orgUuid, user.email) : undefined;
  const domainStamp = stampKey && (await read<DomainStamp>(stampKey, () => readDomainStamp(orgUuid, user.email, { consistent: false })));
  if (sessionOutlived(session, user, domainStamp)) throw sessionEnded();
  return { caller: { claims, user }, prefetched };
}

/** Verifies an access token and loads its session and user (see `readCaller`). */
export async function callerOfToken(token: string): Promise<Caller> {
  return (await readCaller(await verifyAccessToken(token))).caller;
}

/** Authenticates a request's `Authorization` header. */
export async function authenticate(authorization: string | undefined): Promise<Caller> {
  return (await readCaller(await verifyBearer(authorization))).caller;
}
