import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Language } from '../../kernel/messages/languages';
import { endAuthorizationRequest, saveAuthorizationCode, type AuthorizationRequest } from '../../domain/sessions/authorization.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import type { SignInMethod } from '../../domain/sessions/session.repository';
import { randomId } from '../auth/access-token';
import { realmIssuer } from '../auth/jwt';
import { redirectWith } from '../auth/redirect-uris';
import { renderSignInPage } from './sign-in-page';
import { endRealmSessionById, openRealmSession, type LiveRealmSession, type RealmSessionChange } from './realm-session';

/**
 * How a sign-in ends, whichever way it was made (the sign-in page, an identity provider): back to its
 * application with a code, or with an error.
 */

/**
 * What the HTTP layer answers: a page (200, or an error page), or a redirect; with `realmSession` when
 * the browser's realm session cookie is set (a sign-in) or removed (`null`: a sign-out), and
 * `requestCookie` when the cookie that binds a sign-in's request to the browser is set (the request
 * kept) or removed (`null`: the request ended).
 */
export type AuthorizeAnswer<S extends number = 200 | 400> = ({ kind: 'page'; status: S; html: string } | { kind: 'redirect'; location: string }) & {
  realmSession?: RealmSessionChange;
  requestCookie?: RequestCookieChange;
};

/** The request cookie's secret and lifetime, or `null`: the browser's request cookie must go. */
export type RequestCookieChange = { secret: string; seconds: number } | null;

/** A code's lifetime: an application exchanges it at once (RFC 6749 §4.1.2 advises at most 10 minutes). */
export const CODE_SECONDS = 60;

const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * A new secret for the browser that makes a request (its cookie) and what the request keeps of it (the
 * hash): the request's form, a provider's answer for it and a first link's confirmation go on only in
 * the browser that holds the secret, so a sign-in begun in one browser cannot be finished in another
 * (a provider's answer sent to someone else signs nobody in there: login CSRF).
 */
export function browserBinding(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: sha256(secret).toString('hex') };
}

/** Whether the browser's request cookie holds the secret the request was made with (constant time). */
export function isRequestsBrowser(pending: AuthorizationRequest, presented: string | undefined): boolean {
  if (!pending.browserHash || !presented || presented.length > 128) return false;
  const kept = Buffer.from(pending.browserHash, 'hex');
  const actual = sha256(presented);
  return kept.length === actual.length && timingSafeEqual(kept, actual);
}

/**
 * A sign-in (a password, a provider, a first password chosen) ends its request (a form posted twice
 * makes one code), opens the browser's realm session, replacing the one the request found if any, and
 * sends the browser back with a new code: single use, a minute long, bound to the client, the redirect
 * URI and the challenge. `proof.startedAtMs` is when the person began to prove who they are (taken
 * before a password is checked, or a provider's answer verified): the session, and what the code
 * begins, count from then, so a credential change racing the sign-in ends them too.
 */
export async function codeFor(pending: AuthorizationRequest, user: UserRecord, proof: SignInProof = {}): Promise<AuthorizeAnswer<400>> {
  const proven = { startedAtMs: proof.startedAtMs ?? Date.now(), ...(proof.signedInWith ? { signedInWith: proof.signedInWith } : {}) };
  if (!(await endAuthorizationRequest(pending.requestId))) {
    return { kind: 'page', status: 400, html: renderSignInPage({ kind: 'error', problem: 'expired' }, (pending.locale as Language | undefined) ?? 'en', 'authenticate') };
  }
  if (pending.replacesRealmSession) await endRealmSessionById(pending.replacesRealmSession);
  const { token, seconds, sessionId } = await openRealmSession(pending.orgUuid, user.uuid, proven);
  return { kind: 'redirect', location: await issueCode(pending, user, { ...proven, realmSessionId: sessionId }), realmSession: { token, seconds }, requestCookie: null };
}

/** The code of a request the browser's live realm session answers at once: no page, the session's sign-in time as `auth_time`. */
export async function codeFromSession(pending: AuthorizationRequest, live: LiveRealmSession): Promise<AuthorizeAnswer<400>> {
  const { startedAtMs, signedInWith } = live.session;
  return { kind: 'redirect', location: await issueCode(pending, live.user, { startedAtMs, ...(signedInWith ? { signedInWith } : {}), realmSessionId: live.session.sessionId }) };
}

/** How a sign-in was proved: when it began (epoch ms; now when absent) and how (a password when absent). */
export interface SignInProof {
  startedAtMs?: number;
  signedInWith?: SignInMethod;
}

/**
 * Keeps a new code for the request and answers where it goes back to; `proven.startedAtMs` is the
 * sign-in's moment (the ID token's `auth_time`, in seconds; what the code begins counts from it).
 */
async function issueCode(
  pending: AuthorizationRequest,
  user: UserRecord,
  proven: { startedAtMs: number; signedInWith?: SignInMethod; realmSessionId: string },
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await saveAuthorizationCode({
    codeHash: sha256(code).toString('hex'),
    realm: pending.realm,
    orgUuid: pending.orgUuid,
    userUuid: user.uuid,
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    authTime: Math.floor(proven.startedAtMs / 1000),
    startedAtMs: proven.startedAtMs,
    ...(proven.signedInWith ? { signedInWith: proven.signedInWith } : {}),
    realmSessionId: proven.realmSessionId,
    expiresAt: now() + CODE_SECONDS,
    sessionId: randomId(),
    ...(pending.nonce ? { nonce: pending.nonce } : {}),
    ...(pending.scope ? { scope: pending.scope } : {}),
  });
  return redirectWith(pending.redirectUri, { code, state: pending.state, iss: realmIssuer(pending.realm) }, pending.responseMode);
}

/** Sends the browser back to the application with an error (RFC 6749 §4.1.2.1), ending the request. */
export async function refuseRequest(pending: AuthorizationRequest, error: string, description: string): Promise<AuthorizeAnswer<400>> {
  await endAuthorizationRequest(pending.requestId);
  return {
    kind: 'redirect',
    location: redirectWith(pending.redirectUri, { error, error_description: description, state: pending.state, iss: realmIssuer(pending.realm) }, pending.responseMode),
    requestCookie: null,
  };
}
