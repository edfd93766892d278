import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { config } from '../config';
import { cognitoIdentityProvider, type IdentityProvider } from '../identity/identity-provider';
import { REALM_NAME } from '../org/org.entities';
import { findRealm } from '../org/org.repository';
import { findActiveUser, findUserByEmail } from '../users/user.repository';
import { TOKEN_SCOPE, issueAccessToken } from './access-token';
import { OAuthError, invalidCredentials } from './oauth-errors';
import { createSession, deleteSession, getSession, rotateSession, type Session } from './session.repository';
import { count } from '../metrics';

/** The token response of a Keycloak-style endpoint (spec section 5). */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: 'Bearer';
  'not-before-policy': number;
  session_state: string;
  scope: string;
}

/** Longest e-mail address (RFC 5321 path limit); longer usernames cannot be anyone's. */
const MAX_EMAIL = 320;
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REFRESH_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** The organization of a realm name; a name that cannot be a realm is not looked up. */
async function organizationOfRealm(realm: string): Promise<string | undefined> {
  return REALM_NAME.test(realm.toLowerCase()) ? findRealm(realm) : undefined;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;

/** Reads the token request's form; a body that is not a form is an `invalid_request`. */
export function readTokenForm(contentType: string | undefined, body: string | undefined): Map<string, string> {
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
  return form;
}

function requireParam(form: Map<string, string>, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError('invalid_request', `Missing parameter: ${name}`);
  return value;
}

const now = () => Math.floor(Date.now() / 1000);
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Grants tokens on the realm's token endpoint (password and refresh_token grants only). */
export async function grantToken(
  realm: string,
  form: Map<string, string>,
  identityProvider: IdentityProvider = cognitoIdentityProvider,
): Promise<TokenResponse> {
  const grantType = requireParam(form, 'grant_type');
  const clientId = requireParam(form, 'client_id');
  if (clientId !== config().userPoolClientId) throw new OAuthError('invalid_client', 'Unknown client');
  if (grantType === 'password' || grantType === 'refresh_token') {
    try {
      const granted = await (grantType === 'password' ? passwordGrant(realm, form, clientId, identityProvider) : refreshGrant(realm, form, clientId));
      count('TokensGranted');
      return granted;
    } catch (error) {
      if (error instanceof OAuthError && error.error === 'invalid_grant') count('TokensRefused');
      throw error;
    }
  }
  throw new OAuthError(
    'unsupported_grant_type',
    grantType === 'client_credentials'
      ? 'client_credentials is not accepted: management operations require a user token'
      : 'Only the password and refresh_token grants are supported',
  );
}

async function passwordGrant(
  realm: string,
  form: Map<string, string>,
  clientId: string,
  identityProvider: IdentityProvider,
): Promise<TokenResponse> {
  const username = requireParam(form, 'username');
  const password = requireParam(form, 'password');
  const orgUuid = await organizationOfRealm(realm);
  const email = username.trim();
  const user = orgUuid && email.length <= MAX_EMAIL ? await findUserByEmail(orgUuid, email) : undefined;
  // Unknown realm, unknown e-mail, inactive user and wrong password all get the same answer.
  if (!orgUuid || !user || user.status !== 'ACTIVE') throw invalidCredentials();
  if (!(await identityProvider.verifyPassword(user.uuid, password))) throw invalidCredentials();

  const { refreshTokenSeconds, sessionMaxSeconds } = config();
  const secret = randomBytes(32).toString('base64url');
  const session: Session = {
    sessionId: randomUUID(),
    userUuid: user.uuid,
    orgUuid,
    clientId,
    secretHash: hashSecret(secret),
    expiresAt: now() + Math.min(refreshTokenSeconds, sessionMaxSeconds),
    endsAt: now() + sessionMaxSeconds,
  };
  await createSession(session);
  return respond(session, secret);
}

async function refreshGrant(realm: string, form: Map<string, string>, clientId: string): Promise<TokenResponse> {
  const [sessionId, secret, ...rest] = requireParam(form, 'refresh_token').split('.');
  const invalid = () => new OAuthError('invalid_grant', 'Invalid refresh token');
  if (!sessionId || !secret || rest.length > 0 || !SESSION_ID.test(sessionId) || !REFRESH_SECRET.test(secret)) {
    throw invalid();
  }
  const [session, orgUuid] = await Promise.all([getSession(sessionId), organizationOfRealm(realm)]);
  if (!session || session.orgUuid !== orgUuid || session.clientId !== clientId || session.expiresAt <= now()) {
    throw invalid();
  }
  const presented = Buffer.from(hashSecret(secret));
  if (!timingSafeEqual(presented, Buffer.from(session.secretHash))) {
    // The refresh token this one replaced came back: someone holds a copy, so end the whole session.
    // Any other wrong secret is only refused, so knowing a session id is not enough to end it.
    if (session.previousSecretHash && timingSafeEqual(presented, Buffer.from(session.previousSecretHash))) {
      await deleteSession(sessionId);
    }
    throw invalid();
  }
  if (!(await findActiveUser(session.orgUuid, session.userUuid))) {
    await deleteSession(sessionId);
    throw invalid();
  }
  const nextSecret = randomBytes(32).toString('base64url');
  const expiresAt = Math.min(now() + config().refreshTokenSeconds, session.endsAt);
  if (!(await rotateSession(sessionId, session.secretHash, hashSecret(nextSecret), expiresAt))) throw invalid();
  return respond({ ...session, expiresAt }, nextSecret);
}

async function respond(session: Session, secret: string): Promise<TokenResponse> {
  const access = await issueAccessToken({
    userUuid: session.userUuid,
    orgUuid: session.orgUuid,
    sessionId: session.sessionId,
    clientId: session.clientId,
  });
  return {
    access_token: access.token,
    expires_in: access.expiresIn,
    refresh_expires_in: Math.max(0, session.expiresAt - now()),
    refresh_token: `${session.sessionId}.${secret}`,
    token_type: 'Bearer',
    'not-before-policy': 0,
    session_state: session.sessionId,
    scope: TOKEN_SCOPE,
  };
}

/** The JWKS of a realm (one signing key serves every realm); an unknown realm has none. */
export async function realmExists(realm: string): Promise<boolean> {
  return (await organizationOfRealm(realm)) !== undefined;
}
