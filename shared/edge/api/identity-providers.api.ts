import { identityProviderResponses } from '../../domain/identity-providers/identity-provider.responses';
import { identityProviderSchemas } from '../../domain/identity-providers/identity-provider.schemas';
import { MAX_IDENTITY_PROVIDERS } from '../../domain/identity-providers/identity-provider-limits';
import { userSchemas } from '../../domain/users/user.schemas';
import * as z from 'zod/mini';
import { operationsUnder } from './operation';

/**
 * An organization's own OpenID providers (docs/api/identity-providers.md), where its people sign in
 * by e-mail domain; ADMIN only, served by the `users` function.
 */
const provider = operationsUnder('users', 'user', '/org/{orgUUID}', { access: { org: 'admin' } });

const example = {
  alias: 'okta',
  displayName: 'Acme Okta',
  issuer: 'https://acme.okta.com',
  clientId: '0oa1b2c3d4e5f6g7h8i9',
  clientSecret: 'the client secret Okta shows',
  domains: ['acme.example'],
  enforce: false,
};
const { clientSecret: _secret, ...updateExample } = example;
const discoveryNote =
  "The issuer's discovery document (`{issuer}/.well-known/openid-configuration`) is read first, under the webhooks' outbound rules; " +
  'it must name the same `issuer`, the authorization, token and JWKS endpoints, and the `code` response type (else 422 `IDENTITY_PROVIDER_DISCOVERY_FAILED` saying what to fix).';

export const identityProvidersApi = {
  create: provider({
    id: 'identityProviders.create',
    method: 'POST',
    path: '/identity-providers',
    request: { path: () => userSchemas().orgPathSchema, body: () => identityProviderSchemas().createBodySchema },
    summary: "Register an OpenID provider for the organization's e-mail domains (ADMIN only)",
    description:
      `${discoveryNote} An alias is unique in the organization (409 \`IDENTITY_PROVIDER_EXISTS\`), a domain belongs to one of its providers (409 \`IDENTITY_PROVIDER_DOMAIN_TAKEN\`, naming it); ` +
      `at most ${MAX_IDENTITY_PROVIDERS} per organization (422 \`IDENTITY_PROVIDER_LIMIT\`). \`clientSecret\` is write-only. Register the answer's \`redirectUri\` at the provider. Audited.`,
    responses: [{ status: 201, description: 'The provider', json: () => identityProviderResponses().identityProviderSchema }],
    example,
  }),
  list: provider({
    id: 'identityProviders.list',
    method: 'GET',
    path: '/identity-providers',
    request: { path: () => userSchemas().orgPathSchema },
    summary: "The organization's OpenID providers (ADMIN only)",
    responses: [{ status: 200, description: `Every provider, by alias (at most ${MAX_IDENTITY_PROVIDERS})`, json: () => z.array(identityProviderResponses().identityProviderSchema) }],
  }),
  get: provider({
    id: 'identityProviders.get',
    method: 'GET',
    path: '/identity-providers/{alias}',
    request: { path: () => identityProviderSchemas().providerPathSchema },
    summary: 'An OpenID provider of the organization (ADMIN only)',
    responses: [{ status: 200, description: 'The provider (never its client secret)', json: () => identityProviderResponses().identityProviderSchema }],
  }),
  update: provider({
    id: 'identityProviders.update',
    method: 'PUT',
    path: '/identity-providers/{alias}',
    request: { path: () => identityProviderSchemas().providerPathSchema, body: () => identityProviderSchemas().updateBodySchema },
    summary: 'Replace an OpenID provider of the organization (ADMIN only)',
    description: `Every field is replaced but the alias; \`clientSecret\` left out keeps the current one, but a new \`issuer\` or \`clientId\` needs \`clientSecret\` in the same request (else 422 on \`clientSecret\`, nothing changed). ${discoveryNote} Audited.`,
    responses: [{ status: 200, description: 'The provider', json: () => identityProviderResponses().identityProviderSchema }],
    example: updateExample,
  }),
  delete: provider({
    id: 'identityProviders.delete',
    method: 'DELETE',
    path: '/identity-providers/{alias}',
    request: { path: () => identityProviderSchemas().providerPathSchema },
    summary: 'Delete an OpenID provider of the organization (ADMIN only)',
    description: 'Its domains sign in with passwords again. Audited.',
    responses: [{ status: 204, description: 'Deleted' }],
  }),
};
