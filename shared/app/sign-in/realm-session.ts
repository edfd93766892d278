import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from '../../kernel/config';
import type { SignInMethod } from '../../domain/sessions/session.repository';
import { endSessionsOfRealmSession } from '../../domain/sessions/session-revocation.repository';
import { createRealmSession, deleteRealmSession, getRealmSession, touchRealmSession, type RealmSession } from '../../domain/sessions/realm-session.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { userStillSignedIn } from '../../domain/users/signed-in-user';
import { randomId } from '../auth/access-token';

/**
 * The realm session: what a browser that signed in to the realm keeps (an HttpOnly cookie holding
 * `<session id>.<secret>`), so that the authorization endpoint answers later requests without asking
 * again. It lasts as a refresh session does: `refreshTokenSeconds` idle, `sessionMaxSeconds` at most.
 * It is dead as soon as its user is deleted or not active, or changed credentials after it began
 * (the credential stamp), even if the revocation that followed missed it.
 */

/** A realm session begun (the cookie's value and how long it may last), or `null`: the browser's cookie must go. */
export type RealmSessionChange = { token: string; seconds: number } | null;

/** A live realm session and its user. */
export interface LiveRealmSession {
  session: RealmSession;
  user: UserRecord;
}

const sha256hex = (value: string) => createHash('sha256').update(value).digest('hex');
const now = () => Math.floor(Date.now() / 1000);
/** A session id (`randomId`, 22 characters) and a secret (43): anything longer is not a cookie of ours. */
const MAX_PART = 64;

/**
 * Opens a realm session for a user who proved who they are from `startedAtMs` (epoch milliseconds:
 * when the password check began, not now, so that a credential change landing between the check and
 * this moment still ends the session), and how; answers its cookie and the sign-in's time (epoch seconds).
 */
export async function openRealmSession(
  orgUuid: string,
  userUuid: string,
  proven: { startedAtMs: number; signedInWith?: SignInMethod },
): Promise<{ token: string; seconds: number; authTime: number; sessionId: string }> {
  const { startedAtMs } = proven;
  const secret = randomBytes(32).toString('base64url');
  const { refreshTokenSeconds, sessionMaxSeconds } = config();
  const authTime = Math.floor(startedAtMs / 1000);
  const session: RealmSession = {
    sessionId: randomId(),
    userUuid,
    orgUuid,
    secretHash: sha256hex(secret),
    startedAtMs,
    authTime,
    ...(proven.signedInWith ? { signedInWith: proven.signedInWith } : {}),
    expiresAt: authTime + Math.min(refreshTokenSeconds, sessionMaxSeconds),
    endsAt: authTime + sessionMaxSeconds,
  };
  await createRealmSession(session);
  // The cookie lives as long as the session may; the server says when it went idle.
  return { token: `${session.sessionId}.${secret}`, seconds: sessionMaxSeconds, authTime, sessionId: session.sessionId };
}

/** The session a cookie's value names, when it is this organization's and the value holds its secret; its liveness unchecked. */
async function namedSession(token: string | undefined, orgUuid: string): Promise<RealmSession | undefined> {
  const [sessionId, secret, extra] = token?.split('.') ?? [];
  if (!sessionId || !secret || extra !== undefined || sessionId.length > MAX_PART || secret.length > MAX_PART) return undefined;
  const session = await getRealmSession(sessionId);
  if (!session || session.orgUuid !== orgUuid) return undefined;
  const presented = Buffer.from(sha256hex(secret));
  const kept = Buffer.from(session.secretHash);
  return presented.length === kept.length && timingSafeEqual(presented, kept) ? session : undefined;
}

/**
 * The live realm session of a cookie's value, with its user, its idle time started again; undefined
 * when there is none (no cookie, a forged or another realm's one, ended, idle or past its end, its
 * user gone, inactive, or with credentials changed since it began: then it is ended too).
 */
export async function liveRealmSession(token: string | undefined, orgUuid: string): Promise<LiveRealmSession | undefined> {
  const session = await namedSession(token, orgUuid);
  if (!session) return undefined;
  const at = now();
  // Read as written: a password change or a deletion that just landed ends the session at once.
  const user = session.expiresAt > at && session.endsAt > at ? await userStillSignedIn(orgUuid, session.userUuid, session) : undefined;
  if (!user) {
    await deleteRealmSession(session.sessionId);
    return undefined;
  }
  const expiresAt = Math.min(at + config().refreshTokenSeconds, session.endsAt);
  if (!(await touchRealmSession(session.sessionId, expiresAt))) return undefined;
  return { session: { ...session, expiresAt }, user };
}

/** Ends the realm session a cookie's value names (if it is one of this organization's); a session already gone changes nothing. */
export async function endRealmSession(token: string | undefined, orgUuid: string): Promise<void> {
  const session = await namedSession(token, orgUuid);
  if (!session) return;
  await deleteRealmSession(session.sessionId);
  // Signing out of the realm signs the browser's applications out too (offline tokens are kept).
  await endSessionsOfRealmSession(session.userUuid, session.sessionId);
}

/** Ends a realm session by its id (one a new sign-in in the same browser replaces). */
export async function endRealmSessionById(sessionId: string): Promise<void> {
  await deleteRealmSession(sessionId);
}
