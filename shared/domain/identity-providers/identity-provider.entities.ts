/**
 * An organization's own OpenID provider (docs/api/identity-providers.md): where its people sign in
 * when their e-mail's domain is one of `domains`. The sign-in broker reads it with `getProvider` and
 * `findProviderForEmail` (identity-provider.service.ts).
 */
export interface IdentityProviderRecord {
  /** Names the audit events and change events of the provider (`resource.uuid`); never changes. */
  id: string;
  orgUuid: string;
  /** Unique in the organization; the last segment of the broker's redirect URI. */
  alias: string;
  displayName: string;
  /** The provider's issuer identifier, exactly as its discovery document and ID tokens carry it. */
  issuer: string;
  clientId: string;
  /** Lower-case DNS names; each belongs to at most one provider of the organization. */
  domains: string[];
  /** Whether people of these domains must sign in at the provider (no password sign-in). */
  enforce: boolean;
  /** Read from the discovery document when the provider was registered or last updated. */
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  createdAt: string;
  updatedAt: string;
}

/** The stored item: the record and its client secret, sealed (client-secret.repository.ts); `providerClientSecret` opens it. */
export interface StoredIdentityProvider extends IdentityProviderRecord {
  sealedClientSecret: string;
}
