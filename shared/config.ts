import { defaultSubpaths, type Subpaths } from './routes';

/**
 * Every environment variable the code reads, read once (at cold start, on first use) and checked.
 * The local stack and AWS differ only in these values.
 */
export interface Config {
  tableName: string;
  userPoolId: string;
  userPoolClientId: string;
  /** `kms:<key id or ARN>` in AWS; `file:<path to a private JWK>` on the local stack. */
  signingKey: { kind: 'kms'; keyId: string } | { kind: 'file'; path: string };
  tokenIssuer: string;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  sessionMaxSeconds: number;
  subpaths: Subpaths;
  region: string;
  /** Sender of the e-mails to users, and the SES configuration set (AWS only) they go through. */
  mail: { from?: string; configurationSet?: string };
  /**
   * The sign-in address e-mails to users give, with `{realm}` standing for the organization's name
   * (say, the console's, or the realm's token endpoint on this API). Both stacks set it.
   */
  signInUrl?: string;
  /** The bucket bulk operations upload their CSV files to (and keep their results in). */
  bulkBucket?: string;
  /** Endpoint overrides, set only on the local stack (emulators). */
  endpoints: { dynamodb?: string; cognito?: string; kms?: string; s3?: string; ses?: string };
}

export class ConfigError extends Error {}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`Missing environment variable ${name}`);
  }
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`Environment variable ${name} must be a positive integer (got "${raw}")`);
  }
  return value;
}

function parseSigningKey(raw: string): Config['signingKey'] {
  const [kind, ...rest] = raw.split(':');
  const value = rest.join(':');
  if (kind === 'kms' && value) return { kind: 'kms', keyId: value };
  if (kind === 'file' && value) return { kind: 'file', path: value };
  throw new ConfigError('SIGNING_KEY must be "kms:<key id>" or "file:<path>"');
}

/** The area subpaths, readable without the rest of the configuration (routers need only these). */
export function subpathsFromEnv(env: NodeJS.ProcessEnv = process.env): Subpaths {
  return {
    generative: env.GENERATIVE_SUBPATH || defaultSubpaths.generative,
    user: env.USER_SUBPATH || defaultSubpaths.user,
  };
}

export function readConfig(env: NodeJS.ProcessEnv): Config {
  const optional = (name: string) => (env[name] ? env[name] : undefined);
  return {
    tableName: required(env, 'TABLE_NAME'),
    userPoolId: required(env, 'USER_POOL_ID'),
    userPoolClientId: required(env, 'USER_POOL_CLIENT_ID'),
    signingKey: parseSigningKey(required(env, 'SIGNING_KEY')),
    tokenIssuer: required(env, 'TOKEN_ISSUER'),
    accessTokenSeconds: positiveInt(env, 'ACCESS_TOKEN_SECONDS', 300),
    refreshTokenSeconds: positiveInt(env, 'REFRESH_TOKEN_SECONDS', 1800),
    sessionMaxSeconds: positiveInt(env, 'SESSION_MAX_SECONDS', 36000),
    subpaths: subpathsFromEnv(env),
    region: optional('AWS_REGION') ?? 'us-east-1',
    mail: { from: optional('MAIL_FROM'), configurationSet: optional('SES_CONFIGURATION_SET') },
    signInUrl: optional('SIGN_IN_URL'),
    bulkBucket: optional('BULK_BUCKET_NAME'),
    endpoints: {
      dynamodb: optional('DYNAMODB_ENDPOINT'),
      cognito: optional('COGNITO_ENDPOINT'),
      kms: optional('KMS_ENDPOINT'),
      s3: optional('S3_ENDPOINT'),
      ses: optional('SES_ENDPOINT'),
    },
  };
}

let cached: Config | undefined;

/** The process's configuration, read from the environment on first use. */
export function config(): Config {
  cached ??= readConfig(process.env);
  return cached;
}
