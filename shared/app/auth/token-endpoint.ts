import { identityProvider as defaultIdentityProvider, type IdentityProvider } from './identity.port';
import { count } from '../../kernel/metrics';
import { exchangeCode } from './code-exchange';
import { DEVICE_CODE_GRANT, deviceCodeGrant } from './device-grant';
import { OAuthError } from './oauth-errors';
import { passwordGrant, refreshGrant, requireClient, requireParam, type TokenResponse } from './token.service';

/** The realm's token endpoint: which grant answers a request. */

type Grant = (realm: string, form: Map<string, string>, clientId: string, identityProvider: IdentityProvider) => Promise<TokenResponse>;

/** The grants the endpoint answers; the code's exchange is the authorization flow's end (`code-exchange.ts`). */
const grants: Partial<Record<string, Grant>> = {
  password: passwordGrant,
  refresh_token: (realm, form, clientId) => refreshGrant(realm, form, clientId),
  authorization_code: (realm, form, clientId) => exchangeCode(realm, form, clientId),
  [DEVICE_CODE_GRANT]: (realm, form, clientId) => deviceCodeGrant(realm, form, clientId),
};

/** Grants tokens on the realm's token endpoint (authorization_code, password, refresh_token and device_code grants). */
export async function grantToken(
  realm: string,
  form: Map<string, string>,
  identityProvider: IdentityProvider = defaultIdentityProvider,
): Promise<TokenResponse> {
  const grantType = requireParam(form, 'grant_type');
  const clientId = requireClient(form);
  const grant = grants[grantType];
  if (grant) {
    try {
      const granted = await grant(realm, form, clientId, identityProvider);
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
      : `Only the authorization_code, password, refresh_token and ${DEVICE_CODE_GRANT} grants are supported`,
  );
}
