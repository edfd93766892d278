import { CognitoError } from 'cognito-local/lib/errors';
import { groupAccess } from '../../infra/cloud/group-access';
import { categoryOf, QUOTA_USAGE_TARGET, quotaBuckets, quotaCategories, quotaRates, withCognitoQuotas, type QuotaRates, type QuotaUsage } from '../../infra/local/cognito-quotas';

/** The local Cognito's request-rate quotas: AWS's categories and defaults, a token bucket per category. */

test('every operation the product calls is in the category, at the default rate, the Cognito developer guide gives it', () => {
  const called = new Set(Object.values(groupAccess).flatMap((access) => access?.userPoolActions ?? []));
  // The local stack's own provisioning (infra/local/provision.ts) calls these too.
  for (const operation of ['CreateUserPool', 'CreateUserPoolClient', 'DescribeUserPoolClient']) called.add(operation as never);
  const rates = quotaRates('');
  const placed = Object.fromEntries([...called].sort().map((operation) => [operation, `${categoryOf(operation)} ${rates[categoryOf(operation)!]}`]));
  expect(placed).toEqual({
    AdminCreateUser: 'UserCreation 50',
    AdminDisableUser: 'UserUpdate 25',
    AdminEnableUser: 'UserUpdate 25',
    AdminGetUser: 'UserRead 120',
    AdminInitiateAuth: 'UserAuthentication 120',
    AdminSetUserPassword: 'UserAccountRecovery 30',
    AdminUpdateUserAttributes: 'UserUpdate 25',
    CreateUserPool: 'UserPoolUpdate 15',
    CreateUserPoolClient: 'UserPoolClientUpdate 15',
    DescribeUserPoolClient: 'UserPoolClientRead 15',
  });
});

test('no operation is in two categories; a challenge answer counts as the guide says; an unlisted operation has none', () => {
  const all = Object.values(quotaCategories).flatMap((category) => [...category.operations]);
  expect(new Set(all).size).toBe(all.length);
  expect(categoryOf('AdminRespondToAuthChallenge', { ChallengeName: 'NEW_PASSWORD_REQUIRED' })).toBe('UserAccountRecovery');
  expect(categoryOf('RespondToAuthChallenge', { ChallengeName: 'SMS_MFA' })).toBe('UserAuthenticationChallenge');
  expect(quotaRates('').UserAuthenticationChallenge).toBe(3 * quotaRates('').UserAuthentication);
  expect(categoryOf('ListUsers')).toBe('UserList');
  expect(categoryOf('NoSuchOperation')).toBeUndefined();
});

test('LOCAL_COGNITO_QUOTAS overrides a category, or every other one with "*", and a bad setting is refused in words', () => {
  expect(quotaRates('').UserCreation).toBe(50);
  const lowered = quotaRates('{"UserCreation": 2}');
  expect([lowered.UserCreation, lowered.UserUpdate]).toEqual([2, 25]);
  const raised = quotaRates('{"*": 1000, "UserCreation": 3}');
  expect([raised.UserCreation, raised.UserUpdate, raised.UserAuthentication]).toEqual([3, 1000, 1000]);
  expect(() => quotaRates('{"UserCreate": 2}')).toThrow(/"UserCreate" is not a category/);
  expect(() => quotaRates('{"UserCreation": 0}')).toThrow(/not a positive number/);
  expect(() => quotaRates('{"UserCreation": "fast"}')).toThrow(/not a positive number/);
  expect(() => quotaRates('fast')).toThrow(/LOCAL_COGNITO_QUOTAS must be a JSON object.*not JSON/);
  expect(() => quotaRates('[2]')).toThrow(/LOCAL_COGNITO_QUOTAS must be a JSON object/);
});

test("a bucket lets one second's worth through at once, then the category's rate", () => {
  let now = 0;
  const rates = { ...quotaRates(''), UserCreation: 2, UserUpdate: 0.5 } as QuotaRates;
  const buckets = quotaBuckets(rates, () => now);
  expect([1, 2, 3].map(() => buckets.take('UserCreation'))).toEqual([true, true, false]);
  // Another category has its own bucket.
  expect(buckets.take('UserAccountRecovery')).toBe(true);
  now = 499;
  expect(buckets.take('UserCreation')).toBe(false);
  now = 500;
  expect([buckets.take('UserCreation'), buckets.take('UserCreation')]).toEqual([true, false]);
  // A long pause refills to one second's worth, not more.
  now = 60_000;
  expect([1, 2, 3].map(() => buckets.take('UserCreation'))).toEqual([true, true, false]);
  // Under one request a second: one at a time, every 1/rate seconds.
  expect([buckets.take('UserUpdate'), buckets.take('UserUpdate')]).toEqual([true, false]);
  now = 61_999;
  expect(buckets.take('UserUpdate')).toBe(false);
  now = 62_000;
  expect(buckets.take('UserUpdate')).toBe(true);
});

test('the wrapped router refuses a call over its quota with the error Cognito answers, before the operation runs, and counts it', async () => {
  const ran: string[] = [];
  const router = (target: string) => async (_ctx: unknown, request: { n: number }) => {
    ran.push(`${target} ${request.n}`);
    return { ok: request.n };
  };
  const rates = { ...quotaRates(''), UserCreation: 1 };
  const wrapped = withCognitoQuotas(router, rates);
  await expect(wrapped('AdminCreateUser')({}, { n: 1 })).resolves.toEqual({ ok: 1 });
  const refused = await wrapped('AdminCreateUser')({}, { n: 2 }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(CognitoError);
  expect(refused).toMatchObject({ code: 'TooManyRequestsException', message: 'Too many requests' });
  // Other categories and unlisted operations pass.
  await expect(wrapped('AdminSetUserPassword')({}, { n: 3 })).resolves.toEqual({ ok: 3 });
  await expect(wrapped('NoSuchOperation')({}, { n: 4 })).resolves.toEqual({ ok: 4 });
  expect(ran).toEqual(['AdminCreateUser 1', 'AdminSetUserPassword 3', 'NoSuchOperation 4']);
  // The local-only usage operation reports the rates, the calls let through and the refusals, and counts against nothing.
  const usage = (await wrapped(QUOTA_USAGE_TARGET)({}, { n: 0 })) as QuotaUsage;
  expect(usage).toEqual({ rates, admitted: { UserCreation: 1, UserAccountRecovery: 1 }, throttled: { UserCreation: 1 } });
  expect(ran).toHaveLength(3);
});
