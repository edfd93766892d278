import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomId } from '../auth/access-token';
import { createSession, deleteSession, getLiveSession, type Session, type SignInMethod } from '../../domain/sessions/session.repository';
import { userStillSignedIn } from '../../domain/users/signed-in-user';
import { config } from '../../kernel/config';
import { ACCOUNT_CLIENT } from '../sign-in/realm-clients';

/**
 * The account page's session, begun by a code of the realm's authorization flow, kept like a refresh
 * session (one table item, listed under its user so that deleting the user or changing the password
 * ends it) under its own client id, which no token grant accepts. The browser holds
 * `<session id>.<secret>` (its token) in an HttpOnly cookie; the store keeps only the secret's hash. A
 * form proves it came from the page with a token derived from the secret (CSRF), on top of the
 * cookie's SameSite=Strict. A session older than its user's last credential change is over.
 */
export { ACCOUNT_CLIENT };

const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

export interface AccountSession {
  session: Session;
  /** The form token pages of this session carry. */
  csrf: string;
}

const csrfOf = (secret: string) => sha256(`csrf:${secret}`).toString('base64url');

/**
 * Begins a page session (under `sessionId`: the code's, so that a replay of the code ends it) for a
 * sign-in proved from `proof.startedAtMs`, and how; returns its token and how long the session lasts.
 */
export async function beginAccountSession(
  orgUuid: string,
  userUuid: string,
  sessionId = randomId(),
  proof: { startedAtMs?: number; signedInWith?: SignInMethod; realmSessionId?: string } = {},
): Promise<{ token: string; seconds: number }> {
  const secret = randomBytes(32).toString('base64url');
  const { sessionMaxSeconds, refreshTokenSeconds } = config();
  const lifetime = Math.min(refreshTokenSeconds, sessionMaxSeconds);
  const session: Session = {
    sessionId,
    startedAtMs: proof.startedAtMs ?? Date.now(),
    signedInWith: proof.signedInWith ?? 'password',
    ...(proof.realmSessionId ? { realmSessionId: proof.realmSessionId } : {}),
    userUuid,
    orgUuid,
    clientId: ACCOUNT_CLIENT,
    authTime: now(),
    secretHash: sha256(secret).toString('hex'),
    expiresAt: now() + lifetime,
    endsAt: now() + lifetime,
  };
  await createSession(session);
  return { token: `${session.sessionId}.${secret}`, seconds: lifetime };
}

/** The page session a token names, if it is live, of this organization, and the token holds its secret. */
export async function readAccountSession(token: string | undefined, orgUuid: string): Promise<AccountSession | undefined> {
  const [sessionId, secret, extra] = token?.split('.') ?? [];
  if (!sessionId || !secret || extra !== undefined || sessionId.length > 64 || secret.length > 64) return undefined;
  // Strongly consistent: the page right after sign-in must see the session, and one after sign-out not.
  const session = await getLiveSession(sessionId, { consistent: true });
  // A session begun with a temporary password (which the page no longer begins: the realm's flow asks for a new one) opens nothing.
  if (!session || session.clientId !== ACCOUNT_CLIENT || session.orgUuid !== orgUuid || session.expiresAt <= now() || session.mustSetPassword) return undefined;
  const presented = Buffer.from(sha256(secret).toString('hex'));
  if (!timingSafeEqual(presented, Buffer.from(session.secretHash))) return undefined;
  // A session begun before the user's credentials last changed is over, whatever a revocation missed.
  if (!(await userStillSignedIn(orgUuid, session.userUuid, session))) {
    await deleteSession(session.sessionId);
    return undefined;
  }
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
