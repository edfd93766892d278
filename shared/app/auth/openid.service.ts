import { ORGANIZATION_SCOPE, SCOPES_SUPPORTED } from './access-token';
import type * as z from 'zod/mini';
import { NotFoundError } from '../../kernel/errors';
import type { DiscoverySchema, UserInfoSchema } from './auth.responses';
import { realmIssuer, verifyJwt } from './jwt';
import { callerOfToken } from './caller';
import { DEVICE_CODE_GRANT } from './device-grant';
import { OAuthError } from './oauth-errors';
import { isRefreshType, readRefreshToken } from './refresh-token';
import { deleteSession, getSession } from '../../domain/sessions/session.repository';
import { canonicalRealm, organizationOfRealm } from './realm';
import { requireClient, requireParam } from './token.service';
import { tokenSigner, type PublicJwk } from './signer.port';

const CLAIMS = ['iss', 'aud', 'azp', 'sub', 'sid', 'jti', 'typ', 'scope', 'iat', 'exp', 'auth_time', 'nonce', 'email', 'preferred_username', 'name'];

async function requireRealm(realm: string): Promise<string> {
  const orgUuid = await organizationOfRealm(realm);
  if (!orgUuid) throw new NotFoundError('The realm was not found');
  return orgUuid;
}

/** The realm's JSON Web Key Set: the one public key that verifies every realm's tokens (an unknown realm has none: 404). */
export async function realmKeys(realm: string): Promise<{ keys: PublicJwk[] }> {
  await requireRealm(realm);
  return { keys: [await tokenSigner().publicJwk()] };
}

/** The realm's OpenID Connect discovery document (OpenID Connect Discovery 1.0, Keycloak's fields). */
export async function discovery(realm: string): Promise<z.input<DiscoverySchema>> {
  await requireRealm(realm);
  const issuer = realmIssuer(canonicalRealm(realm));
  const endpoint = (name: string) => `${issuer}/protocol/openid-connect/${name}`;
  return {
    issuer,
    authorization_endpoint: endpoint('auth'),
    token_endpoint: endpoint('token'),
    jwks_uri: endpoint('certs'),
    userinfo_endpoint: endpoint('userinfo'),
    revocation_endpoint: endpoint('revoke'),
    end_session_endpoint: endpoint('logout'),
    device_authorization_endpoint: endpoint('auth/device'),
    grant_types_supported: ['authorization_code', 'password', 'refresh_token', DEVICE_CODE_GRANT],
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    userinfo_signing_alg_values_supported: ['none'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES_SUPPORTED],
    claims_supported: CLAIMS,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    frontchannel_logout_supported: false,
    backchannel_logout_supported: false,
  };
}

/** The userinfo of an access token of this realm (OpenID Connect Core §5.3); refusals are `invalid_token`. */
export async function userInfo(realm: string, token: string | undefined): Promise<z.input<UserInfoSchema>> {
  const invalid = (cause?: unknown) => new OAuthError('invalid_token', 'Token verification failed', { cause });
  if (!token) throw invalid();
  const { claims, user } = await callerOfToken(token).catch((error: unknown) => {
    throw invalid(error);
  });
  if (claims.realm !== canonicalRealm(realm)) throw invalid();
  const organization = claims.scope.split(' ').includes(ORGANIZATION_SCOPE) ? { organization: { [claims.realm]: { id: user.orgUuid } } } : {};
  return { sub: user.uuid, name: user.name, preferred_username: user.email, email: user.email, ...organization };
}

/**
 * RFC 7009 revocation. A refresh, offline or access token of this realm and client ends its session (an
 * access token lives no longer than its session here, so that is the only way to revoke one); any other
 * token is already useless here, and the answer is the same 200.
 */
export async function revokeToken(realm: string, form: Map<string, string>): Promise<void> {
  const clientId = requireClient(form);
  const token = requireParam(form, 'token');
  const claims = await verifyJwt(token).catch(() => undefined);
  const ours =
    claims &&
    (isRefreshType(claims.typ) || claims.typ === 'Bearer') &&
    claims.iss === realmIssuer(canonicalRealm(realm)) &&
    claims.azp === clientId &&
    typeof claims.sid === 'string';
  if (ours) await deleteSession(claims.sid as string);
}

/** Keycloak's logout with a refresh token: ends the token's session. */
export async function logout(realm: string, form: Map<string, string>): Promise<void> {
  const clientId = requireClient(form);
  const claims = await readRefreshToken(requireParam(form, 'refresh_token'), canonicalRealm(realm), clientId);
  if (!claims) throw new OAuthError('invalid_grant', 'Invalid refresh token');
  if (!(await getSession(claims.sid))) throw new OAuthError('invalid_grant', 'Session not active');
  await deleteSession(claims.sid);
}
