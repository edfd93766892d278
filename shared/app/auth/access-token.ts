import { randomBytes } from 'node:crypto';
import { config } from '../../kernel/config';
import { JwtExpiredError } from 'aws-jwt-verify/error';
import { UnauthenticatedError } from '../../kernel/errors';
import { realmIssuer, realmOfIssuer, signJwt, verifyJwt, type SessionClaims } from './jwt';

/**
 * Claims of our access tokens, Keycloak's names: kept few and short (no organization id, 128-bit `jti`
 * and `sid`) so that a token stays under 800 characters (docs/api/auth.md#access-tokens). The session (`sid`) names the
 * organization.
 */
export interface AccessClaims extends SessionClaims {
  typ: 'Bearer';
  scope: string;
  email: string;
  preferred_username: string;
}

/** Claims of an ID token (issued when the scope contains `openid`). */
export interface IdClaims extends SessionClaims {
  typ: 'ID';
  auth_time: number;
  email: string;
  preferred_username: string;
  name: string;
  nonce?: string;
}

export const DEFAULT_SCOPE = 'profile email';

/** The scope that asks for an offline session (Keycloak's offline tokens). */
export const OFFLINE_SCOPE = 'offline_access';

/**
 * The scope that adds the user's organization to userinfo, as Keycloak's `organization` client scope
 * does with its mapper's "add organization id": `{ "<realm>": { "id": "<orgUUID>" } }`.
 */
export const ORGANIZATION_SCOPE = 'organization';

/** Every scope a client may ask for (discovery's `scopes_supported`); `profile` and `email` are always granted. */
export const SCOPES_SUPPORTED = ['openid', OFFLINE_SCOPE, 'profile', 'email', ORGANIZATION_SCOPE] as const;

/** The scopes of a request that the realm does not know, for an `invalid_scope` refusal. */
export const unknownScopes = (requested: string | undefined): string[] =>
  (requested ?? '').split(' ').filter((token) => token && !(SCOPES_SUPPORTED as readonly string[]).includes(token));

/** What an `invalid_scope` refusal says of the unknown scopes. */
export const unknownScopeMessage = (unknown: string[]): string => `Unknown scope ${unknown.join(' ')}: ask for ${SCOPES_SUPPORTED.join(', ')}`;

/** Whether a requested scope asks for an offline session. */
export const asksOffline = (requested: string | undefined): boolean => requested?.split(' ').includes(OFFLINE_SCOPE) ?? false;

/** The granted scope: ours always, plus `openid`, `offline_access` and `organization` when the client asked for them. */
export function grantedScope(requested: string | undefined): string {
  const asked = requested?.split(' ') ?? [];
  const scope = asked.includes('openid') ? `openid ${DEFAULT_SCOPE}` : DEFAULT_SCOPE;
  return [scope, ...(asksOffline(requested) ? [OFFLINE_SCOPE] : []), ...(asked.includes(ORGANIZATION_SCOPE) ? [ORGANIZATION_SCOPE] : [])].join(' ');
}

export interface TokenSubject {
  realm: string;
  userUuid: string;
  email: string;
  name: string;
  sessionId: string;
  clientId: string;
  scope: string;
  /** Epoch seconds of the password grant that began the session. */
  authTime: number;
}

export const randomId = () => randomBytes(16).toString('base64url');

/** What an access and an ID token of a session share: issuer, client, subject, session, a new id, times. */
function sessionClaims(subject: TokenSubject, seconds: number): SessionClaims {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: realmIssuer(subject.realm),
    aud: subject.clientId,
    azp: subject.clientId,
    sub: subject.userUuid,
    sid: subject.sessionId,
    jti: randomId(),
    iat,
    exp: iat + seconds,
  };
}

/** Issues a compact ES256 access token for a user session, bound to its realm by `iss`. */
export async function issueAccessToken(subject: TokenSubject): Promise<{ token: string; expiresIn: number }> {
  const { accessTokenSeconds } = config();
  const claims: AccessClaims = {
    ...sessionClaims(subject, accessTokenSeconds),
    typ: 'Bearer',
    scope: subject.scope,
    email: subject.email,
    preferred_username: subject.email,
  };
  return { token: await signJwt(claims), expiresIn: accessTokenSeconds };
}

/** Issues the OpenID Connect ID token of a session (audience: the client). */
/** An ID token; `nonce` is the authorization request's, echoed (OpenID Connect Core §3.1.3.6). */
export async function issueIdToken(subject: TokenSubject, nonce?: string): Promise<string> {
  const claims: IdClaims = {
    ...sessionClaims(subject, config().accessTokenSeconds),
    typ: 'ID',
    auth_time: subject.authTime,
    email: subject.email,
    preferred_username: subject.email,
    name: subject.name,
    ...(nonce === undefined ? {} : { nonce }),
  };
  return signJwt(claims);
}

const hasAudience = (aud: unknown, clientId: string) => aud === clientId || (Array.isArray(aud) && aud.includes(clientId));

/** A token that is not one of this API's access tokens (not a JWT, another signer, an ID or refresh token). */
export const MALFORMED_TOKEN = 'The bearer token is not an access token of this API: get one from the token endpoint (grant_type=password)';
/** A genuine access token past its `exp`. */
export const EXPIRED_TOKEN = 'The access token has expired: renew it with grant_type=refresh_token, or sign in again';

/**
 * Verifies signature, expiry, issuer (one of our realms), audience and shape of an access token; any
 * failure is a 401. Whether its session is still live is the caller's check (`caller.ts`).
 */
export async function verifyAccessToken(token: string): Promise<AccessClaims & { realm: string }> {
  try {
    const claims = await verifyJwt(token);
    const realm = realmOfIssuer(claims.iss);
    if (
      !realm ||
      claims.typ !== 'Bearer' ||
      !hasAudience(claims.aud, config().userPoolClientId) ||
      typeof claims.sub !== 'string' ||
      typeof claims.sid !== 'string' ||
      typeof claims.exp !== 'number'
    ) {
      throw new Error('Not an access token');
    }
    return { ...(claims as unknown as AccessClaims), realm };
  } catch (error) {
    if (error instanceof JwtExpiredError) throw new UnauthenticatedError({ message: EXPIRED_TOKEN, cause: error, tokenRefused: true });
    throw new UnauthenticatedError({ message: MALFORMED_TOKEN, cause: error, tokenRefused: true });
  }
}
