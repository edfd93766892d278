import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, queryIndex, updateItem, type TableWrite } from '../../adapters/store/table';

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
  /** Epoch seconds: the session's absolute end (an offline session's slides with `expiresAt`). */
  endsAt: number;
  /** Begun with `scope=offline_access`: no absolute end, only an idle expiry that each refresh renews. */
  offline?: true;
  /** Epoch seconds the session began. */
  createdAt?: number;
  /** Epoch seconds of its last refresh. */
  lastUsedAt?: number;
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

/**
 * Replaces the refresh secret and records the use; false when another refresh used the old one first.
 * `endsAt` moves the session's end (and the item's ttl) too: an offline session's end slides.
 */
export async function rotateSession(sessionId: string, seenHash: string, newHash: string, expiresAt: number, endsAt?: number): Promise<boolean> {
  return updateItem({
    Key: keys.sessionKey(sessionId),
    UpdateExpression: `SET secretHash = :new, previousSecretHash = :seen, expiresAt = :exp, lastUsedAt = :now${endsAt === undefined ? '' : ', endsAt = :end, #ttl = :end'}`,
    ConditionExpression: 'secretHash = :seen',
    ...(endsAt === undefined ? {} : { ExpressionAttributeNames: { '#ttl': 'ttl' } }),
    ExpressionAttributeValues: { ':new': newHash, ':seen': seenHash, ':exp': expiresAt, ':now': Math.floor(Date.now() / 1000), ...(endsAt === undefined ? {} : { ':end': endsAt }) },
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

/** A user's live offline sessions (those of `scope=offline_access`), oldest first. */
export async function offlineSessionsOf(userUuid: string): Promise<Session[]> {
  const now = Math.floor(Date.now() / 1000);
  const sessions = await queryIndex<Session>(keys.sessionsOf(userUuid));
  return sessions.filter((session) => session.offline && session.expiresAt > now).sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0));
}

/** The write that ends one of a user's offline sessions: its condition fails unless it is one (for a transaction). */
export function offlineSessionDelete(userUuid: string, sessionId: string): TableWrite {
  return {
    Delete: {
      Key: keys.sessionKey(sessionId),
      // `offline` is one of DynamoDB's reserved words.
      ConditionExpression: 'userUuid = :user AND #offline = :offline',
      ExpressionAttributeNames: { '#offline': 'offline' },
      ExpressionAttributeValues: { ':user': userUuid, ':offline': true },
    },
  };
}

/** Ends one of a user's offline sessions; false when the user has none of this id. */
export async function deleteOfflineSessionOf(userUuid: string, sessionId: string): Promise<boolean> {
  return deleteItem(offlineSessionDelete(userUuid, sessionId).Delete!);
}

/** Ends every session of a user (its refresh tokens stop working); returns how many there were. */
export async function revokeSessionsOf(userUuid: string): Promise<number> {
  const sessions = await queryIndex<Session>(keys.sessionsOf(userUuid));
  await Promise.all(sessions.map((session) => deleteSession(session.sessionId)));
  return sessions.length;
}
