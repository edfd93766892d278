import { realmIssuer, signJwt, verifyJwt, type SessionClaims } from './jwt';

/**
 * A refresh token in Keycloak's shape (a JWT of `typ` "Refresh", `aud` the realm's issuer), so that
 * clients which decode it work; an offline session's is of `typ` "Offline", as Keycloak's offline
 * tokens are. Its `jti` is the session's secret, of which the session keeps only the hash, so the
 * session store stays the truth: a refresh token's secret rotates on each use (single use); an
 * offline token's does not, so that automation can keep one.
 *
 * An offline token carries no `exp`, as Keycloak's do not: it lasts as long as its session, whose
 * idle expiry each use starts again, so a token kept and used every few days never expires on its
 * own, whenever it was issued.
 */
export interface RefreshClaims extends Omit<SessionClaims, 'exp'> {
  typ: RefreshTokenType;
  scope: string;
  /** A refresh token's expiry; an offline token has none. */
  exp?: number;
}

export type RefreshTokenType = 'Refresh' | 'Offline';

/** Whether a token's `typ` is a refresh token's, online or offline. */
export const isRefreshType = (typ: unknown): typ is RefreshTokenType => typ === 'Refresh' || typ === 'Offline';

const SECRET = /^[A-Za-z0-9_-]{43}$/;

export async function issueRefreshToken(subject: {
  realm: string;
  userUuid: string;
  sessionId: string;
  clientId: string;
  scope: string;
  secret: string;
  expiresAt: number;
  offline?: boolean;
}): Promise<string> {
  const issuer = realmIssuer(subject.realm);
  const claims: RefreshClaims = {
    iss: issuer,
    aud: issuer,
    azp: subject.clientId,
    sub: subject.userUuid,
    sid: subject.sessionId,
    jti: subject.secret,
    typ: subject.offline ? 'Offline' : 'Refresh',
    scope: subject.scope,
    iat: Math.floor(Date.now() / 1000),
    ...(subject.offline ? {} : { exp: subject.expiresAt }),
  };
  return signJwt(claims);
}

/** The claims of a genuine, unexpired refresh token of this realm and client; undefined for anything else. */
export async function readRefreshToken(token: string, realm: string, clientId: string): Promise<RefreshClaims | undefined> {
  const claims = await verifyJwt(token).catch(() => undefined);
  if (!claims) return undefined;
  const issuer = realmIssuer(realm);
  const valid =
    isRefreshType(claims.typ) &&
    claims.iss === issuer &&
    claims.aud === issuer &&
    claims.azp === clientId &&
    typeof claims.sid === 'string' &&
    typeof claims.sub === 'string' &&
    typeof claims.jti === 'string' &&
    SECRET.test(claims.jti) &&
    // Only an offline token goes without an expiry.
    (claims.typ === 'Offline' || typeof claims.exp === 'number');
  return valid ? (claims as unknown as RefreshClaims) : undefined;
}
