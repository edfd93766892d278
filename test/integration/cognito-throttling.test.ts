import { AdminGetUserCommand, AdminUpdateUserAttributesCommand, CognitoIdentityProviderClient, ListUsersCommand } from '@aws-sdk/client-cognito-identity-provider';
import { readQuotaUsage, type QuotaCategory } from '../../infra/local/cognito-quotas';
import { LOCAL_CREDENTIALS } from '../../infra/local/provision';
import type { StackInfo } from '../../infra/local/stack';
import { envNames } from '../../shared/kernel/config';
import { ownStacks, targetOwnStack } from '../support/stack-process';
import { createBody, freshOrganization, readUser, tokenOf, type TestOrg, type UserDto } from '../support/user-helpers';

/**
 * Cognito's request-rate quotas on the local stack, at rates a test can reach: a stack of this file's
 * own (the run's shared stack raises its quotas), so its quotas touch no other file. This file's
 * helpers and product modules are pointed at it.
 */

// UserCreation: 2 a second. UserUpdate and UserList: one, then one every 20 s, so that a refusal stays a
// refusal through every retry, however slow the machine.
const QUOTAS = { UserCreation: 2, UserUpdate: 0.05, UserList: 0.05 };

const own = ownStacks();
let info: StackInfo;
let org: TestOrg;
let cognito: CognitoIdentityProviderClient;
let userPoolId: string;

/** Calls cognito-local as a client of Cognito's JSON protocol does. */
const cognitoCall = (target: string, body: unknown) =>
  fetch(info.endpoints.cognito, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${target}` },
    body: JSON.stringify(body),
  });

/** The calls cognito-local refused so far in a category. */
const throttled = async (category: QuotaCategory) => (await readQuotaUsage(info.endpoints.cognito)).throttled[category] ?? 0;

beforeAll(async () => {
  // The test helpers and this process's product modules (the operator's, which make the organization) target this stack.
  info = await targetOwnStack('cognito-quotas-', { LOCAL_COGNITO_QUOTAS: JSON.stringify(QUOTAS) }, own);
  userPoolId = process.env[envNames.userPoolId]!;
  // Cognito as a caller sees it, without the SDK's retries.
  cognito = new CognitoIdentityProviderClient({ endpoint: info.endpoints.cognito, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  org = await freshOrganization();
});

afterAll(() => cognito?.destroy());

test('a call over its category\'s quota gets what Cognito answers: 400 TooManyRequestsException, "Too many requests"', async () => {
  const answers = await Promise.all(
    Array.from({ length: 5 }, () =>
      cognitoCall('ListUsers', { UserPoolId: userPoolId, Limit: 1 }).then(async (response) => ({ status: response.status, body: await response.text() })),
    ),
  );
  // The one request UserList had passed; the others were refused, as Cognito words it.
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
  expect(answers.filter((answer) => answer.status !== 200)).toEqual(
    Array.from({ length: 4 }, () => ({ status: 400, body: '{"__type":"TooManyRequestsException","message":"Too many requests"}' })),
  );
  // The SDK reads it as Cognito's TooManyRequestsException.
  const refusal = await cognito.send(new ListUsersCommand({ UserPoolId: userPoolId, Limit: 1 })).catch((error: Error) => error);
  expect(refusal).toMatchObject({ name: 'TooManyRequestsException', message: 'Too many requests', $metadata: { httpStatusCode: 400 } });
  expect(await throttled('UserList')).toBe(5);
});

test('creates fired at once over UserCreation\'s quota are throttled, back off, and all succeed; every user signs in', async () => {
  const before = await throttled('UserCreation');
  const bodies = Array.from({ length: 8 }, () => createBody(org));
  const answers = await Promise.all(bodies.map((body) => org.admin.api.post(org.url(), body)));
  expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
  // cognito-local refused some of these creates (2 a second cannot take 8 at once), and the product retried them.
  expect((await throttled('UserCreation')) - before).toBeGreaterThan(0);
  for (const body of bodies) {
    const token = await tokenOf(org.realm, body.email as string, body.password as string);
    expect(token.access_token).toEqual(expect.any(String));
  }
});

test('a change still refused after the back-off answers 503 SERVICE_BUSY with Retry-After, and changes nothing', async () => {
  const created = await org.admin.api.post(org.url(), createBody(org));
  expect(created.status).toBe(200);
  const user = created.body as UserDto;
  // Spend UserUpdate's one request: the next comes back in 20 s, after every retry (at most 7.75 s).
  for (let attempt = 0; attempt < 3; attempt++) {
    const spent = await cognito
      .send(new AdminUpdateUserAttributesCommand({ UserPoolId: userPoolId, Username: user.uuid, UserAttributes: [{ Name: 'email', Value: user.email }] }))
      .then(() => false)
      .catch((error: Error) => error.name === 'TooManyRequestsException');
    if (spent) break;
  }
  const before = await throttled('UserUpdate');
  const newEmail = `moved-${user.email}`;
  const answer = await org.admin.api.put(org.url(`/${user.uuid}`), { name: user.name, email: newEmail });
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.body).toMatchObject({
    errorCode: 'SERVICE_BUSY',
    errorType: 'API_ERROR',
    message: 'The service is taking more requests than it can right now and changed nothing; retry after the number of seconds in Retry-After',
    path: new URL(org.url(`/${user.uuid}`)).pathname,
  });
  // Every attempt the client made (six) was refused.
  expect((await throttled('UserUpdate')) - before).toBe(6);
  expect((await readUser(org, user.uuid)).email).toBe(user.email);
});

test('a user created with a generated password costs one UserCreation call and nothing under UserAccountRecovery; a given password costs one of each', async () => {
  const calls = async () => {
    const { admitted, throttled: refused } = await readQuotaUsage(info.endpoints.cognito);
    return (category: QuotaCategory) => (admitted[category] ?? 0) + (refused[category] ?? 0);
  };
  const before = await calls();
  const generated = await org.admin.api.post(org.url(), createBody(org, { password: undefined, confirmPassword: undefined }));
  expect(generated.status).toBe(200);
  const afterGenerated = await calls();
  expect(afterGenerated('UserAccountRecovery') - before('UserAccountRecovery')).toBe(0);
  expect(afterGenerated('UserCreation') - before('UserCreation')).toBeGreaterThanOrEqual(1);
  // The temporary password came with the account: Cognito asks for a new one at the first sign-in.
  const account = await cognito.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: (generated.body as UserDto).uuid }));
  expect(account.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
  const given = await org.admin.api.post(org.url(), createBody(org));
  expect(given.status).toBe(200);
  const afterGiven = await calls();
  expect(afterGiven('UserAccountRecovery') - afterGenerated('UserAccountRecovery')).toBeGreaterThanOrEqual(1);
});

test("over SCIM, a change still refused after the back-off answers 503 in SCIM's error schema with Retry-After, and changes nothing", async () => {
  const orgArea = (path: string) => `${org.url().replace(/\/users$/, '')}${path}`;
  const issued = await org.admin.api.post(orgArea('/scim-tokens'), { description: 'Okta', defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } });
  expect(issued.status).toBe(201);
  const scimToken = (issued.body as unknown as { token: string }).token;
  const scim = async (method: string, path: string, body: unknown) => {
    const response = await fetch(orgArea(`/scim/v2${path}`), {
      method,
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> };
  };
  const email = `scim.throttled.${Date.now()}@example.com`;
  const created = await scim('POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: email,
    name: { givenName: 'Grace', familyName: 'Hopper' },
    emails: [{ primary: true, value: email, type: 'work' }],
    active: true,
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  // Spend UserUpdate's one request, as above.
  for (let attempt = 0; attempt < 3; attempt++) {
    const spent = await cognito
      .send(new AdminUpdateUserAttributesCommand({ UserPoolId: userPoolId, Username: id, UserAttributes: [{ Name: 'email', Value: email }] }))
      .then(() => false)
      .catch((error: Error) => error.name === 'TooManyRequestsException');
    if (spent) break;
  }

  const answer = await scim('PATCH', `/Users/${id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] });

  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toBe('1');
  expect(answer.body).toEqual({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: '503',
    detail: 'The identity provider is taking more requests than it can right now: retry after the number of seconds in Retry-After, and read the user back if the request was a change',
  });
  expect((await readUser(org, id)).status).toBe('ACTIVE');
});
