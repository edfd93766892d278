/** OAuth 2.0 token endpoint errors (RFC 6749 §5.2); the token route answers them in OAuth's own body. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_token'
  | 'invalid_scope'
  // RFC 8628 §3.5: the device's poll of a device authorization not yet (or never to be) approved.
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token';

const statusOf: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  // RFC 6750 §3.1: a bearer token refused by a protected resource (userinfo).
  invalid_token: 401,
  invalid_scope: 400,
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 400,
  expired_token: 400,
};

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    options?: { cause?: unknown },
  ) {
    super(description, options);
    this.name = 'OAuthError';
    this.status = statusOf[error];
  }
}

/** The one answer to every failed credential check, so that no reply hints whether an e-mail exists. */
export const invalidCredentials = () => new OAuthError('invalid_grant', 'Invalid user credentials');
