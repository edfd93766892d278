import { OAuthError } from './errors';
import type { components } from './generated/api-types';

export type TokenResponse = components['schemas']['TokenResponse'];
export type DeviceAuthorization = components['schemas']['DeviceAuthorizationResponse'];

/** Where a realm's OpenID Connect endpoints are: Keycloak's `{api}/auth/realms/{realm}/protocol/openid-connect/…`. */
export const issuerOf = (apiUrl: string, realm: string) => `${apiUrl.replace(/\/$/, '')}/auth/realms/${encodeURIComponent(realm)}`;
export const endpointOf = (apiUrl: string, realm: string, endpoint: 'token' | 'auth' | 'auth/device' | 'revoke' | 'logout' | 'userinfo') =>
  `${issuerOf(apiUrl, realm)}/protocol/openid-connect/${endpoint}`;

/**
 * The scopes a sign-in asks for: an ID token, the user's organization in userinfo (Keycloak's
 * `organization` scope, which names the organization's uuid), and for automation an offline token.
 */
export const ONLINE_SCOPE = 'openid organization';
export const OFFLINE_SCOPE = `${ONLINE_SCOPE} offline_access`;

/** Refresh this long before the access token expires, so a call never leaves with a token about to lapse. */
const EARLY_MS = 30_000;

export interface RealmOptions {
  apiUrl: string;
  realm: string;
  /** The console's client id (public client, no secret). */
  clientId: string;
  fetch?: typeof fetch;
}

/** What a signed-in session keeps: the refresh (or offline) token, and the current access token. */
interface Held {
  refreshToken: string;
  accessToken?: string;
  expiresAt?: number;
  scope?: string;
}

/**
 * A user's tokens at one realm: signs in (password, device authorization, an authorization code, or a
 * stored offline token), answers an access token that is valid for at least 30 more seconds,
 * refreshing it first when needed (one refresh at a time, however many calls ask), and signs out.
 */
export class RealmSession {
  private held: Held | undefined;
  private refreshing: Promise<string> | undefined;
  private readonly send: typeof fetch;

  constructor(readonly options: RealmOptions) {
    this.send = options.fetch ?? globalThis.fetch;
  }

  /** A session from a stored offline (or refresh) token; the first call exchanges it. */
  static fromOfflineToken(options: RealmOptions, offlineToken: string): RealmSession {
    const session = new RealmSession(options);
    session.held = { refreshToken: offlineToken };
    return session;
  }

  /** The password grant; `offline` asks for an offline token (`scope=offline_access`) for automation. */
  async signInWithPassword(username: string, password: string, { offline = false } = {}): Promise<TokenResponse> {
    return this.keep(await this.token({ grant_type: 'password', username, password, ...(offline ? { scope: OFFLINE_SCOPE } : { scope: ONLINE_SCOPE }) }));
  }

  /** The authorization code grant with PKCE (the code the browser brought back to `redirectUri`). */
  async signInWithCode(code: string, verifier: string, redirectUri: string): Promise<TokenResponse> {
    return this.keep(await this.token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri }));
  }

  /**
   * The device authorization grant (RFC 8628): asks for codes, hands them to `show` (print the address
   * and the code), then polls every `interval` seconds (longer after `slow_down`) until the person
   * approves (the tokens), denies or lets the codes expire (an OAuthError).
   */
  async signInWithDevice(show: (started: DeviceAuthorization) => void, { offline = true, signal }: { offline?: boolean; signal?: AbortSignal } = {}): Promise<TokenResponse> {
    const started = (await this.form('auth/device', { scope: offline ? OFFLINE_SCOPE : ONLINE_SCOPE })) as DeviceAuthorization;
    show(started);
    let interval = (started.interval ?? 5) * 1000;
    const deadline = Date.now() + started.expires_in * 1000;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, interval));
      signal?.throwIfAborted();
      try {
        return this.keep(await this.token({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code }));
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        if (error.error === 'authorization_pending') continue;
        if (error.error === 'slow_down') {
          interval += 5000;
          continue;
        }
        throw error;
      }
    }
    throw new OAuthError(400, 'expired_token', 'The code expired before it was approved: sign in again');
  }

  /** The refresh (or offline) token this session holds. */
  get refreshToken(): string | undefined {
    return this.held?.refreshToken;
  }

  /** An access token valid for at least 30 more seconds; `force` refreshes whatever its expiry (after a 401). */
  async accessToken({ force = false } = {}): Promise<string> {
    const held = this.held;
    if (!held) throw new OAuthError(401, 'not_signed_in', 'Not signed in');
    if (!force && held.accessToken && held.expiresAt && held.expiresAt - EARLY_MS > Date.now()) return held.accessToken;
    this.refreshing ??= this.token({ grant_type: 'refresh_token', refresh_token: held.refreshToken })
      .then((answer) => this.keep(answer, held.refreshToken).access_token)
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The realm's userinfo for the signed-in user (OpenID Connect Core §5.3). */
  async userInfo(): Promise<Record<string, unknown>> {
    const { apiUrl, realm } = this.options;
    const response = await this.send(endpointOf(apiUrl, realm, 'userinfo'), { headers: { authorization: `Bearer ${await this.accessToken()}`, accept: 'application/json' } });
    if (!response.ok) throw new OAuthError(response.status, 'invalid_token', 'The realm refused the access token at userinfo: sign in again');
    return (await response.json()) as Record<string, unknown>;
  }

  /**
   * The uuid of the signed-in user's organization, from userinfo's `organization` claim (granted with
   * the `organization` scope); undefined for a session signed in without it.
   */
  async organizationId(): Promise<string | undefined> {
    const organization = (await this.userInfo()).organization as Record<string, { id?: unknown }> | undefined;
    const id = organization?.[this.options.realm.toLowerCase()]?.id;
    return typeof id === 'string' ? id : undefined;
  }

  /** The claims of the current access token (not verified here: the API verifies every call). */
  async claims(): Promise<Record<string, unknown>> {
    return decodeJwt(await this.accessToken());
  }

  /** Ends the session at the realm (RFC 7009 revocation of its refresh or offline token). */
  async revoke(): Promise<void> {
    if (!this.held) return;
    await this.form('revoke', { token: this.held.refreshToken, token_type_hint: 'refresh_token' });
    this.held = undefined;
  }

  private keep(answer: TokenResponse, previous?: string): TokenResponse {
    this.held = {
      // An offline token does not rotate; an ordinary refresh token does, and the new one must be kept.
      refreshToken: answer.refresh_token || (previous ?? ''),
      accessToken: answer.access_token,
      expiresAt: Date.now() + answer.expires_in * 1000,
      scope: answer.scope,
    };
    return answer;
  }

  private async token(fields: Record<string, string>): Promise<TokenResponse> {
    return (await this.form('token', fields)) as TokenResponse;
  }

  private async form(endpoint: 'token' | 'auth/device' | 'revoke', fields: Record<string, string>): Promise<unknown> {
    const { apiUrl, realm, clientId } = this.options;
    const response = await this.send(endpointOf(apiUrl, realm, endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: clientId, ...fields }),
    });
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
    if (!response.ok) {
      const error = typeof body.error === 'string' ? body.error : response.status === 404 ? 'unknown_realm' : 'server_error';
      const description = typeof body.error_description === 'string' ? body.error_description : typeof body.message === 'string' ? body.message : undefined;
      throw new OAuthError(response.status, error, description);
    }
    return body;
  }
}

/** A JWT's payload, unverified: what a client reads of its own token (its issuer, client, subject). */
export function decodeJwt(token: string): Record<string, unknown> {
  const payload = token.split('.')[1];
  if (!payload) throw new Error('Not a JWT');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
