import {
  bearer,
  createTestUser,
  currentUser,
  decodeJwt,
  getCurrentUser,
  markDeleted,
  passwordToken,
  signWithForeignKey,
  signWithStackKey,
  withPayload,
} from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import { UUID, send } from '../support/http-client';
import { adminToken, stack, unique, userArea } from '../support/stack';

/** A fresh user with a valid access token, and its decoded claims. */
async function signedInUser(options: Parameters<typeof createTestUser>[0] = {}) {
  const user = await createTestUser(options);
  const token = (await passwordToken(user)).access_token;
  return { ...user, token, claims: decodeJwt(token).payload };
}

describe('current user', () => {
  test('answers the User of the bearer token and nothing internal', async () => {
    const me = await signedInUser({ role: 'EDITOR', name: 'Edith Editor', company: 'Initech' });

    const response = await currentUser(me.orgUuid, me.token);

    expect(response.status).toBe(200);
    const body = response.body as Record<string, unknown>;
    expect(body).toEqual({
      uuid: me.user.uuid,
      orgUUID: me.orgUuid,
      name: 'Edith Editor',
      email: me.email,
      image: null,
      company: 'Initech',
      admin: false,
      role: 'EDITOR',
      permissions: [],
      status: 'ACTIVE',
      createdAt: me.user.createdAt,
    });
    for (const internal of ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'type', 'updatedAt', 'orgUuid']) {
      expect(body).not.toHaveProperty(internal);
    }
  });

  test("reports a seeded ADMIN as admin", async () => {
    const org = stack().orgs[1]!;
    const token = (await passwordToken({ realm: org.name, email: org.admin.email, password: org.admin.password })).access_token;

    const response = await currentUser(org.uuid, token);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ orgUUID: org.uuid, email: org.admin.email, admin: true, role: 'ADMIN' });
  });
});

describe('authentication', () => {
  test('a missing Authorization header is 401 UNAUTHENTICATED with a www-authenticate challenge', async () => {
    const orgUuid = stack().orgs[0]!.uuid;

    const response = await getCurrentUser(orgUuid);

    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a Basic Authorization header is 401', async () => {
    const orgUuid = stack().orgs[0]!.uuid;

    const response = await getCurrentUser(orgUuid, { authorization: 'Basic xyz' });

    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a token re-signed with the real key and valid claims is accepted (control for the crafted tokens below)', async () => {
    const me = await signedInUser();
    const now = Math.floor(Date.now() / 1000);

    const token = await signWithStackKey({ ...me.claims, iat: now, exp: now + 300 });
    const response = await currentUser(me.orgUuid, token);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ uuid: me.user.uuid });
  });

  test('a token signed with the real key whose session (sid) does not exist is 401', async () => {
    const me = await signedInUser();
    const now = Math.floor(Date.now() / 1000);

    const token = await signWithStackKey({ ...me.claims, sid: 'no-such-session', iat: now, exp: now + 300 });
    const response = await currentUser(me.orgUuid, token);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test("a token signed with the real key naming another user's live session is 401", async () => {
    const me = await signedInUser();
    const other = await signedInUser();
    const now = Math.floor(Date.now() / 1000);

    const token = await signWithStackKey({ ...me.claims, sid: other.claims.sid, iat: now, exp: now + 300 });
    const response = await currentUser(me.orgUuid, token);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('an expired token signed with the real key is 401', async () => {
    const me = await signedInUser();
    const now = Math.floor(Date.now() / 1000);

    const token = await signWithStackKey({ ...me.claims, iat: now - 3600, exp: now - 600 });
    const response = await currentUser(me.orgUuid, token);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a token whose sub was changed after signing is 401', async () => {
    const me = await signedInUser();
    const other = await createTestUser();

    const tampered = withPayload(me.token, { ...me.claims, sub: other.user.uuid });
    const response = await currentUser(me.orgUuid, tampered);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test("a token whose realm (iss) was changed to another organization's after signing is 401", async () => {
    const me = await signedInUser();
    const other = stack().orgs[1]!;

    const tampered = withPayload(me.token, { ...me.claims, iss: `${stack().authUrl}/auth/realms/${other.name}` });
    const response = await currentUser(other.uuid, tampered);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a token signed by another P-256 key under the real kid is 401', async () => {
    const me = await signedInUser();
    const now = Math.floor(Date.now() / 1000);
    const kid = decodeJwt(me.token).header.kid as string;

    const forged = signWithForeignKey({ ...me.claims, iat: now, exp: now + 300 }, kid);
    const response = await currentUser(me.orgUuid, forged);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('an unsigned token (alg none) is 401', async () => {
    const me = await signedInUser();
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = me.token.split('.')[1]!;

    const response = await currentUser(me.orgUuid, `${header}.${payload}.`);

    expectError(response, 401, 'UNAUTHENTICATED');
  });

  test('a token of a user since marked DELETED is 401 at once', async () => {
    const me = await signedInUser();
    const before = await currentUser(me.orgUuid, me.token);
    await markDeleted(me.orgUuid, me.user.uuid);

    const after = await currentUser(me.orgUuid, me.token);

    expect(before.status).toBe(200);
    expectError(after, 401, 'UNAUTHENTICATED');
  });
});

describe('addressing', () => {
  test("a token of one organization on another organization's path is 404 NOT_FOUND", async () => {
    const me = await signedInUser({ orgIndex: 0 });

    const response = await currentUser(stack().orgs[1]!.uuid, me.token);

    expectError(response, 404, 'NOT_FOUND');
  });

  test('a malformed orgUUID is 422 naming orgUUID', async () => {
    const me = await signedInUser();

    const response = await send(`${stack().apiUrl}/${stack().userSubpath}/org/not-a-uuid/users/identity-provider`, {
      headers: bearer(me.token),
    });

    const body = expectError(response, 422, 'VALIDATION_FAILED');
    expect(body.details).toEqual([{ fieldName: 'orgUUID', message: expect.any(String), errorCode: expect.any(String) }]);
  });

  test('an unknown route is 404 ROUTE_NOT_FOUND', async () => {
    const response = await send(`${stack().apiUrl}/no-such-area/${unique()}`);

    expectError(response, 404, 'ROUTE_NOT_FOUND');
  });

  test('a known path with another method is 404 ROUTE_NOT_FOUND', async () => {
    const me = await signedInUser();

    const response = await send(userArea(me.orgUuid, '/users/identity-provider'), { method: 'PATCH', headers: bearer(me.token) });

    expectError(response, 404, 'ROUTE_NOT_FOUND');
  });

  test('a method that only `/users/{userId}` has reaches it, as in API Gateway, and finds no such user', async () => {
    const admin = await adminToken();

    const response = await send(userArea(admin.orgUuid, '/users/identity-provider'), {
      method: 'DELETE',
      headers: bearer(admin.accessToken),
    });

    expectError(response, 404, 'NOT_FOUND');
  });
});

describe('request id', () => {
  test('a given x-request-id is echoed', async () => {
    const me = await signedInUser();
    const id = `req-${unique()}`;

    const response = await currentUser(me.orgUuid, me.token, { requestId: id });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(id);
  });

  test('a generated x-request-id is returned when none is given, also on errors', async () => {
    const me = await signedInUser();

    const ok = await currentUser(me.orgUuid, me.token);
    const refused = await getCurrentUser(me.orgUuid);

    expect(ok.headers.get('x-request-id')).toMatch(UUID);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(UUID);
    expect(refused.headers.get('x-request-id')).not.toBe(ok.headers.get('x-request-id'));
  });

  test.each([
    ['spaces', 'abc def'],
    ['a forged log line', 'abc","level":"ERROR'],
    ['200 characters', 'a'.repeat(200)],
  ])('an x-request-id with %s is replaced by a generated one', async (_label, unsafe) => {
    const me = await signedInUser();

    const response = await getCurrentUser(me.orgUuid, { ...bearer(me.token), 'x-request-id': unsafe });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });
});
