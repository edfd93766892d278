import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas } from '../../kernel/schemas/fields';
import { MAX_URL_LENGTH } from '../../kernel/url-limits';
import { ALIAS_PATTERN, MAX_DOMAINS } from './identity-provider-limits';

/** Request schemas of `…/identity-providers` (docs/api/identity-providers.md). */

const aliasMessage = 'Must be 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit (e.g. okta)';
/** A DNS name of at least two labels, each 1 to 63 letters, digits and inner hyphens. */
const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The identity providers' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const identityProviderSchemas = lazy(() => {
  const { uuidSchema } = fieldSchemas();

  const aliasSchema = z.string().check(z.regex(ALIAS_PATTERN, { message: aliasMessage }));
  const domainSchema = z.pipe(
    z.string().check(z.maxLength(253, { message: 'Must be a domain name of at most 253 characters' })),
    z.pipe(
      z.transform((domain: string) => domain.trim().toLowerCase()),
      z.string().check(z.regex(DOMAIN_PATTERN, { message: 'Must be an e-mail domain such as corp.example (no @, no scheme)' })),
    ),
  );

  const fields = {
    displayName: z.string().check(z.trim(), z.minLength(1, { message: 'Must not be empty' }), z.maxLength(100, { message: 'Must be at most 100 characters' })),
    issuer: z
      .string()
      .check(
        z.maxLength(MAX_URL_LENGTH, { message: `Must be at most ${MAX_URL_LENGTH} characters` }),
        z.describe("The provider's issuer identifier, exactly as its discovery document names it (e.g. https://acme.okta.com)"),
      ),
    clientId: z.string().check(z.minLength(1, { message: 'Must not be empty' }), z.maxLength(255, { message: 'Must be at most 255 characters' })),
    domains: z
      .array(domainSchema)
      .check(
        z.minLength(1, { message: 'Must name at least one e-mail domain' }),
        z.maxLength(MAX_DOMAINS, { message: `Must name at most ${MAX_DOMAINS} domains` }),
        z.describe("The e-mail domains whose people sign in at this provider, lower-cased; each belongs to one provider of the organization"),
      ),
    enforce: z._default(z.boolean(), false).check(z.describe('Whether people of these domains must sign in at the provider (their password no longer signs them in)')),
  };
  const secret = z.string().check(z.minLength(1, { message: 'Must not be empty' }), z.maxLength(1024, { message: 'Must be at most 1,024 characters' }));

  /** A registration. */
  const createBodySchema = z.strictObject({
    alias: aliasSchema.check(z.describe('Unique in the organization; the last segment of the redirect URI. Lower-case letters, digits, hyphens')),
    ...fields,
    clientSecret: secret.check(z.describe('Write-only: never answered')),
  });
  /** A replacement: every field but `clientSecret`, which is kept when absent (required with a new `issuer` or `clientId`: the service checks). The alias is the path's. */
  const updateBodySchema = z.strictObject({
    alias: z.optional(aliasSchema.check(z.describe("When given, must be the path's: an alias never changes"))),
    ...fields,
    clientSecret: z.optional(secret.check(z.describe('Write-only; absent keeps the current secret, unless `issuer` or `clientId` changes: then it is required (422 naming `clientSecret`)'))),
  });

  const providerPathSchema = z.strictObject({ orgUUID: uuidSchema, alias: aliasSchema });

  return { createBodySchema, updateBodySchema, providerPathSchema };
});

type Schemas = ReturnType<typeof identityProviderSchemas>;
export type IdentityProviderCreateBody = z.output<Schemas['createBodySchema']>;
export type IdentityProviderUpdateBody = z.output<Schemas['updateBodySchema']>;
