import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, updateItem } from '../../adapters/store/table';
import type { SignInMethod } from './session.repository';

/**
 * A realm session (Keycloak's SSO session): a person signed in to a realm in one browser, whose
 * cookie lets the authorization endpoint answer a code without asking again. It is stored as a session
 * item of its user (the same key and the same per-user index as refresh sessions), so whatever ends a
 * user's sessions ends it too; `type` and `realmSession` set it apart from refresh sessions, whose
 * listings and counts skip it. The cookie's secret is kept only as a hash.
 */
export interface RealmSession {
  sessionId: string;
  userUuid: string;
  orgUuid: string;
  /** SHA-256 (hex) of the cookie's secret. */
  secretHash: string;
  /** Epoch milliseconds of the sign-in that opened it (the credential stamp's comparison). */
  startedAtMs: number;
  /** Epoch seconds of that sign-in (the ID token's `auth_time`). */
  authTime: number;
  /** How the person proved who they are (a password when absent): an enforced provider ends password sessions. */
  signedInWith?: SignInMethod;
  /** Epoch seconds: the end of its idle time (slides on each use, never past `endsAt`). */
  expiresAt: number;
  /** Epoch seconds: its absolute end. */
  endsAt: number;
}

/** The item type of a realm session (a refresh session's is `SESSION`); `realmSession: true` marks it in what a read returns. */
export const REALM_SESSION_TYPE = 'REALM_SESSION';

type StoredRealmSession = RealmSession & { realmSession?: true };

export async function createRealmSession(session: RealmSession): Promise<void> {
  await putItem(
    { ...keys.realmSession(session.sessionId, session.userUuid), type: REALM_SESSION_TYPE, realmSession: true, ttl: session.endsAt, ...session },
    { ConditionExpression: 'attribute_not_exists(PK)' },
  );
}

/** The realm session of this id, read strongly consistent (a sign-out must be seen at once); undefined for any other item. */
export async function getRealmSession(sessionId: string): Promise<RealmSession | undefined> {
  const item = await getItem<StoredRealmSession>(keys.sessionKey(sessionId), { consistent: true });
  if (item?.realmSession !== true) return undefined;
  const { realmSession: _marker, ...session } = item;
  return session;
}

/** Moves the end of its idle time; false when the session is gone. */
export async function touchRealmSession(sessionId: string, expiresAt: number): Promise<boolean> {
  return updateItem({
    Key: keys.sessionKey(sessionId),
    UpdateExpression: 'SET expiresAt = :exp',
    ConditionExpression: 'realmSession = :true',
    ExpressionAttributeValues: { ':exp': expiresAt, ':true': true },
  });
}

/** Ends a realm session (only a realm session: any other item of that id is left alone). */
export async function deleteRealmSession(sessionId: string): Promise<void> {
  await deleteItem({
    Key: keys.sessionKey(sessionId),
    ConditionExpression: 'realmSession = :true',
    ExpressionAttributeValues: { ':true': true },
  });
}
