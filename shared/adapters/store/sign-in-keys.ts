import { orgPartition, type IndexedKey, type ItemKey, type RefreshSessionKind } from './key-types';

/**
 * The keys of signing in and of what it begins: failed sign-ins, sessions (refresh, realm), credential
 * stamps, authorization requests and codes, links waiting for confirmation, device authorizations.
 * Part of `keys` (keys.ts), the one place key strings are built.
 */
export const signInKeys = {
  /** A user's consecutive failed sign-ins and temporary lock (brute-force protection). */
  loginFailure: (userUuid: string): ItemKey => ({ PK: `USER#${userUuid}`, SK: 'LOGIN_FAILURE' }),
  /**
   * The failures of sign-ins naming no active user, under a digest of the realm and e-mail: counted as
   * a user's are, so that refusing such a sign-in does the same reads and writes as refusing a user's.
   */
  signInDecoy: (digest: string): ItemKey => ({ PK: `SIGNINDECOY#${digest}`, SK: 'LOGIN_FAILURE' }),
  /** What a decoy's lock writes where a user's lock writes its audit event (the same work, nothing to read). */
  signInDecoyLock: (digest: string): ItemKey => ({ PK: `SIGNINDECOY#${digest}`, SK: 'LOCKED_OUT' }),

  /**
   * A refresh session. GSI1 lists a user's sessions so they can be revoked together; a refresh
   * session's sort key there is its kind, then the second it was made, then its id, so one kind's
   * sessions are listed, oldest first, and counted against their cap without reading any other item,
   * and those made before a credential stamp (ended by it) are skipped without being read.
   */
  session: (sessionId: string, userUuid: string, kind: RefreshSessionKind, createdAt: number): IndexedKey => ({
    PK: `SESSION#${sessionId}`,
    SK: 'SESSION',
    GSI1PK: signInKeys.sessionsOf(userUuid),
    GSI1SK: `${signInKeys.refreshSessionsMadeFrom(kind, createdAt)}#${sessionId}`,
  }),
  /** A realm session (a browser's sign-in to the realm): the same item key, listed under its user apart from the refresh sessions. */
  realmSession: (sessionId: string, userUuid: string): IndexedKey => ({
    PK: `SESSION#${sessionId}`,
    SK: 'SESSION',
    GSI1PK: signInKeys.sessionsOf(userUuid),
    GSI1SK: `REALM#${sessionId}`,
  }),
  sessionKey: (sessionId: string): ItemKey => ({ PK: `SESSION#${sessionId}`, SK: 'SESSION' }),
  /** The GSI1 partition of a user's sessions (every kind: whatever ends them all reads it whole). */
  sessionsOf: (userUuid: string): string => `USER#${userUuid}#SESSIONS`,
  /** The prefix of one kind's refresh sessions in the user's GSI1 partition. */
  refreshSessionsOfKind: (kind: RefreshSessionKind): string => `REFRESH#${kind}#`,
  /** Where one kind's refresh sessions made from the second `createdAt` (epoch seconds) on begin in that partition. */
  refreshSessionsMadeFrom: (kind: RefreshSessionKind, createdAt: number): string => `${signInKeys.refreshSessionsOfKind(kind)}${String(Math.max(0, createdAt)).padStart(12, '0')}`,
  /**
   * The stamp of an e-mail domain whose password sign-ins ended (its provider's `enforce` turned on):
   * a session begun with a password by a user of the domain before it no longer works. Never deleted,
   * so removing the provider or the domain later revives nothing.
   */
  domainCredentialStamp: (orgUuid: string, domain: string): ItemKey => ({ PK: orgPartition(orgUuid), SK: `CREDSTAMP#${domain.toLowerCase()}` }),

  /** An authorization request waiting for its person to sign in (the sign-in page's form names it). */
  authorizationRequest: (requestId: string): ItemKey => ({ PK: `AUTHREQUEST#${requestId}`, SK: 'AUTHREQUEST' }),
  /** Points from the `state` sent to an identity provider to the authorization request it serves. */
  brokerState: (state: string): ItemKey => ({ PK: `BROKERSTATE#${state}`, SK: 'BROKERSTATE' }),
  /** A first link through an identity provider waiting for the user's password (shared/domain/sessions/link-confirmation.repository.ts). */
  linkConfirmation: (confirmationId: string): ItemKey => ({ PK: `LINKCONFIRM#${confirmationId}`, SK: 'LINKCONFIRM' }),
  /** An authorization code (its SHA-256 digest, never the code). */
  authorizationCode: (codeHash: string): ItemKey => ({ PK: `AUTHCODE#${codeHash}`, SK: 'AUTHCODE' }),
  /** A device authorization (RFC 8628), by its user code: what the verification page and the device's polling both find. */
  deviceAuthorization: (userCode: string): ItemKey => ({ PK: `DEVICE#${userCode}`, SK: 'DEVICE' }),
  /** A step of the device verification page: a signed-in person's consent form (its token's SHA-256 digest, never the token). */
  deviceStep: (stepHash: string): ItemKey => ({ PK: `DEVICESTEP#${stepHash}`, SK: 'DEVICESTEP' }),
  /** The device verification page's sign-in under way (the SHA-256 digest of its cookie's state, never the state). */
  deviceSignIn: (stateHash: string): ItemKey => ({ PK: `DEVICESIGNIN#${stateHash}`, SK: 'DEVICESIGNIN' }),
  /** Wrong user codes entered in one window: for the whole organization, or from one address (a fixed-window counter, TTL). */
  deviceEntryWindow: (orgUuid: string, window: number, sourceIp?: string): ItemKey => ({
    PK: sourceIp === undefined ? `${orgPartition(orgUuid)}#DEVICEENTRIES` : `${orgPartition(orgUuid)}#DEVICEENTRIES#${sourceIp}`,
    SK: String(window),
  }),
};
