import { createHash, timingSafeEqual } from 'node:crypto';
import { useAuthorizationCode, type AuthorizationCode } from '../../domain/sessions/authorization.repository';
import { deleteSession } from '../../domain/sessions/session.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { userStillSignedIn } from '../../domain/users/signed-in-user';
import { OAuthError } from './oauth-errors';
import { canonicalRealm, organizationOfRealm } from './realm';
import { requireParam, startSession, type TokenResponse } from './token.service';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CODE = /^[A-Za-z0-9_-]{43}$/;
const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * `grant_type=authorization_code`: the code, once, by the client it was issued to, with the same
 * redirect URI and the verifier of its challenge. Every refusal is `invalid_grant` (a missing code or
 * redirect URI is `invalid_request`); a code used twice
 * also ends the session its first exchange began (RFC 6749 §4.1.2: it may have been stolen).
 */
export async function exchangeCode(realm: string, form: Map<string, string>, clientId: string): Promise<TokenResponse> {
  const code = requireParam(form, 'code');
  const redirectUri = requireParam(form, 'redirect_uri');
  const { issued, user } = await redeemCode(realm, { code, redirectUri, verifier: form.get('code_verifier') }, clientId);
  return startSession(realm, {
    orgUuid: issued.orgUuid,
    user,
    clientId,
    scope: issued.scope,
    authTime: issued.authTime,
    sessionId: issued.sessionId,
    startedAtMs: issued.startedAtMs ?? issued.authTime * 1000,
    ...(issued.signedInWith ? { signedInWith: issued.signedInWith } : {}),
    ...(issued.realmSessionId ? { realmSessionId: issued.realmSessionId } : {}),
    ...(issued.nonce ? { nonce: issued.nonce } : {}),
  });
}

/**
 * Redeems a code as its exchange does (every check, the code then used), answering whom it signed in
 * without beginning a session: for a page of this service that is itself a client of the flow (the
 * device verification page learns so who is approving).
 */
export async function redeemCode(
  realm: string,
  presented: { code: string; redirectUri: string; verifier: string | undefined },
  clientId: string,
): Promise<{ issued: AuthorizationCode; user: UserRecord }> {
  const { code, redirectUri, verifier } = presented;
  const invalid = (description: string) => new OAuthError('invalid_grant', description);
  // As Keycloak answers a code whose PKCE cannot be checked: invalid_grant, the code left unused.
  if (!verifier) throw invalid('PKCE code verifier not specified: send the code_verifier whose S256 challenge the authorization request carried');
  if (!VERIFIER.test(verifier)) throw invalid('code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and -._~ (RFC 7636)');
  if (!CODE.test(code)) throw invalid('Code not valid');
  const issued = await useAuthorizationCode(sha256(code).toString('hex'));
  if (!issued) throw invalid('Code not valid');
  const orgUuid = await organizationOfRealm(realm);
  if (issued.orgUuid !== orgUuid || issued.realm !== canonicalRealm(realm)) throw invalid('Code not valid');
  if (issued.used) {
    await deleteSession(issued.sessionId);
    throw invalid('Code already used: the session it began has been ended; sign in again');
  }
  if (issued.expiresAt <= now()) throw invalid('Code expired: codes must be exchanged within a minute; sign in again');
  if (issued.clientId !== clientId) throw invalid('Code was issued to another client');
  if (issued.redirectUri !== redirectUri) throw invalid('redirect_uri differs from the authorization request');
  const expected = Buffer.from(issued.codeChallenge);
  const answered = Buffer.from(sha256(verifier).toString('base64url'));
  if (expected.length !== answered.length || !timingSafeEqual(expected, answered)) throw invalid('PKCE verification failed: code_verifier does not match the code_challenge');
  // Read as written (a strongly consistent read): a password changed, or the user disabled, after the
  // sign-in that made the code voids it, as it ends the sessions that sign-in began.
  const startedAtMs = issued.startedAtMs ?? issued.authTime * 1000;
  const user = await userStillSignedIn(issued.orgUuid, issued.userUuid, { startedAtMs, ...(issued.signedInWith ? { signedInWith: issued.signedInWith } : {}) });
  if (!user) throw invalid("The user is no longer active, or its credentials changed after this code's sign-in: sign in again");
  return { issued, user };
}
