import { keys } from '../../adapters/store/keys';
import { deleteItem, getItem, putItem, updateItemReturning } from '../../adapters/store/table';
import type { SignInMethod } from './session.repository';

/**
 * What an authorization request asked for (RFC 6749 §4.1.1 with PKCE, RFC 7636), kept while its
 * person signs in: on the sign-in page, or at the organization's own identity provider.
 */
export interface AuthorizationRequest {
  requestId: string;
  realm: string;
  orgUuid: string;
  clientId: string;
  redirectUri: string;
  state?: string;
  /** The S256 challenge the code's exchange must answer. */
  codeChallenge: string;
  nonce?: string;
  /** The scope asked for, as sent (the token endpoint grants from it). */
  scope?: string;
  loginHint?: string;
  /** Set when the answer goes back in the redirect URI's fragment rather than its query. */
  responseMode?: 'fragment';
  /** The page's language (`ui_locales` or `kc_locale`). */
  locale?: string;
  /** Epoch seconds: after this the person must start again at the application. */
  expiresAt: number;
  /** The user whose temporary password was right: the request goes on once they chose their own. */
  mustSetPassword?: string;
  /**
   * The application asked for a new sign-in (`prompt=login`, `select_account`) or one at most `maxAge`
   * seconds old: an identity provider the person goes to is asked the same, and its answer must show it.
   */
  reauthenticate?: { login?: true; maxAge?: number; askedAt: number };
  /** The browser's realm session a sign-in made for this request replaces (`prompt=login`, `max_age`). */
  replacesRealmSession?: string;
  /**
   * SHA-256 (hex) of the secret of the cookie the browser that made the request was given: the sign-in
   * form, the provider's answer and a link's confirmation go on only in that browser.
   */
  browserHash?: string;
  /** Set when the person was sent to an identity provider: what its answer must carry back. */
  broker?: { alias: string; state: string; nonce: string; codeVerifier: string };
}

/** An authorization code: single use, bound to its client, redirect URI and challenge. */
export interface AuthorizationCode {
  /** The browser's realm session the code came from, or that its sign-in opened. */
  realmSessionId?: string;
  codeHash: string;
  realm: string;
  orgUuid: string;
  userUuid: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce?: string;
  scope?: string;
  /** Epoch seconds the person signed in. */
  authTime: number;
  /** Epoch milliseconds the sign-in began, before its credentials were checked (the session's `startedAtMs`). */
  startedAtMs?: number;
  /** How the person proved who they are (a password when absent). */
  signedInWith?: SignInMethod;
  expiresAt: number;
  /** The session its exchange begins, named in advance so that a replay of the code ends it whenever it comes. */
  sessionId: string;
  used?: boolean;
}

export async function saveAuthorizationRequest(request: AuthorizationRequest): Promise<void> {
  await putItem({ ...keys.authorizationRequest(request.requestId), type: 'AUTHREQUEST', ttl: request.expiresAt, ...request });
}

/** The request, while it has not expired (TTL deletes late). */
export async function getAuthorizationRequest(requestId: string): Promise<AuthorizationRequest | undefined> {
  const request = await getItem<AuthorizationRequest>(keys.authorizationRequest(requestId), { consistent: true });
  return request && request.expiresAt > Math.floor(Date.now() / 1000) ? request : undefined;
}

/** Sends the request to an identity provider: its answer finds the request by the provider's `state`. */
export async function brokerAuthorizationRequest(requestId: string, broker: NonNullable<AuthorizationRequest['broker']>): Promise<void> {
  await putItem({
    ...keys.brokerState(broker.state),
    type: 'BROKERSTATE',
    ttl: Math.floor(Date.now() / 1000) + 600,
    requestId,
  });
  await updateItemReturning({
    Key: keys.authorizationRequest(requestId),
    UpdateExpression: 'SET broker = :broker',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':broker': broker },
  });
}

/**
 * The request a provider's `state` names, when `accept` takes it (the browser's check); taken once (a
 * replayed answer finds nothing). One `accept` refuses is left as it was, for its own browser.
 */
export async function takeBrokeredRequest(providerState: string, accept: (request: AuthorizationRequest) => boolean): Promise<AuthorizationRequest | undefined> {
  const pointer = await getItem<{ requestId: string }>(keys.brokerState(providerState), { consistent: true });
  const request = pointer ? await getAuthorizationRequest(pointer.requestId) : undefined;
  if (!request || request.broker?.state !== providerState || !accept(request)) return undefined;
  return (await deleteItem({ Key: keys.brokerState(providerState), ConditionExpression: 'attribute_exists(PK)' })) ? request : undefined;
}

/** Ends a request: its form, or a provider's answer, can no longer make a code. False when already ended. */
export async function endAuthorizationRequest(requestId: string): Promise<boolean> {
  return deleteItem({ Key: keys.authorizationRequest(requestId), ConditionExpression: 'attribute_exists(PK)' });
}

export async function saveAuthorizationCode(code: AuthorizationCode): Promise<void> {
  await putItem({ ...keys.authorizationCode(code.codeHash), type: 'AUTHCODE', ttl: code.expiresAt + 3600, ...code }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/**
 * Marks a code used and answers it as it was; a code already used answers with `used` set (its
 * session is then ended by the caller), an unknown one undefined.
 */
export async function useAuthorizationCode(codeHash: string): Promise<AuthorizationCode | undefined> {
  const first = await updateItemReturning<AuthorizationCode>({
    Key: keys.authorizationCode(codeHash),
    UpdateExpression: 'SET used = :true',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(used)',
    ExpressionAttributeValues: { ':true': true },
  });
  if (first) {
    const { used: _first, ...code } = first;
    return code;
  }
  return getItem<AuthorizationCode>(keys.authorizationCode(codeHash), { consistent: true });
}
