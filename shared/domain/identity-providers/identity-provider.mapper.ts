import { config } from '../../kernel/config';
import type { IdentityProviderRecord } from './identity-provider.entities';

/** A provider with where it sends people back (`brokerRedirectUri`), as the service answers it. */
export type ShownIdentityProvider = IdentityProviderRecord & { redirectUri: string };
import type { IdentityProviderResponse } from './identity-provider.responses';

/**
 * Where the provider sends people back: the broker endpoint of the organization's realm,
 * `{realm issuer}/broker/{alias}/endpoint`, the realm issuer being `realmIssuer(realm)` of
 * shared/app/auth/jwt.ts (`{TOKEN_ISSUER}/realms/{realm}`), which this tier cannot import.
 */
export const brokerRedirectUri = (realm: string, alias: string) => `${config().tokenIssuer}/realms/${realm}/broker/${alias}/endpoint`;

/** A provider as the API answers it: the whitelist that keeps its secret in. */
export function toIdentityProviderResponse(provider: ShownIdentityProvider): IdentityProviderResponse {
  return {
    id: provider.id,
    alias: provider.alias,
    displayName: provider.displayName,
    issuer: provider.issuer,
    clientId: provider.clientId,
    domains: provider.domains,
    enforce: provider.enforce,
    redirectUri: provider.redirectUri,
    authorizationEndpoint: provider.authorizationEndpoint,
    tokenEndpoint: provider.tokenEndpoint,
    jwksUri: provider.jwksUri,
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  };
}
