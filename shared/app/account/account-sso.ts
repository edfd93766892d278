import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IdentityProviderRecord } from '../../domain/identity-providers/identity-provider.entities';
import { saveAuthorizationRequest, useAuthorizationCode } from '../../domain/sessions/authorization.repository';
import { deleteSession } from '../../domain/sessions/session.repository';
import { findActiveUser } from '../../domain/users/user.repository';
import type { Language } from '../../adapters/mail/mail-terms';
import { SIGN_IN_SECONDS } from '../sign-in/authorization.service';
import { startBrokeredSignIn } from '../sign-in/broker';
import { realmIssuer } from '../auth/jwt';
import { ACCOUNT_CLIENT, beginAccountSession } from './account-session';

/**
 * The account page's sign-in through the organization's own identity provider: the page is a client
 * of the realm's authorization flow like any other, under its own client id (which the token endpoint
 * refuses), coming back to `{issuer}/account/sso` with a code bound to a PKCE verifier the browser
 * keeps in a cookie of the page's.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Where the flow comes back to the page. */
export const accountSsoUri = (realm: string) => `${realmIssuer(realm)}/account/sso`;

/** Starts the sign-in at the provider; the verifier goes in the browser's cookie. */
export async function startAccountSso(
  realm: string,
  orgUuid: string,
  provider: IdentityProviderRecord,
  email: string,
  language: Language,
): Promise<{ location: string; verifier: string; seconds: number }> {
  const verifier = randomBytes(32).toString('base64url');
  const pending = {
    requestId: randomBytes(32).toString('base64url'),
    realm,
    orgUuid,
    clientId: ACCOUNT_CLIENT,
    redirectUri: accountSsoUri(realm),
    codeChallenge: sha256(verifier).toString('base64url'),
    expiresAt: Math.floor(Date.now() / 1000) + SIGN_IN_SECONDS,
    locale: language,
  };
  await saveAuthorizationRequest(pending);
  const away = await startBrokeredSignIn(pending, provider, email);
  if (away.kind !== 'redirect') throw new Error('A brokered sign-in always redirects');
  return { location: away.location, verifier, seconds: SIGN_IN_SECONDS };
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
  return beginAccountSession(orgUuid, issued.userUuid, false, { startedAtMs: issued.startedAtMs ?? issued.authTime * 1000, signedInWith: issued.signedInWith ?? 'provider' });
}
