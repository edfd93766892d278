import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, queryIndex, updateItem } from '../../adapters/store/table';

/** A refresh session: the refresh token's secret is kept only as a hash. */
export interface Session {
  sessionId: string;
  userUuid: string;
  orgUuid: string;
  clientId: string;
  /** The scope granted at sign-in (`openid` adds ID tokens on every refresh). */
  scope?: string;
  /** Epoch seconds of the password grant that began the session (the ID token's `auth_time`). */
  authTime?: number;
  secretHash: string;
  /** Hash of the secret the last rotation replaced: seeing it again means a copy is in other hands. */
  previousSecretHash?: string;
  /** Epoch seconds: the refresh token's expiry (slides on each refresh, never past `endsAt`). */
  expiresAt: number;
  /** Epoch seconds: the session's absolute end. */
  endsAt: number;
  /** An account-page session begun with a temporary password: it may only set a new password. */
  mustSetPassword?: boolean;
}

export async function createSession(session: Session): Promise<void> {
  await putItem(
    { ...keys.session(session.sessionId, session.userUuid), type: 'SESSION', ttl: session.endsAt, ...session },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

export async function getSession(sessionId: string, options?: { consistent?: boolean }): Promise<Session | undefined> {
  return getItem<Session>(keys.sessionKey(sessionId), options);
}

/** Replaces the refresh secret; false when another refresh used the old one first. */
export async function rotateSession(sessionId: string, seenHash: string, newHash: string, expiresAt: number): Promise<boolean> {
  return updateItem({
    Key: keys.sessionKey(sessionId),
    UpdateExpression: 'SET secretHash = :new, previousSecretHash = :seen, expiresAt = :exp',
    ConditionExpression: 'secretHash = :seen',
    ExpressionAttributeValues: { ':new': newHash, ':seen': seenHash, ':exp': expiresAt },
  });
}

/** A session that exists and has not reached its absolute end. */
export async function getLiveSession(sessionId: string, options?: { consistent?: boolean }): Promise<Session | undefined> {
  const session = await getSession(sessionId, options);
  return session && session.endsAt > Math.floor(Date.now() / 1000) ? session : undefined;
}

export async function deleteSession(sessionId: string): Promise<void> {
  await deleteItem({ Key: keys.sessionKey(sessionId) });
}

/** Ends every session of a user (its refresh tokens stop working); returns how many there were. */
export async function revokeSessionsOf(userUuid: string): Promise<number> {
  const sessions = await queryIndex<Session>(keys.sessionsOf(userUuid));
  await Promise.all(sessions.map((session) => deleteSession(session.sessionId)));
  return sessions.length;
}
