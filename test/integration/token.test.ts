import { JwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import {
  createTestUser,
  currentUser,
  decodeJwt,
  markDeleted,
  passwordToken,
  signWithStackKey,
  withPayload,
  type TokenBody,
} from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import { send } from '../support/http-client';
import { requestToken, stack, tokenUrl, unique } from '../support/stack';

const certsUrl = (realm: string) => `${stack().authUrl}/auth/realms/${realm}/protocol/openid-connect/certs`;

/** Posts a raw body to a realm's token endpoint, for requests `requestToken` cannot express. */
function postRaw(realm: string, body: string, contentType = 'application/x-www-form-urlencoded'): Promise<Response> {
  return fetch(tokenUrl(realm), { method: 'POST', headers: { 'content-type': contentType }, body });
}

async function oauthError(response: Response): Promise<{ status: number; body: { error: string; error_description: string } }> {
  return { status: response.status, body: (await response.json()) as { error: string; error_description: string } };
}

const passwordForm = (user: { email: string; password: string }) => ({
  grant_type: 'password',
  client_id: stack().clientId,
  username: user.email,
  password: user.password,
});

const refreshForm = (refreshToken: string) => ({
  grant_type: 'refresh_token',
  client_id: stack().clientId,
  refresh_token: refreshToken,
});

describe('password grant', () => {
  test('answers every token field, with no caching', async () => {
    const user = await createTestUser();

    const response = await requestToken(user.realm, passwordForm(user));

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as TokenBody;
    expect(body).toEqual({
      access_token: expect.any(String),
      expires_in: expect.any(Number),
      refresh_expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      'not-before-policy': expect.any(Number),
      session_state: expect.any(String),
      scope: expect.any(String),
    });
    expect(Number.isInteger(body.expires_in) && body.expires_in > 0).toBe(true);
    expect(Number.isInteger(body.refresh_expires_in) && body.refresh_expires_in >= body.expires_in).toBe(true);
    expect(decodeJwt(body.refresh_token).payload).toMatchObject({ typ: 'Refresh', sid: body.session_state });
    expect(body.session_state.length).toBeGreaterThan(0);
    expect(body).not.toHaveProperty('id_token');
  });

  test('a refresh token is a signed JWT in Keycloak\'s shape, bound to the realm and the session', async () => {
    const user = await createTestUser();
    const issuer = `${stack().authUrl}/auth/realms/${user.realm}`;

    const body = await passwordToken(user);

    const { header, payload } = decodeJwt(body.refresh_token);
    expect(header).toMatchObject({ alg: 'ES256', kid: decodeJwt(body.access_token).header.kid });
    expect(payload).toEqual({
      iss: issuer,
      aud: issuer,
      azp: stack().clientId,
      sub: user.user.uuid,
      sid: body.session_state,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      typ: 'Refresh',
      scope: body.scope,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(body.refresh_expires_in);
  });

  test('scope openid adds an ID token for the client; the granted scope says so', async () => {
    const user = await createTestUser();

    const response = await requestToken(user.realm, { ...passwordForm(user), scope: 'openid' });

    const body = (await response.json()) as TokenBody & { id_token?: string };
    expect(body.scope.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(decodeJwt(body.id_token!).payload).toMatchObject({
      iss: `${stack().authUrl}/auth/realms/${user.realm}`,
      aud: stack().clientId,
      typ: 'ID',
      sub: user.user.uuid,
      sid: body.session_state,
      email: user.email,
    });
  });

  test('issues an ES256 JWT of at most 800 characters whose kid is in the realm JWKS and whose signature verifies', async () => {
    const user = await createTestUser();

    const body = await passwordToken(user);
    const jwksResponse = await fetch(certsUrl(user.realm));

    const token = body.access_token;
    expect(token.split('.')).toHaveLength(3);
    expect(token.length).toBeLessThanOrEqual(800);
    const { header, payload } = decodeJwt(token);
    expect(header.alg).toBe('ES256');
    expect(jwksResponse.status).toBe(200);
    const jwks = (await jwksResponse.json()) as Jwks;
    expect(jwks.keys.map((key) => key.kid)).toContain(header.kid);
    const issuer = `${stack().authUrl}/auth/realms/${user.realm}`;
    expect(payload.iss).toBe(issuer);
    const verifier = JwtVerifier.create({ issuer, audience: stack().clientId, jwksUri: certsUrl(user.realm) });
    verifier.cacheJwks(jwks);
    const verified = await verifier.verify(token);
    expect(verified).toMatchObject({ sub: user.user.uuid, sid: body.session_state, azp: stack().clientId, typ: 'Bearer' });
    expect((verified.exp as number) - (verified.iat as number)).toBe(body.expires_in);
  });

  test('keeps the access token within 800 characters with a cloud-length issuer', async () => {
    const user = await createTestUser();
    // The deployed issuer is the API's own URL, longer than the loopback one; base64url grows by 4/3.
    const cloudIssuer = `https://abcdefghij.execute-api.ap-southeast-2.amazonaws.com/auth/realms/${user.realm}`;

    const token = (await passwordToken(user)).access_token;

    const localIssuer = decodeJwt(token).payload.iss as string;
    const growth = Math.ceil(((cloudIssuer.length - localIssuer.length) * 4) / 3);
    expect(token.length + Math.max(0, growth)).toBeLessThanOrEqual(800);
  });

  test('publishes only public key material in the JWKS', async () => {
    const user = await createTestUser();

    const response = await fetch(certsUrl(user.realm));

    expect(response.status).toBe(200);
    const { keys } = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }
  });

  test('logs in with the e-mail in another case and with surrounding spaces', async () => {
    const user = await createTestUser({ email: `Mixed.Case-${unique()}@Example.test` });

    const upper = await requestToken(user.realm, { ...passwordForm(user), username: user.email.toUpperCase() });
    const padded = await requestToken(user.realm, { ...passwordForm(user), username: `  ${user.email}  ` });

    expect(upper.status).toBe(200);
    expect(padded.status).toBe(200);
  });

  test('answers the same invalid_grant for wrong realm, other realm, unknown e-mail, wrong password and inactive user', async () => {
    const user = await createTestUser();
    const deleted = await createTestUser();
    await markDeleted(deleted.orgUuid, deleted.user.uuid);
    const otherRealm = stack().orgs[1]!.name;

    const answers = await Promise.all([
      requestToken(`no-such-realm-${unique()}`, passwordForm(user)).then(oauthError),
      requestToken(otherRealm, passwordForm(user)).then(oauthError),
      requestToken(user.realm, { ...passwordForm(user), username: `nobody-${unique()}@example.test` }).then(oauthError),
      requestToken(user.realm, { ...passwordForm(user), password: 'Wrong-Passw0rd' }).then(oauthError),
      requestToken(deleted.realm, passwordForm(deleted)).then(oauthError),
    ]);

    const first = answers[0]!;
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('invalid_grant');
    expect(first.body.error_description).toEqual(expect.any(String));
    for (const answer of answers) expect(answer).toEqual(first);
  });

  test('an over-long realm name is the same invalid_grant as any other wrong realm', async () => {
    const user = await createTestUser();
    const wrongRealm = await oauthError(await requestToken(`no-such-realm-${unique()}`, passwordForm(user)));

    const longRealm = await oauthError(await requestToken('r'.repeat(65), passwordForm(user)));

    expect(wrongRealm.body.error).toBe('invalid_grant');
    expect(longRealm).toEqual(wrongRealm);
  });

  test('matches the realm name without regard to case', async () => {
    const user = await createTestUser();

    const response = await requestToken(user.realm.toUpperCase(), passwordForm(user));

    expect(response.status).toBe(200);
  });

  test('refuses an over-long username with invalid_grant, not a server error', async () => {
    const user = await createTestUser();

    const answer = await requestToken(user.realm, { ...passwordForm(user), username: `${'a'.repeat(3000)}@example.test` }).then(
      oauthError,
    );

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('token request errors', () => {
  test('an unknown client_id is invalid_client (401)', async () => {
    const user = await createTestUser();

    const response = await requestToken(user.realm, { ...passwordForm(user), client_id: 'not-the-console' });

    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await oauthError(response)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  test.each(['grant_type', 'client_id', 'username', 'password'])('a missing %s is invalid_request', async (name) => {
    const user = await createTestUser();
    const form: Record<string, string> = passwordForm(user);
    delete form[name];

    const answer = await oauthError(await requestToken(user.realm, form));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  test('client_credentials is unsupported_grant_type', async () => {
    const realm = stack().orgs[0]!.name;

    const answer = await oauthError(
      await requestToken(realm, { grant_type: 'client_credentials', client_id: stack().clientId, client_secret: 'anything' }),
    );

    expect(answer).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });

  test('another grant type is unsupported_grant_type', async () => {
    const realm = stack().orgs[0]!.name;

    const answer = await oauthError(
      await requestToken(realm, { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', client_id: stack().clientId, subject_token: 'abc' }),
    );

    expect(answer).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });

  test('a JSON body instead of a form is invalid_request', async () => {
    const user = await createTestUser();

    const answer = await oauthError(await postRaw(user.realm, JSON.stringify(passwordForm(user)), 'application/json'));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  test('a repeated parameter is invalid_request', async () => {
    const user = await createTestUser();
    const form = new URLSearchParams(passwordForm(user));
    form.append('username', user.email);

    const answer = await oauthError(await postRaw(user.realm, form.toString()));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('client authentication in a Basic header (RFC 6749 §2.3.1), as Postman and Swagger UI send it', () => {
  const basic = (id: string, secret = '') => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const postWithBasic = (realm: string, form: Record<string, string>, authorization: string) =>
    fetch(tokenUrl(realm), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization }, body: new URLSearchParams(form).toString() });

  test('the client id with an empty secret, and none in the form, is the console client', async () => {
    const user = await createTestUser();
    const { client_id: _, ...form } = passwordForm(user);

    const response = await postWithBasic(user.realm, form, basic(stack().clientId));

    expect(response.status).toBe(200);
    expect(((await response.json()) as TokenBody).access_token).toBeTruthy();
  });

  test('a secret is invalid_client: the console is a public client', async () => {
    const user = await createTestUser();
    const { client_id: _, ...form } = passwordForm(user);

    const answer = await oauthError(await postWithBasic(user.realm, form, basic(stack().clientId, 'a-secret')));

    expect(answer).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  test('a header naming another client than the form is invalid_request', async () => {
    const user = await createTestUser();

    const answer = await oauthError(await postWithBasic(user.realm, passwordForm(user), basic('another-client')));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('refresh grant', () => {
  test('returns new tokens, and the new access token reads the current user', async () => {
    const user = await createTestUser();
    const first = await passwordToken(user);

    const response = await requestToken(user.realm, refreshForm(first.refresh_token));

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const second = (await response.json()) as TokenBody;
    expect(second).toMatchObject({ token_type: 'Bearer', session_state: first.session_state });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    const me = await currentUser(user.orgUuid, second.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ uuid: user.user.uuid, email: user.email });
  });

  test('a rotated-out refresh token is invalid_grant and revokes the whole session', async () => {
    const user = await createTestUser();
    const first = await passwordToken(user);
    const second = (await (await requestToken(user.realm, refreshForm(first.refresh_token))).json()) as TokenBody;

    const replay = await oauthError(await requestToken(user.realm, refreshForm(first.refresh_token)));
    const afterReplay = await oauthError(await requestToken(user.realm, refreshForm(second.refresh_token)));

    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(afterReplay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test("a refresh token presented on another organization's realm is invalid_grant", async () => {
    const user = await createTestUser({ orgIndex: 0 });
    const { refresh_token } = await passwordToken(user);

    const answer = await oauthError(await requestToken(stack().orgs[1]!.name, refreshForm(refresh_token)));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test.each([
    ['garbage', 'garbage'],
    ['two made-up parts', 'made.up'],
    ['three parts', 'a.b.c'],
    ['an over-long session id', `${'x'.repeat(5000)}.secret`],
    ["the old shape (`<session id>.<secret>`)", `${'a'.repeat(22)}.${'A'.repeat(43)}`],
  ])('a refresh token of %s is invalid_grant', async (_label, refreshToken) => {
    const realm = stack().orgs[0]!.name;

    const answer = await oauthError(await requestToken(realm, refreshForm(refreshToken)));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh token with a wrong secret, signed with the real key, is invalid_grant', async () => {
    const user = await createTestUser();
    const { refresh_token } = await passwordToken(user);
    const { payload } = decodeJwt(refresh_token);

    const answer = await oauthError(await requestToken(user.realm, refreshForm(await signWithStackKey({ ...payload, jti: 'A'.repeat(43) }))));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh token whose secret was changed after signing is invalid_grant and does not end the session', async () => {
    const user = await createTestUser();
    const { refresh_token } = await passwordToken(user);
    const { payload } = decodeJwt(refresh_token);
    const tampered = await oauthError(await requestToken(user.realm, refreshForm(withPayload(refresh_token, { ...payload, jti: 'B'.repeat(43) }))));

    const genuine = await requestToken(user.realm, refreshForm(refresh_token));

    expect(tampered).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(genuine.status).toBe(200);
  });

  test('an access token presented as a refresh token is invalid_grant', async () => {
    const user = await createTestUser();
    const { access_token } = await passwordToken(user);

    const answer = await oauthError(await requestToken(user.realm, refreshForm(access_token)));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh after the user was marked DELETED is invalid_grant', async () => {
    const user = await createTestUser();
    const { refresh_token } = await passwordToken(user);
    await markDeleted(user.orgUuid, user.user.uuid);

    const answer = await oauthError(await requestToken(user.realm, refreshForm(refresh_token)));

    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('JWKS', () => {
  test('an unknown realm answers 404 with the standard error body', async () => {
    const response = await send(certsUrl(`no-such-realm-${unique()}`));

    expectError(response, 404, 'NOT_FOUND');
  });
});
