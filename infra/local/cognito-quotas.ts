import { CognitoError } from 'cognito-local/lib/errors';
import { parseJson } from './kernel/parse-json';

/**
 * Cognito's request-rate quotas for user pools, applied to cognito-local (docs/local-stack.md), as in
 * https://docs.aws.amazon.com/cognito/latest/developerguide/quotas.html#category_operations.
 */
export const quotaCategories = {
  UserAuthentication: { rps: 120, operations: ['InitiateAuth', 'AdminInitiateAuth', 'GetTokensFromRefreshToken'] },
  UserCreation: { rps: 50, operations: ['SignUp', 'ConfirmSignUp', 'AdminCreateUser', 'AdminConfirmSignUp'] },
  UserAccountRecovery: { rps: 30, operations: ['ChangePassword', 'ConfirmForgotPassword', 'ForgotPassword', 'AdminResetUserPassword', 'AdminSetUserPassword'] },
  UserRead: { rps: 120, operations: ['AdminGetUser', 'AdminGetUserAuthFactors', 'GetUser'] },
  UserUpdate: {
    rps: 25,
    operations: [
      'AdminAddUserToGroup', 'AdminDeleteUserAttributes', 'AdminUpdateUserAttributes', 'AdminDeleteUser', 'AdminDisableUser',
      'AdminEnableUser', 'AdminLinkProviderForUser', 'AdminDisableProviderForUser', 'VerifyUserAttribute', 'DeleteUser',
      'DeleteUserAttributes', 'UpdateUserAttributes', 'AdminUserGlobalSignOut', 'GlobalSignOut', 'AdminRemoveUserFromGroup',
    ],
  },
  UserToken: { rps: 120, operations: ['RevokeToken'] },
  UserResourceRead: {
    rps: 50,
    operations: [
      'AdminGetDevice', 'AdminListGroupsForUser', 'AdminListDevices', 'GetDevice', 'ListDevices', 'GetUserAttributeVerificationCode',
      'ResendConfirmationCode', 'AdminListUserAuthEvents',
    ],
  },
  UserResourceUpdate: {
    rps: 25,
    operations: [
      'AdminForgetDevice', 'AdminUpdateAuthEventFeedback', 'AdminSetUserMFAPreference', 'AdminDeleteSoftwareToken', 'AdminSetUserSettings',
      'AdminUpdateDeviceStatus', 'UpdateDeviceStatus', 'UpdateAuthEventFeedback', 'ConfirmDevice', 'SetUserMFAPreference',
      'SetUserSettings', 'VerifySoftwareToken', 'AssociateSoftwareToken', 'ForgetDevice',
    ],
  },
  UserList: { rps: 30, operations: ['ListUsers', 'ListUsersInGroup'] },
  UserPoolRead: { rps: 15, operations: ['DescribeUserPool', 'ListUserPools'] },
  UserPoolUpdate: { rps: 15, operations: ['CreateUserPool', 'UpdateUserPool', 'DeleteUserPool'] },
  UserPoolResourceRead: {
    rps: 20,
    operations: [
      'DescribeIdentityProvider', 'DescribeResourceServer', 'DescribeUserImportJob', 'DescribeUserPoolDomain', 'GetCSVHeader', 'GetGroup',
      'GetSigningCertificate', 'GetIdentityProviderByIdentifier', 'GetUserPoolMfaConfig', 'ListGroups', 'ListIdentityProviders',
      'ListResourceServers', 'ListTagsForResource', 'ListUserImportJobs', 'DescribeRiskConfiguration', 'GetUICustomization',
    ],
  },
  UserPoolResourceUpdate: {
    rps: 15,
    operations: [
      'AddCustomAttributes', 'CreateGroup', 'CreateIdentityProvider', 'CreateResourceServer', 'CreateUserImportJob', 'CreateUserPoolDomain',
      'DeleteGroup', 'DeleteIdentityProvider', 'DeleteResourceServer', 'DeleteUserPoolDomain', 'SetUserPoolMfaConfig', 'StartUserImportJob',
      'StopUserImportJob', 'UpdateGroup', 'UpdateIdentityProvider', 'UpdateResourceServer', 'UpdateUserPoolDomain', 'SetRiskConfiguration',
      'SetUICustomization', 'TagResource', 'UntagResource',
    ],
  },
  UserPoolClientRead: { rps: 15, operations: ['DescribeUserPoolClient', 'ListUserPoolClients'] },
  UserPoolClientUpdate: { rps: 15, operations: ['CreateUserPoolClient', 'DeleteUserPoolClient', 'UpdateUserPoolClient'] },
  ClientAuthentication: { rps: 150, operations: ['GetClientToken'] },
  // Other challenge answers: their own quota, three times UserAuthentication's (the guide's "special handling").
  UserAuthenticationChallenge: { rps: 360, operations: [] },
} as const satisfies Record<string, { rps: number; operations: readonly string[] }>;

export type QuotaCategory = keyof typeof quotaCategories;
export type QuotaRates = Record<QuotaCategory, number>;

/** The environment variable that overrides rates: a JSON object of category (or `*`, every other one) to requests per second. */
export const QUOTAS_ENV = 'LOCAL_COGNITO_QUOTAS';

const categoryByOperation = new Map<string, QuotaCategory>(
  Object.entries(quotaCategories).flatMap(([category, { operations }]) => operations.map((operation) => [operation, category as QuotaCategory])),
);

const challengeResponses = new Set(['RespondToAuthChallenge', 'AdminRespondToAuthChallenge']);

/** The category a call counts against; a challenge answer setting a new password is UserAccountRecovery's. */
export function categoryOf(operation: string, request?: { ChallengeName?: string }): QuotaCategory | undefined {
  if (challengeResponses.has(operation)) return request?.ChallengeName === 'NEW_PASSWORD_REQUIRED' ? 'UserAccountRecovery' : 'UserAuthenticationChallenge';
  return categoryByOperation.get(operation);
}

/** AWS's default rates, with the overrides of `LOCAL_COGNITO_QUOTAS` (for example `{"UserCreation":2}` or `{"*":1000}`). */
export function quotaRates(setting: string | undefined = process.env[QUOTAS_ENV]): QuotaRates {
  const rates = Object.fromEntries(Object.entries(quotaCategories).map(([category, { rps }]) => [category, rps])) as QuotaRates;
  if (!setting?.trim()) return rates;
  const usage = `${QUOTAS_ENV} must be a JSON object of request rates per second, keyed by category (${Object.keys(quotaCategories).join(', ')}) or "*" for every other one, for example {"UserCreation":2}`;
  const overrides = parseJson(setting) as Record<string, number> | undefined;
  if (overrides === undefined) throw new Error(`${usage}; it is not JSON`);
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw new Error(usage);
  for (const [key, value] of Object.entries(overrides as Record<string, unknown>)) {
    if (key !== '*' && !(key in quotaCategories)) throw new Error(`${usage}; "${key}" is not a category`);
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new Error(`${usage}; the rate of "${key}" is not a positive number`);
  }
  for (const category of Object.keys(rates) as QuotaCategory[]) rates[category] = overrides[category] ?? overrides['*'] ?? rates[category];
  return rates;
}

/** One token bucket per category, holding one second of its rate (at least one call); a refused call takes no token. */
export function quotaBuckets(rates: QuotaRates, now: () => number = () => performance.now()) {
  const buckets = new Map<QuotaCategory, { tokens: number; at: number }>();
  return {
    /** Whether a call of `category` may pass now (and takes its token if so). */
    take(category: QuotaCategory): boolean {
      const rate = rates[category];
      const capacity = Math.max(1, rate);
      const time = now();
      const bucket = buckets.get(category) ?? { tokens: capacity, at: time };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((time - bucket.at) / 1000) * rate);
      bucket.at = time;
      buckets.set(category, bucket);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}

/** A local-only operation, under no quota: the rates applied and the calls let through and refused so far. */
export const QUOTA_USAGE_TARGET = 'LocalQuotaUsage';

type Counts = Partial<Record<QuotaCategory, number>>;
export interface QuotaUsage { rates: QuotaRates; admitted: Counts; throttled: Counts }

/** The quota usage of the local Cognito at `endpoint` (the local-only operation, as a client of Cognito's JSON protocol calls it). */
export async function readQuotaUsage(endpoint: string): Promise<QuotaUsage> {
  const headers = { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${QUOTA_USAGE_TARGET}` };
  return (await (await fetch(endpoint, { method: 'POST', headers, body: '{}' })).json()) as QuotaUsage;
}

type Handler<C, R> = (ctx: C, request: R) => Promise<unknown>;

/** Wraps cognito-local's router so that a call over its quota is refused before it runs, with Cognito's error. */
export function withCognitoQuotas<C, R>(router: (target: string) => Handler<C, R>, rates: QuotaRates = quotaRates()): (target: string) => Handler<C, R> {
  const buckets = quotaBuckets(rates);
  const admitted: Counts = {};
  const throttled: Counts = {};
  return (target) => {
    if (target === QUOTA_USAGE_TARGET) return async (): Promise<QuotaUsage> => ({ rates, admitted: { ...admitted }, throttled: { ...throttled } });
    const handle = router(target);
    return async (ctx, request) => {
      const category = categoryOf(target, request as { ChallengeName?: string });
      if (category && !buckets.take(category)) {
        throttled[category] = (throttled[category] ?? 0) + 1;
        throw new CognitoError('TooManyRequestsException', 'Too many requests');
      }
      if (category) admitted[category] = (admitted[category] ?? 0) + 1;
      return handle(ctx, request);
    };
  };
}
