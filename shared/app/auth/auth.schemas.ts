import * as z from 'zod/mini';
import { REALM_NAME } from '../../domain/org/org.entities';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';

/**
 * Request schemas of the OpenID Connect provider. Its routes accept any realm text (they answer OAuth
 * errors, never a 422 body) and read their forms themselves (RFC 6749's rules, not a 422): the form
 * schemas describe those forms to the document.
 */

/** The OpenID Connect provider's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const authSchemas = lazy(() => {
  const realmPathSchema = z.object({ realm: z.string() });

  /** RFC 6749 §4.3 and §6, as the token endpoint reads them. */
  const tokenRequestSchema = z
    .object({
      grant_type: z.enum(['password', 'refresh_token']),
      client_id: z.string(),
      username: z.optional(z.string()).check(z.meta({ description: 'password grant: the e-mail' })),
      password: z.optional(z.string()).check(z.meta({ description: 'password grant' })),
      refresh_token: z.optional(z.string()).check(z.meta({ description: 'refresh_token grant' })),
      scope: z.optional(z.string()),
    })
    .register(schemaRegistry, { id: 'TokenRequest' });

  /** RFC 7009 §2.1. */
  const revocationRequestSchema = z
    .object({
      client_id: z.string(),
      token: z.string(),
      token_type_hint: z.optional(z.enum(['refresh_token', 'access_token'])),
    })
    .register(schemaRegistry, { id: 'RevocationRequest' });

  /** Keycloak's logout with a refresh token. */
  const logoutRequestSchema = z
    .object({ client_id: z.string(), refresh_token: z.string() })
    .register(schemaRegistry, { id: 'LogoutRequest' });

  /**
   * `?realm=` of the interactive reference and its document: an organization's name, in any case. Any
   * such name is taken as it is: the docs function reads none of the API's data, so an unknown one is
   * found out at sign-in (the token endpoint's 404).
   */
  const realmQuerySchema = z.object({
    realm: z
      .optional(
        z
          .string()
          .check(
            z.trim(),
            z.toLowerCase(),
            z.regex(REALM_NAME, { message: "Must be an organization's name: 2 to 63 lower-case letters, digits and hyphens, starting with a letter or digit" }),
          ),
      )
      .check(z.meta({ description: 'The organization (realm) whose token endpoint the OAuth2 password flow names' })),
  });

  return { realmPathSchema, tokenRequestSchema, revocationRequestSchema, logoutRequestSchema, realmQuerySchema };
});
