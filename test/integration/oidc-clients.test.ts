import type * as KeycloakAdmin from '@keycloak/keycloak-admin-client';
import type * as Jose from 'jose';
import type * as OpenIdClient from 'openid-client';
import { bearer, createTestUser, decodeJwt, getCurrentUser, type TestUser } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import { send } from '../support/http-client';
import { stack, unique } from '../support/stack';
import { refresh } from '../support/user-helpers';

// The three clients ship only ES modules. Node's own require loads them (require(esm)), unmodified and
// outside jest's CommonJS registry (whose `createRequire` would hand them to the CommonJS transform).
const load = process.getBuiltinModule('node:module').createRequire(__filename);
const oidc = load('openid-client') as typeof OpenIdClient;
const jose = load('jose') as typeof Jose;
const KcAdminClient = (load('@keycloak/keycloak-admin-client') as typeof KeycloakAdmin).default;

const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;
const endpoint = (realm: string, name: string) => `${issuerOf(realm)}/protocol/openid-connect/${name}`;

/** openid-client's discovery of a realm; plain http is allowed only because the local stack listens on loopback. */
function discover(realm: string): Promise<OpenIdClient.Configuration> {
  return oidc.discovery(new URL(issuerOf(realm)), stack().clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

async function signIn(config: OpenIdClient.Configuration, user: TestUser) {
  return oidc.genericGrantRequest(config, 'password', { username: user.email, password: user.password, scope: 'openid' });
}

function postForm(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
}

describe('openid-client', () => {
  test('discovers the realm: issuer and every endpoint under it', async () => {
    const user = await createTestUser();

    const metadata = (await discover(user.realm)).serverMetadata();

    const issuer = issuerOf(user.realm);
    expect(metadata).toMatchObject({
      issuer,
      token_endpoint: endpoint(user.realm, 'token'),
      jwks_uri: endpoint(user.realm, 'certs'),
      userinfo_endpoint: endpoint(user.realm, 'userinfo'),
      revocation_endpoint: endpoint(user.realm, 'revoke'),
      end_session_endpoint: endpoint(user.realm, 'logout'),
      authorization_endpoint: endpoint(user.realm, 'auth'),
      grant_types_supported: ['authorization_code', 'password', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      device_authorization_endpoint: endpoint(user.realm, 'auth/device'),
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'preferred_username']));
  });

  test('an unknown realm has no discovery document: 404 with the standard error body', async () => {
    const response = await send(`${issuerOf(`no-such-realm-${unique()}`)}/.well-known/openid-configuration`);

    expectError(response, 404, 'NOT_FOUND');
  });

  test('password grant with openid: access, refresh and ID tokens, the ID token for the client', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);

    const tokens = await signIn(config, user);

    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(tokens.id_token).toEqual(expect.any(String));
    expect(tokens.claims()).toMatchObject({ iss: issuerOf(user.realm), aud: stack().clientId, sub: user.user.uuid, email: user.email });
    expect(tokens.access_token.length).toBeLessThanOrEqual(800);
  });

  test('refresh rotates the refresh token and keeps the session; the rotated-out one is refused', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);
    const first = await signIn(config, user);

    const second = await oidc.refreshTokenGrant(config, first.refresh_token!);

    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.session_state).toBe(first.session_state);
    expect(second.claims()).toMatchObject({ sub: user.user.uuid, sid: first.claims()!.sid });
    await expect(oidc.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('userinfo answers the signed-in user', async () => {
    const user = await createTestUser({ name: 'Info User' });
    const config = await discover(user.realm);
    const tokens = await signIn(config, user);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, user.user.uuid);

    expect(info).toEqual({ sub: user.user.uuid, name: 'Info User', preferred_username: user.email, email: user.email });
  });

  test("scope organization adds the user's organization to userinfo, as Keycloak's organization scope does", async () => {
    const user = await createTestUser({ name: 'Org User' });
    const config = await discover(user.realm);
    const tokens = await oidc.genericGrantRequest(config, 'password', { username: user.email, password: user.password, scope: 'openid organization' });

    expect(tokens.scope?.split(' ')).toContain('organization');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, user.user.uuid);

    expect(info).toEqual({
      sub: user.user.uuid,
      name: 'Org User',
      preferred_username: user.email,
      email: user.email,
      organization: { [user.realm.toLowerCase()]: { id: user.orgUuid } },
    });
    expect(config.serverMetadata().scopes_supported).toContain('organization');
  });

  test('an unknown scope at the authorization endpoint names every scope the realm knows', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://localhost:8080/callback',
      scope: 'openid groups',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const response = await fetch(url, { redirect: 'manual' });
    const answer = new URL(response.headers.get('location') ?? 'http://invalid/');

    expect(answer.searchParams.get('error')).toBe('invalid_scope');
    expect(answer.searchParams.get('error_description')).toBe('Unknown scope groups: ask for openid, offline_access, profile, email, organization');
  });

  test('revoking the refresh token ends the session: refresh, userinfo and the management API refuse at once', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);
    const tokens = await signIn(config, user);
    expect((await getCurrentUser(user.orgUuid, bearer(tokens.access_token))).status).toBe(200);

    await oidc.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });

    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.fetchUserInfo(config, tokens.access_token, user.user.uuid)).rejects.toBeDefined();
    expectError(await getCurrentUser(user.orgUuid, bearer(tokens.access_token)), 401, 'UNAUTHENTICATED');
  });

  test('revoking a token the realm never issued answers 200 (RFC 7009)', async () => {
    const realm = stack().orgs[0]!.name;
    const config = await discover(realm);

    await expect(oidc.tokenRevocation(config, 'not-a-token-of-ours')).resolves.toBeUndefined();
  });
});

describe('keycloak-admin-client', () => {
  test('auth() signs in with baseUrl {api}/auth and the realm, and decodes the refresh token', async () => {
    const user = await createTestUser();
    const client = new KcAdminClient({ baseUrl: `${stack().authUrl}/auth`, realmName: user.realm });

    await client.auth({ grantType: 'password', clientId: stack().clientId, username: user.email, password: user.password });

    expect(decodeJwt(client.accessToken!).payload).toMatchObject({ sub: user.user.uuid, iss: issuerOf(user.realm) });
    expect(decodeJwt(client.refreshToken!).payload).toMatchObject({ typ: 'Refresh', sub: user.user.uuid, aud: issuerOf(user.realm) });
    expect((await getCurrentUser(user.orgUuid, bearer(client.accessToken!))).status).toBe(200);
  });
});

describe('jose', () => {
  test('verifies access and ID tokens against the remote JWKS with issuer and audience', async () => {
    const user = await createTestUser();
    const config = await discover(user.realm);
    const tokens = await signIn(config, user);
    const jwks = jose.createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const expected = { issuer: issuerOf(user.realm), audience: stack().clientId };

    const access = await jose.jwtVerify(tokens.access_token, jwks, { ...expected, algorithms: ['ES256'] });
    const id = await jose.jwtVerify(tokens.id_token!, jwks, expected);

    expect(access.protectedHeader.alg).toBe('ES256');
    expect(access.payload).toEqual({
      iss: issuerOf(user.realm),
      aud: stack().clientId,
      azp: stack().clientId,
      sub: user.user.uuid,
      sid: tokens.session_state,
      jti: expect.any(String),
      typ: 'Bearer',
      scope: 'openid profile email',
      iat: expect.any(Number),
      exp: expect.any(Number),
      email: user.email,
      preferred_username: user.email,
    });
    expect(id.payload).toMatchObject({ typ: 'ID', aud: stack().clientId, sub: user.user.uuid, sid: tokens.session_state });
  });

  test("a token of one realm fails verification with another realm's issuer", async () => {
    const user = await createTestUser({ orgIndex: 0 });
    const other = stack().orgs[1]!.name;
    const tokens = await signIn(await discover(user.realm), user);
    // One key signs every realm, so the other realm's JWKS holds it: only the issuer tells the realms apart.
    const otherJwks = jose.createRemoteJWKSet(new URL(endpoint(other, 'certs')));

    const verification = jose.jwtVerify(tokens.access_token, otherJwks, { issuer: issuerOf(other), audience: stack().clientId });

    await expect(verification).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'iss' });
  });
});

describe('userinfo and logout, as Keycloak answers them', () => {
  test("an access token of another realm is invalid_token at this realm's userinfo", async () => {
    const user = await createTestUser({ orgIndex: 0 });
    const tokens = await signIn(await discover(user.realm), user);

    const response = await fetch(endpoint(stack().orgs[1]!.name, 'userinfo'), { headers: bearer(tokens.access_token) });

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  test('userinfo by POST with the bearer token answers the same', async () => {
    const user = await createTestUser();
    const tokens = await signIn(await discover(user.realm), user);

    const response = await fetch(endpoint(user.realm, 'userinfo'), { method: 'POST', headers: bearer(tokens.access_token) });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: user.user.uuid, email: user.email });
  });

  test('logout with client_id and refresh_token answers 204 and ends the session at once', async () => {
    const user = await createTestUser();
    const tokens = await signIn(await discover(user.realm), user);

    const response = await postForm(endpoint(user.realm, 'logout'), { client_id: stack().clientId, refresh_token: tokens.refresh_token! });

    expect(response.status).toBe(204);
    expectError(await getCurrentUser(user.orgUuid, bearer(tokens.access_token)), 401, 'UNAUTHENTICATED');
    expect((await refresh(user.realm, tokens.refresh_token!)).status).toBe(400);
  });

  test('logout with an access token in place of the refresh token is invalid_grant and ends nothing', async () => {
    const user = await createTestUser();
    const tokens = await signIn(await discover(user.realm), user);

    const response = await postForm(endpoint(user.realm, 'logout'), { client_id: stack().clientId, refresh_token: tokens.access_token });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await getCurrentUser(user.orgUuid, bearer(tokens.access_token))).status).toBe(200);
  });
});
