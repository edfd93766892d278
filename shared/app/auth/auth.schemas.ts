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
  /** The broker's endpoint of one of the organization's identity providers. */
  const brokerPathSchema = z.object({ realm: z.string(), alias: z.string() });

  /** RFC 6749 §4.3 and §6, as the token endpoint reads them. */
  const tokenRequestSchema = z
    .object({
      grant_type: z.enum(['authorization_code', 'password', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']),
      client_id: z.string(),
      code: z.optional(z.string()).check(z.meta({ description: 'authorization_code grant: the code the redirect carried' })),
      redirect_uri: z.optional(z.string()).check(z.meta({ description: 'authorization_code grant: the redirect_uri of the authorization request' })),
      code_verifier: z.optional(z.string()).check(z.meta({ description: 'authorization_code grant: the PKCE verifier (RFC 7636)' })),
      username: z.optional(z.string()).check(z.meta({ description: 'password grant: the e-mail' })),
      password: z.optional(z.string()).check(z.meta({ description: 'password grant' })),
      refresh_token: z.optional(z.string()).check(z.meta({ description: 'refresh_token grant' })),
      device_code: z.optional(z.string()).check(z.meta({ description: 'device_code grant (RFC 8628): the device_code the device authorization answered' })),
      scope: z.optional(z.string()).check(z.meta({ description: 'password grant: `openid` adds an ID token, `offline_access` an offline token' })),
    })
    .register(schemaRegistry, { id: 'TokenRequest' });

  /**
   * The authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3), as the endpoint reads it: described
   * here, checked by the endpoint itself, whose refusals go back to the application or to an error page.
   */
  const text = (description: string) => z.optional(z.string()).check(z.meta({ description }));
  const authorizationQuerySchema = z.looseObject({
    response_type: text('`code`'),
    client_id: text('The console client id'),
    redirect_uri: text('Where the browser goes back with the code: loopback (any port and path), the reference\'s redirect page, or one the deployment lists'),
    state: text('Echoed back; the application checks it (CSRF)'),
    code_challenge: text('The unpadded base64url SHA-256 of the code_verifier'),
    code_challenge_method: text('`S256` (plain is refused)'),
    scope: text('`openid` (an ID token), `offline_access` (an offline token)'),
    nonce: text('Echoed in the ID token'),
    login_hint: text("The person's e-mail: fills the form, or goes on to the organization's identity provider for its domain"),
    kc_idp_hint: text("The alias of the organization's identity provider to sign in with, straight away (Keycloak's)"),
    kc_locale: text('The page\'s language: en, es, ja or pt'),
  });

  /** What an identity provider sends back (RFC 6749 §4.1.2): read by the broker itself. */
  const brokerQuerySchema = z.looseObject({
    code: text("The provider's authorization code"),
    state: text('The state this service sent the provider'),
    error: text("The provider's refusal, if it refused"),
  });

  /** RP-initiated logout's query (every parameter optional). */
  const endSessionQuerySchema = z.looseObject({
    id_token_hint: text('The ID token of the session to end (it may have expired)'),
    post_logout_redirect_uri: text('Where the browser goes afterwards: an address the authorization endpoint accepts as `redirect_uri`; needs `client_id` or `id_token_hint`'),
    state: text('Echoed back to `post_logout_redirect_uri`'),
    client_id: text('The console client id'),
    ui_locales: text('The signed-out page\'s language: en, es, ja or pt'),
  });

  /** The sign-in page's form. */
  const authenticateFormSchema = z.object({
    request: z.string().check(z.meta({ description: 'The sign-in request the page names' })),
    username: z.optional(z.string()),
    password: z.optional(z.string()),
    'password-new': z.optional(z.string()).check(z.meta({ description: 'The set-password step' })),
    'password-confirm': z.optional(z.string()),
    kc_locale: z.optional(z.string()),
  });

  /** RFC 7009 §2.1. */
  const revocationRequestSchema = z
    .object({
      client_id: z.string(),
      token: z.string(),
      token_type_hint: z.optional(z.enum(['refresh_token', 'access_token'])),
    })
    .register(schemaRegistry, { id: 'RevocationRequest' });

  /** Keycloak's logout with a refresh token; without one, RP-initiated logout's form. */
  const logoutRequestSchema = z
    .object({
      client_id: z.string(),
      refresh_token: z.optional(z.string()).check(z.meta({ description: 'The session to end; without it, the form is RP-initiated logout\'s' })),
      id_token_hint: z.optional(z.string()).check(z.meta({ description: 'RP-initiated logout: the ID token of the session to end' })),
      post_logout_redirect_uri: z.optional(z.string()).check(z.meta({ description: 'RP-initiated logout: where the browser goes afterwards' })),
      state: z.optional(z.string()).check(z.meta({ description: 'RP-initiated logout: echoed to post_logout_redirect_uri' })),
    })
    .register(schemaRegistry, { id: 'LogoutRequest' });

  /** RFC 8628 §3.1: a command-line tool asks for a device code and a user code. */
  const deviceAuthorizationRequestSchema = z
    .object({
      client_id: z.string().check(z.meta({ description: 'The console client id' })),
      scope: z.optional(z.string()).check(z.meta({ description: '`openid` adds an ID token, `offline_access` an offline token (at most 256 characters)' })),
    })
    .register(schemaRegistry, { id: 'DeviceAuthorizationRequest' });

  /** The device verification page's query: the code of `verification_uri_complete`. */
  const deviceQuerySchema = z.looseObject({
    user_code: text('The user code the device shows (`verification_uri_complete` carries it): fills the form'),
    kc_locale: text('The page\'s language: en, es, ja or pt'),
  });

  /** The verification page's code form. */
  const deviceCodeFormSchema = z.object({
    user_code: z.string().check(z.meta({ description: 'The code the device shows: 8 letters, with or without its dash, in any case' })),
    kc_locale: z.optional(z.string()),
  });

  /** The authorization flow's answer to the verification page (RFC 6749 §4.1.2). */
  const deviceCallbackQuerySchema = z.looseObject({
    code: text('The authorization code'),
    state: text('The state the page sent'),
    iss: text('The issuer (RFC 9207)'),
    error: text('The flow\'s refusal, if it refused'),
  });

  /** The consent step's form. */
  const deviceDecisionFormSchema = z.object({
    user_code: z.string().check(z.meta({ description: 'The code the step is about' })),
    step: z.string().check(z.meta({ description: 'The single-use token of the consent step the page showed' })),
    decision: z.enum(['approve', 'deny']),
    kc_locale: z.optional(z.string()),
  });

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

  return { realmPathSchema, brokerPathSchema, brokerQuerySchema, authorizationQuerySchema, endSessionQuerySchema, authenticateFormSchema, tokenRequestSchema, revocationRequestSchema, logoutRequestSchema, realmQuerySchema, deviceAuthorizationRequestSchema, deviceQuerySchema, deviceCodeFormSchema, deviceCallbackQuerySchema, deviceDecisionFormSchema };
});
