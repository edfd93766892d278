import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from '../../kernel/config';
import type { IdentityProvider } from './identity.port';
import type { UserRecord } from '../../domain/users/user.entities';
import { userStillSignedIn } from '../../domain/users/signed-in-user';
import { asksOffline, grantedScope, issueAccessToken, issueIdToken, randomId } from './access-token';
import { OAuthError } from './oauth-errors';
import { canonicalRealm, organizationOfRealm } from './realm';
import { readRefreshToken, issueRefreshToken } from './refresh-token';
import { checkPassword, notFullySetUp } from './sign-in';
import { createSession, deleteSession, getSession, rotateSession, touchSession, type Session, type SignInMethod } from '../../domain/sessions/session.repository';

/** The token response of a Keycloak-style endpoint (docs/api/auth.md#token-endpoint). */
export type TokenResponse = {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: 'Bearer';
  'not-before-policy': number;
  session_state: string;
  scope: string;
  /** Only when the scope contains `openid`. */
  id_token?: string;
};

const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;

/** Reads the token request's form; a body that is not a form is an `invalid_request`. */
export function readTokenForm(contentType: string | undefined, body: string | undefined, authorization?: string): Map<string, string> {
  if (!contentType || !FORM_TYPE.test(contentType)) {
    throw new OAuthError('invalid_request', 'The request must be application/x-www-form-urlencoded');
  }
  const params = new URLSearchParams(body ?? '');
  const form = new Map<string, string>();
  for (const [name, value] of params) {
    // RFC 6749 §3.2: parameters must not be repeated.
    if (form.has(name)) throw new OAuthError('invalid_request', `Parameter ${name} is repeated`);
    form.set(name, value);
  }
  const basic = basicClientOf(authorization);
  if (basic !== undefined) {
    if (form.has('client_id') && form.get('client_id') !== basic) {
      throw new OAuthError('invalid_request', 'The client_id of the form and of the Authorization header differ: send one');
    }
    form.set('client_id', basic);
  }
  return form;
}

/**
 * The client id of an RFC 6749 §2.3.1 `Basic` header (id and secret form-encoded, then base64), which
 * many tools send by default (Postman, Swagger UI). The console is a public client: its secret is empty.
 */
function basicClientOf(authorization: string | undefined): string | undefined {
  const encoded = authorization?.trim().match(/^Basic\s+([A-Za-z0-9+/=]+)$/i)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'The Basic Authorization header must hold client_id:client_secret');
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
  if (decode(decoded.slice(colon + 1)) !== '') throw new OAuthError('invalid_client', 'This client is public: send its client_id with an empty secret, or in the form');
  return decode(decoded.slice(0, colon));
}

export function requireParam(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError('invalid_request', `Missing parameter: ${name}`);
  return value;
}

const now = () => Math.floor(Date.now() / 1000);
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

/** The console is the one client: a public client, identified by its `client_id` alone. */
export function requireClient(form: Map<string, string>): string {
  const clientId = requireParam(form, 'client_id');
  if (clientId !== config().userPoolClientId) throw new OAuthError('invalid_client', 'Unknown client');
  return clientId;
}

export async function passwordGrant(
  realm: string,
  form: Map<string, string>,
  clientId: string,
  identityProvider: IdentityProvider,
): Promise<TokenResponse> {
  const username = requireParam(form, 'username');
  const password = requireParam(form, 'password');
  // Before the check: a password change that lands while it runs ends the session it begins.
  const startedAtMs = Date.now();
  const { orgUuid, user, temporary } = await checkPassword(realm, username, password, identityProvider);
  if (temporary) throw notFullySetUp(realm);

  return startSession(realm, { orgUuid, user, clientId, scope: form.get('scope'), startedAtMs, signedInWith: 'password' });
}

/** What a sign-in proved, whichever way it was made (password, authorization code). */
export interface SignedIn {
  /** The realm session whose sign-in this is (an authorization code's): its logout ends the session begun here. */
  realmSessionId?: string;
  orgUuid: string;
  user: UserRecord;
  clientId: string;
  /** The scope the client asked for (`openid` adds an ID token, `offline_access` makes an offline session). */
  scope: string | undefined;
  /** Epoch seconds the person signed in (the ID token's `auth_time`); now when absent. */
  authTime?: number;
  /** The `nonce` of an authorization request, echoed in the ID token. */
  nonce?: string;
  /** The session's id, when the sign-in named it in advance (an authorization code does). */
  sessionId?: string;
  /**
   * Epoch milliseconds the sign-in began, taken before its credentials were checked: a credential
   * stamp at or after it ends the session. Now when absent, for a sign-in whose check just ended.
   */
  startedAtMs?: number;
  /** How the person proved who they are (a password when absent). */
  signedInWith?: SignInMethod;
}

/**
 * Begins a refresh session for a sign-in and answers its first tokens. A scope with `offline_access`
 * begins an offline session: no absolute end, only an idle expiry (`offlineSessionIdleSeconds`) that
 * each use renews, and an offline token (`typ` "Offline") that does not rotate. The user keeps at
 * most `SESSIONS_PER_KIND` sessions of each kind (`createSession`).
 */
export async function startSession(realm: string, signedIn: SignedIn): Promise<TokenResponse> {
  const { refreshTokenSeconds, sessionMaxSeconds, offlineSessionIdleSeconds } = config();
  const secret = newSecret();
  const offline = asksOffline(signedIn.scope);
  const session: Session = {
    sessionId: signedIn.sessionId ?? randomId(),
    userUuid: signedIn.user.uuid,
    orgUuid: signedIn.orgUuid,
    clientId: signedIn.clientId,
    scope: grantedScope(signedIn.scope),
    authTime: signedIn.authTime ?? now(),
    startedAtMs: signedIn.startedAtMs ?? Date.now(),
    signedInWith: signedIn.signedInWith ?? 'password',
    secretHash: hashSecret(secret),
    expiresAt: now() + (offline ? offlineSessionIdleSeconds : Math.min(refreshTokenSeconds, sessionMaxSeconds)),
    endsAt: now() + (offline ? offlineSessionIdleSeconds : sessionMaxSeconds),
    createdAt: now(),
    ...(offline ? { offline: true as const } : {}),
    ...(signedIn.realmSessionId && !offline ? { realmSessionId: signedIn.realmSessionId } : {}),
  };
  await createSession(session, signedIn.user);
  return respond(canonicalRealm(realm), session, signedIn.user, secret, signedIn.nonce);
}

/**
 * `grant_type=refresh_token`. A refresh token rotates: the answer carries a new one and the one used
 * stops working; presenting the one a rotation replaced ends the session (reuse detection). An offline
 * token does not rotate (Keycloak's default, so that automation can keep one): each use answers a fresh
 * access token and an offline token of the same secret, and the token used, that one and any other of
 * the session keep working until the session ends. Either way the session ends when its user is no
 * longer active or a credential stamp is newer than its sign-in.
 */
export async function refreshGrant(realm: string, form: Map<string, string>, clientId: string): Promise<TokenResponse> {
  const invalid = () => new OAuthError('invalid_grant', 'Invalid refresh token');
  const claims = await readRefreshToken(requireParam(form, 'refresh_token'), canonicalRealm(realm), clientId);
  if (!claims) throw invalid();
  const [session, orgUuid] = await Promise.all([getSession(claims.sid), organizationOfRealm(realm)]);
  if (!session || session.orgUuid !== orgUuid || session.clientId !== clientId || session.expiresAt <= now()) {
    throw invalid();
  }
  const presented = Buffer.from(hashSecret(claims.jti));
  if (!timingSafeEqual(presented, Buffer.from(session.secretHash))) {
    // The refresh token this one replaced came back: someone holds a copy, so end the whole session.
    // Only a token we signed gets this far, so knowing a session id is not enough to end a session.
    if (session.previousSecretHash && timingSafeEqual(presented, Buffer.from(session.previousSecretHash))) {
      await deleteSession(session.sessionId);
    }
    throw invalid();
  }
  // Strongly consistent: a refresh right after a password change must see its stamp.
  const user = await userStillSignedIn(session.orgUuid, session.userUuid, session);
  if (!user) {
    await deleteSession(session.sessionId);
    throw new OAuthError('invalid_grant', 'Session not active: sign in again');
  }
  if (session.offline) {
    // An offline session's idle expiry starts again on each use.
    const expiresAt = now() + config().offlineSessionIdleSeconds;
    if (!(await touchSession(session, expiresAt))) throw invalid();
    return respond(canonicalRealm(realm), { ...session, expiresAt, endsAt: expiresAt }, user, claims.jti);
  }
  const nextSecret = newSecret();
  // An online session's expiry slides, never past its end.
  const expiresAt = Math.min(now() + config().refreshTokenSeconds, session.endsAt);
  if (!(await rotateSession(session, hashSecret(nextSecret), expiresAt))) throw invalid();
  return respond(canonicalRealm(realm), { ...session, expiresAt }, user, nextSecret);
}

async function respond(realm: string, session: Session, user: UserRecord, secret: string, nonce?: string): Promise<TokenResponse> {
  const scope = session.scope ?? grantedScope(undefined);
  const subject = {
    realm,
    userUuid: session.userUuid,
    email: user.email,
    name: user.name,
    sessionId: session.sessionId,
    clientId: session.clientId,
    scope,
    authTime: session.authTime ?? now(),
  };
  const [access, refreshToken, idToken] = await Promise.all([
    issueAccessToken(subject),
    issueRefreshToken({ ...subject, secret, expiresAt: session.expiresAt, offline: session.offline }),
    scope.split(' ').includes('openid') ? issueIdToken(subject, nonce) : undefined,
  ]);
  return {
    access_token: access.token,
    expires_in: access.expiresIn,
    // Keycloak answers 0 for an offline token: it has no fixed end.
    refresh_expires_in: session.offline ? 0 : Math.max(0, session.expiresAt - now()),
    refresh_token: refreshToken,
    token_type: 'Bearer',
    ...(idToken ? { id_token: idToken } : {}),
    'not-before-policy': 0,
    session_state: session.sessionId,
    scope,
  };
}
