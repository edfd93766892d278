import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Language } from '../../kernel/messages/languages';
import { useAuthorizationCode } from '../../domain/sessions/authorization.repository';
import { deleteSession } from '../../domain/sessions/session.repository';
import { findActiveUser } from '../../domain/users/user.repository';
import { SIGN_IN_SECONDS } from '../sign-in/authorization.service';
import { ACCOUNT_CLIENT, accountSsoUri } from '../sign-in/realm-clients';
import { realmIssuer } from '../auth/jwt';
import { beginAccountSession } from './account-session';

/**
 * The account page signs its people in through the realm's authorization flow, as any client does,
 * under its own client id (which the token endpoint refuses): the page sends the browser to the
 * authorization endpoint (which answers at once when the browser has a realm session, else shows the
 * sign-in page, or goes on to the organization's identity provider), and the flow comes back to
 * `{issuer}/account/sso` with a code bound to a PKCE verifier the browser keeps in a cookie of the page's.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** The authorization request of the page's sign-in; the verifier goes in the browser's cookie. */
export function accountSignInRequest(realm: string, language: Language, loginHint?: string): { location: string; verifier: string; seconds: number } {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: ACCOUNT_CLIENT,
    redirect_uri: accountSsoUri(realm),
    code_challenge: sha256(verifier).toString('base64url'),
    code_challenge_method: 'S256',
    kc_locale: language,
    // The page's language comes back as the state (PKCE binds the code to this browser).
    state: language,
    ...(loginHint ? { login_hint: loginHint } : {}),
  });
  return { location: `${realmIssuer(realm)}/protocol/openid-connect/auth?${query}`, verifier, seconds: SIGN_IN_SECONDS };
}

/**
 * The flow's answer at `…/account/sso`: a page session for the code's user, when the code is the
 * page's own (client, redirect URI, the browser's verifier), unused, unexpired, of this organization.
 */
export async function finishAccountSso(
  realm: string,
  orgUuid: string,
  code: string | undefined,
  verifier: string | undefined,
): Promise<{ token: string; seconds: number } | undefined> {
  if (!code || !verifier || !/^[A-Za-z0-9_-]{43}$/.test(code) || verifier.length > 128) return undefined;
  const issued = await useAuthorizationCode(sha256(code).toString('hex'));
  if (!issued) return undefined;
  if (issued.used) {
    await deleteSession(issued.sessionId);
    return undefined;
  }
  const expected = Buffer.from(issued.codeChallenge);
  const presented = Buffer.from(sha256(verifier).toString('base64url'));
  const valid =
    issued.clientId === ACCOUNT_CLIENT &&
    issued.orgUuid === orgUuid &&
    issued.redirectUri === accountSsoUri(realm) &&
    issued.expiresAt > Math.floor(Date.now() / 1000) &&
    expected.length === presented.length &&
    timingSafeEqual(expected, presented);
  if (!valid || !(await findActiveUser(orgUuid, issued.userUuid))) return undefined;
  return beginAccountSession(orgUuid, issued.userUuid, issued.sessionId, {
    startedAtMs: issued.startedAtMs ?? issued.authTime * 1000,
    ...(issued.signedInWith ? { signedInWith: issued.signedInWith } : {}),
    ...(issued.realmSessionId ? { realmSessionId: issued.realmSessionId } : {}),
  });
}
