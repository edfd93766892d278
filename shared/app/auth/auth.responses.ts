import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';

/**
 * What the OpenID Connect provider answers, in OAuth's and OpenID Connect's own shapes. Made on first
 * call (by the API description), never as a function loads.
 */
export const authResponses = lazy(() => {
  /** RFC 6749 §5.2, as the token endpoint answers. */
  const oauthErrorSchema = z
    .looseObject({
      error: z.string().check(z.meta({ description: 'invalid_request, invalid_client, invalid_grant, unsupported_grant_type, …' })),
      error_description: z.optional(z.string()),
    })
    .check(z.meta({ description: 'An OAuth 2.0 error (RFC 6749 §5.2).' }))
    .register(schemaRegistry, { id: 'OAuthError' });

  /** The token response (docs/api/auth.md). */
  const tokenResponseSchema = z
    .looseObject({
      access_token: z.string().check(z.maxLength(800)),
      expires_in: z.int(),
      refresh_expires_in: z.int(),
      refresh_token: z.string(),
      token_type: z.string(),
      'not-before-policy': z.optional(z.int()),
      session_state: z.optional(z.string()),
      scope: z.optional(z.string()),
      id_token: z.optional(z.string()),
    })
    .check(z.meta({ description: 'The token response (docs/api/auth.md).' }))
    .register(schemaRegistry, { id: 'TokenResponse' });

  /** RFC 8628 §3.2: the device authorization response. */
  const deviceAuthorizationResponseSchema = z
    .object({
      device_code: z.string().check(z.meta({ description: 'What the device polls the token endpoint with; keep it secret' })),
      user_code: z.string().check(z.meta({ description: 'What the person types on the verification page: `XXXX-XXXX`' })),
      verification_uri: z.url().check(z.meta({ description: '`{issuer}/device`' })),
      verification_uri_complete: z.url().check(z.meta({ description: 'The verification page with the user code filled in (for a link or a QR code)' })),
      expires_in: z.int().check(z.meta({ description: 'Seconds the codes live: 600' })),
      interval: z.int().check(z.meta({ description: 'Seconds to wait between polls: 5' })),
    })
    .register(schemaRegistry, { id: 'DeviceAuthorizationResponse' });

  /** OpenID Connect Discovery 1.0 §3, the fields a client needs; the document has more. */
  const discoverySchema = z
    .looseObject({
      issuer: z.url(),
      authorization_endpoint: z.url(),
      token_endpoint: z.url(),
      jwks_uri: z.url(),
      userinfo_endpoint: z.url(),
      revocation_endpoint: z.url(),
      end_session_endpoint: z.url(),
      device_authorization_endpoint: z.optional(z.url()),
      grant_types_supported: z.array(z.string()),
      response_types_supported: z.array(z.string()),
      code_challenge_methods_supported: z.array(z.string()),
      subject_types_supported: z.array(z.string()),
      id_token_signing_alg_values_supported: z.array(z.string()),
      token_endpoint_auth_methods_supported: z.array(z.string()),
      scopes_supported: z.optional(z.array(z.string())),
      claims_supported: z.optional(z.array(z.string())),
    })
    .check(z.meta({ description: "The realm's OpenID Connect configuration." }))
    .register(schemaRegistry, { id: 'OpenIdConfiguration' });

  /** OpenID Connect Core §5.3.2. */
  const userInfoSchema = z
    .looseObject({ sub: z.string(), name: z.optional(z.string()), preferred_username: z.optional(z.string()), email: z.optional(z.string()) })
    .register(schemaRegistry, { id: 'UserInfo' });

  const jwksSchema = z
    .looseObject({
      keys: z.array(
        z.looseObject({
          kty: z.string(),
          crv: z.optional(z.string()),
          x: z.optional(z.string()),
          y: z.optional(z.string()),
          kid: z.string(),
          alg: z.string(),
          use: z.string(),
        }),
      ),
    })
    .register(schemaRegistry, { id: 'JsonWebKeySet' });

  return { oauthErrorSchema, tokenResponseSchema, deviceAuthorizationResponseSchema, discoverySchema, userInfoSchema, jwksSchema };
});
type AuthSchemas = ReturnType<typeof authResponses>;
export type DiscoverySchema = AuthSchemas['discoverySchema'];
export type UserInfoSchema = AuthSchemas['userInfoSchema'];
