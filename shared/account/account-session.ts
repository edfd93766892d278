import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomId } from '../auth/access-token';
import { createSession, deleteSession, getLiveSession, type Session } from '../sessions/session.repository';
import { config } from '../config';

/**
 * The account page's sign-in, kept like a refresh session (one table item, listed under its user so
 * that deleting the user or changing the password ends it) under its own client id, which no token
 * grant accepts. The browser holds `<session id>.<secret>` in an HttpOnly cookie; the store keeps only
 * the secret's hash. A form proves it came from the page with a token derived from the secret
 * (CSRF), on top of the cookie's SameSite=Strict.
 */
export const ACCOUNT_CLIENT = 'account-console';
export const COOKIE = 'ACCOUNT_SESSION';

/** A page session begun with a temporary password lasts long enough to choose a new one. */
const SET_PASSWORD_SECONDS = 10 * 60;

const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

export interface AccountSession {
  session: Session;
  /** The form token pages of this session carry. */
  csrf: string;
}

const csrfOf = (secret: string) => sha256(`csrf:${secret}`).toString('base64url');

/** Begins a page session; returns the cookie value and how long the session lasts. */
export async function beginAccountSession(orgUuid: string, userUuid: string, mustSetPassword: boolean): Promise<{ value: string; seconds: number }> {
  const secret = randomBytes(32).toString('base64url');
  const { sessionMaxSeconds, refreshTokenSeconds } = config();
  const lifetime = mustSetPassword ? SET_PASSWORD_SECONDS : Math.min(refreshTokenSeconds, sessionMaxSeconds);
  const session: Session = {
    sessionId: randomId(),
    userUuid,
    orgUuid,
    clientId: ACCOUNT_CLIENT,
    authTime: now(),
    secretHash: sha256(secret).toString('hex'),
    expiresAt: now() + lifetime,
    endsAt: now() + lifetime,
    ...(mustSetPassword ? { mustSetPassword: true } : {}),
  };
  await createSession(session);
  return { value: `${session.sessionId}.${secret}`, seconds: lifetime };
}

/** The page session a cookie names, if it is live, of this organization, and the cookie holds its secret. */
export async function readAccountSession(cookies: string[], orgUuid: string): Promise<AccountSession | undefined> {
  const value = cookieValue(cookies, COOKIE);
  const [sessionId, secret, extra] = value?.split('.') ?? [];
  if (!sessionId || !secret || extra !== undefined || sessionId.length > 64 || secret.length > 64) return undefined;
  // Strongly consistent: the page right after sign-in must see the session, and one after sign-out not.
  const session = await getLiveSession(sessionId, { consistent: true });
  if (!session || session.clientId !== ACCOUNT_CLIENT || session.orgUuid !== orgUuid || session.expiresAt <= now()) return undefined;
  const presented = Buffer.from(sha256(secret).toString('hex'));
  if (!timingSafeEqual(presented, Buffer.from(session.secretHash))) return undefined;
  return { session, csrf: csrfOf(secret) };
}

/** Whether a form's token is the one of its session's pages. */
export function csrfMatches(account: AccountSession, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(account.csrf);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export async function endAccountSession(account: AccountSession): Promise<void> {
  await deleteSession(account.session.sessionId);
}

/** The value of one cookie of the request's cookies (payload 2.0's `cookies`, one `name=value` each). */
export function cookieValue(cookies: string[], name: string): string | undefined {
  for (const part of cookies) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie header for a page session (or, with no value, one that removes it): only this realm's
 * account page receives it, never a script, never another site's request.
 */
export function sessionCookie(value: string | undefined, path: string, secure: boolean, maxAgeSeconds: number): string {
  const attributes = [`Path=${path}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  return value === undefined
    ? [`${COOKIE}=`, ...attributes, 'Max-Age=0'].join('; ')
    : [`${COOKIE}=${value}`, ...attributes, `Max-Age=${maxAgeSeconds}`].join('; ');
}
