/**
 * The document's introduction and security schemes: how to get a token, with curl and with the
 * interactive reference's Authorize button, for the API at `serverUrl` and, when one is chosen, the
 * organization (realm) whose sign-in page and token endpoint the OAuth2 authorization code flow names.
 */

type Json = Record<string, unknown>;

/** A realm's OpenID Connect endpoints on the API at `serverUrl` (Keycloak's `{api}/auth/realms/{realm}/protocol/openid-connect/…`). */
const realmEndpoint = (serverUrl: string, realm: string, endpoint: 'auth' | 'token') =>
  `${serverUrl.replace(/\/$/, '')}/auth/realms/${realm}/protocol/openid-connect/${endpoint}`;

/** Where a realm's tokens come from. */
export const tokenUrlOf = (serverUrl: string, realm: string) => realmEndpoint(serverUrl, realm, 'token');

/** Where a realm's users sign in: its authorization endpoint, which shows the sign-in page. */
export const authorizationUrlOf = (serverUrl: string, realm: string) => realmEndpoint(serverUrl, realm, 'auth');

export function introduction(serverUrl: string, realm: string | undefined): string {
  const api = serverUrl.replace(/\/$/, '') || '<API address>';
  const tokenUrl = tokenUrlOf(api, realm ?? '<realm>');
  const whereAuthorize = realm
    ? 'press **Authorize**'
    : 'open this page for your organization (the **Organization** field above, or `/docs?realm=<realm>`), press **Authorize**';
  return [
    'Agent configuration and user administration of a conversational-agent platform.',
    '',
    '## Getting a token',
    '',
    "Every operation under the user and agent areas needs an access token of a user of the organization. Each organization is a *realm* of the OpenID Connect token service (the `auth` operations), named by the organization's name.",
    '',
    `1. **Know your realm and the client id.** The realm is your organization's name (${realm ? `this page's is \`${realm}\`` : 'e.g. `acme`'}). ` +
      "The client id is the console's, the same for every user of this deployment: the operator gives it (the stack's `UserPoolClientId` output; the local stack prints it when it starts).",
    `2. **Sign in.** With curl, with your e-mail and password: \`curl -s ${tokenUrl} -d grant_type=password -d client_id=<client id> --data-urlencode username=<e-mail> --data-urlencode password=<password>\`, ` +
      `and keep \`access_token\` from the JSON answer. Here: ${whereAuthorize}, and under **oauth2** press **Authorize** (the client id is already filled in): ` +
      "a window opens on your organization's sign-in page (or your company's identity provider), and once you have signed in it closes and brings the token back; then **Close**.",
    '3. **Send it with each request.** With curl: `-H "Authorization: Bearer <access_token>"`. Here: **Try it out** sends it with every operation whose lock is closed. ' +
      'It lasts `expires_in` seconds: renew it with `-d grant_type=refresh_token -d client_id=<client id> -d refresh_token=<refresh_token>` on the same endpoint, or sign in again. ' +
      'An access token you already have goes into **Authorize** › **bearerAuth**.',
  ].join('\n');
}

/** The security schemes: a bearer token always; the authorization code flow (with PKCE) when the realm is known. */
export function securitySchemes(serverUrl: string, realm: string | undefined): Json {
  const bearerAuth = {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "An access token of the caller's organization (realm), from its token endpoint: see *Getting a token*.",
  };
  if (!realm) return { bearerAuth };
  const tokenUrl = tokenUrlOf(serverUrl, realm);
  return {
    bearerAuth,
    oauth2: {
      type: 'oauth2',
      description:
        `Sign in to the organization \`${realm}\` on its sign-in page (or your company's identity provider), with the console's client id: ` +
        'the authorization code flow with PKCE (S256), the console being a public client with no secret. ' +
        'For another organization, open the reference for it (`/docs?realm=<its name>`).',
      flows: {
        authorizationCode: {
          authorizationUrl: authorizationUrlOf(serverUrl, realm),
          tokenUrl,
          refreshUrl: tokenUrl,
          scopes: { openid: 'Also return an ID token' },
        },
      },
    },
  };
}
