/** The configurable path segments of the two areas (docs/api/README.md#choices-that-apply-everywhere). */
export interface Subpaths {
  generative: string;
  user: string;
}

export const defaultSubpaths: Subpaths = { generative: 'generative', user: 'user-management' };

/**
 * Every environment variable the code reads, each read once, when the code first uses its setting, and
 * checked then. The local stack and AWS differ only in these values.
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
  /** How long an offline session (`scope=offline_access`) lives unused; each refresh starts it again. */
  offlineSessionIdleSeconds: number;
  /** How long audit events are kept (their TTL), in days. */
  auditRetentionDays: number;
  /** Cognito's account quotas the functions pace themselves under (requests per second). */
  cognitoQuotas: { userCreationPerSecond: number };
  subpaths: Subpaths;
  region: string;
  /** Sender of the e-mails to users, and the SES configuration set (AWS only) they go through. */
  mail: { from?: string; configurationSet?: string };
  /**
   * The sign-in address e-mails to users give, with `{realm}` standing for the organization's name
   * (say, the console's, or the realm's token endpoint on this API). Both stacks set it.
   */
  signInUrl?: string;
  /**
   * Redirect URIs the authorization endpoint accepts besides loopback ones and the API reference's
   * own: the console's addresses, exact, set per deployment (`-c authRedirectUris=…`).
   */
  authRedirectUris: readonly string[];
  /**
   * The queue user e-mails (welcome, reactivation) wait in for the `mail` function, and how many of its
   * invocations drain it at once (each sends at SES's rate divided by this).
   */
  mailQueue: { url?: string; consumers: number };
  /** The bucket bulk operations upload their CSV files to (and keep their results in). */
  bulkBucket?: string;
  /** Change events (docs/api/events.md): the EventBridge bus they are put on and their types' prefix. */
  events: { busName?: string; typePrefix: string };
  /** Webhook deliveries (docs/api/events.md); the windows are configurable so that tests run in seconds. */
  webhooks: WebhookSettings;
  /**
   * The KMS keys (ARNs) that seal what the table keeps secret (envelope encryption:
   * shared/adapters/sealing/envelope.ts): identity providers' client secrets, and the passwords of
   * queued e-mails. A function holds the variable of a key it is granted; locally the keys live in the
   * data directory behind the local KMS.
   */
  sealingKeys: { providerSecrets?: string; mailPasswords?: string };
  /** Endpoint overrides, set only on the local stack (emulators). */
  endpoints: { dynamodb?: string; cognito?: string; kms?: string; s3?: string; ses?: string; eventbridge?: string; sqs?: string };
}

export interface WebhookSettings {
  /**
   * Receivers at `http://127.0.0.1:<port>` are allowed (the local stack, itself on loopback, by
   * default). The CDK stack never sets it: a deployed stack takes `https` URLs of public addresses only.
   */
  allowLoopbackHttp: boolean;
  /** How long a delivery is retried, with growing delays, before it is given up (24 h). */
  retrySeconds: number;
  /** How long a subscription may fail without a success before it is disabled (24 h). */
  disableAfterSeconds: number;
  /** How long a rotated-out secret still signs beside the new one (24 h). */
  secretOverlapSeconds: number;
  /** The first retry's delay; each next one doubles, up to an hour (5 s). */
  firstRetryMs: number;
  /** How often the sweep looks for due deliveries (250 ms). */
  pollMs: number;
}

/**
 * The name of every environment variable the functions read, written once: `readConfig` reads them,
 * the CDK bind helpers and the local stack set them, the operator CLI points them at a stack.
 */
export const envNames = {
  tableName: 'TABLE_NAME',
  userPoolId: 'USER_POOL_ID',
  userPoolClientId: 'USER_POOL_CLIENT_ID',
  signingKey: 'SIGNING_KEY',
  tokenIssuer: 'TOKEN_ISSUER',
  accessTokenSeconds: 'ACCESS_TOKEN_SECONDS',
  refreshTokenSeconds: 'REFRESH_TOKEN_SECONDS',
  sessionMaxSeconds: 'SESSION_MAX_SECONDS',
  offlineSessionIdleSeconds: 'OFFLINE_SESSION_IDLE_SECONDS',
  auditRetentionDays: 'AUDIT_RETENTION_DAYS',
  cognitoUserCreationRate: 'COGNITO_USER_CREATION_RATE',
  mailQueueUrl: 'MAIL_QUEUE_URL',
  mailConsumers: 'MAIL_CONSUMERS',
  generativeSubpath: 'GENERATIVE_SUBPATH',
  userSubpath: 'USER_SUBPATH',
  region: 'AWS_REGION',
  mailFrom: 'MAIL_FROM',
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  signInUrl: 'SIGN_IN_URL',
  authRedirectUris: 'AUTH_REDIRECT_URIS',
  bulkBucket: 'BULK_BUCKET_NAME',
  providerSecretsKey: 'PROVIDER_SECRETS_KEY',
  mailPasswordsKey: 'MAIL_PASSWORDS_KEY',
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  cognitoEndpoint: 'COGNITO_ENDPOINT',
  kmsEndpoint: 'KMS_ENDPOINT',
  s3Endpoint: 'S3_ENDPOINT',
  sesEndpoint: 'SES_ENDPOINT',
  eventbridgeEndpoint: 'EVENTBRIDGE_ENDPOINT',
  sqsEndpoint: 'SQS_ENDPOINT',
  eventBusName: 'EVENT_BUS_NAME',
  eventTypePrefix: 'EVENT_TYPE_PREFIX',
  webhookAllowLoopbackHttp: 'WEBHOOK_ALLOW_LOOPBACK_HTTP',
  webhookRetrySeconds: 'WEBHOOK_RETRY_SECONDS',
  webhookDisableAfterSeconds: 'WEBHOOK_DISABLE_AFTER_SECONDS',
  webhookSecretOverlapSeconds: 'WEBHOOK_SECRET_OVERLAP_SECONDS',
  webhookFirstRetryMs: 'WEBHOOK_FIRST_RETRY_MS',
  webhookPollMs: 'WEBHOOK_POLL_MS',
} as const;

/** The default prefix of change events' types (`com.agentplatform.agent.updated`). */
export const DEFAULT_EVENT_TYPE_PREFIX = 'com.agentplatform';

const DAY_SECONDS = 86_400;

export type EnvName = (typeof envNames)[keyof typeof envNames];

export class ConfigError extends Error {}

function required(env: NodeJS.ProcessEnv, name: EnvName): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`Missing environment variable ${name}`);
  }
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: EnvName, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`Environment variable ${name} must be a positive integer (got "${raw}")`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: EnvName): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`Environment variable ${name} must be true or false (got "${raw}")`);
}

/** A change-event type prefix: a reverse-DNS name (`com.example`). */
export const EVENT_TYPE_PREFIX_PATTERN = /^[a-z0-9]+(\.[a-z0-9-]+)*$/;

function eventTypePrefix(env: NodeJS.ProcessEnv): string {
  const value = env[envNames.eventTypePrefix] || DEFAULT_EVENT_TYPE_PREFIX;
  if (!EVENT_TYPE_PREFIX_PATTERN.test(value)) throw new ConfigError(`Environment variable ${envNames.eventTypePrefix} must be a reverse-DNS name like com.example (got "${value}")`);
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
    generative: env[envNames.generativeSubpath] || defaultSubpaths.generative,
    user: env[envNames.userSubpath] || defaultSubpaths.user,
  };
}

/** What a function that e-mails users needs: the sender, the SES configuration set, the sign-in address. */
export interface MailSettings {
  from: string;
  configurationSet?: string;
  /** `{realm}` stands for the organization's name. */
  signInUrl: string;
}

/**
 * The mail settings, failing the one way every missing variable fails: a ConfigError naming it, on
 * the function's first use (the users function and the bulk worker, which both stacks configure).
 */
export function mailSettings(from: Config = config()): MailSettings {
  const { mail, signInUrl } = from;
  if (!mail.from) throw new ConfigError(`Missing environment variable ${envNames.mailFrom}: the sender of e-mails to users`);
  if (!signInUrl) throw new ConfigError(`Missing environment variable ${envNames.signInUrl}: the sign-in address e-mails give`);
  return { from: mail.from, configurationSet: mail.configurationSet, signInUrl };
}

/**
 * An object whose every property is read on its first access (then kept), so that a function reads
 * only the variables of the settings it uses; a getter that throws (a missing required variable)
 * throws again on the next access.
 */
function lazily<T extends object>(readers: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const key of Object.keys(readers) as (keyof T & string)[]) {
    Object.defineProperty(target, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = readers[key]();
        Object.defineProperty(target, key, { value, enumerable: true, configurable: false, writable: false });
        return value;
      },
    });
  }
  return target;
}

/** The configuration `env` describes, each setting read from it on first access. */
export function readConfig(env: NodeJS.ProcessEnv): Config {
  const optional = (name: EnvName) => env[name] || undefined;
  return lazily<Config>({
    tableName: () => required(env, envNames.tableName),
    userPoolId: () => required(env, envNames.userPoolId),
    userPoolClientId: () => required(env, envNames.userPoolClientId),
    signingKey: () => parseSigningKey(required(env, envNames.signingKey)),
    tokenIssuer: () => required(env, envNames.tokenIssuer),
    accessTokenSeconds: () => positiveInt(env, envNames.accessTokenSeconds, 300),
    refreshTokenSeconds: () => positiveInt(env, envNames.refreshTokenSeconds, 1800),
    sessionMaxSeconds: () => positiveInt(env, envNames.sessionMaxSeconds, 36000),
    offlineSessionIdleSeconds: () => positiveInt(env, envNames.offlineSessionIdleSeconds, 30 * DAY_SECONDS),
    auditRetentionDays: () => positiveInt(env, envNames.auditRetentionDays, 400),
    // Cognito's default UserCreation quota (AdminCreateUser); an account granted more sets it.
    cognitoQuotas: () => lazily<Config['cognitoQuotas']>({ userCreationPerSecond: () => positiveInt(env, envNames.cognitoUserCreationRate, 50) }),
    subpaths: () => subpathsFromEnv(env),
    region: () => optional(envNames.region) ?? 'us-east-1',
    mail: () => lazily<Config['mail']>({ from: () => optional(envNames.mailFrom), configurationSet: () => optional(envNames.sesConfigurationSet) }),
    signInUrl: () => optional(envNames.signInUrl),
    authRedirectUris: () => (optional(envNames.authRedirectUris) ?? '').split(/\s+/).filter(Boolean),
    mailQueue: () => lazily<Config['mailQueue']>({ url: () => optional(envNames.mailQueueUrl), consumers: () => positiveInt(env, envNames.mailConsumers, 1) }),
    bulkBucket: () => optional(envNames.bulkBucket),
    events: () => lazily<Config['events']>({ busName: () => optional(envNames.eventBusName), typePrefix: () => eventTypePrefix(env) }),
    webhooks: () =>
      lazily<WebhookSettings>({
        allowLoopbackHttp: () => flag(env, envNames.webhookAllowLoopbackHttp),
        retrySeconds: () => positiveInt(env, envNames.webhookRetrySeconds, DAY_SECONDS),
        disableAfterSeconds: () => positiveInt(env, envNames.webhookDisableAfterSeconds, DAY_SECONDS),
        secretOverlapSeconds: () => positiveInt(env, envNames.webhookSecretOverlapSeconds, DAY_SECONDS),
        firstRetryMs: () => positiveInt(env, envNames.webhookFirstRetryMs, 5_000),
        pollMs: () => positiveInt(env, envNames.webhookPollMs, 250),
      }),
    sealingKeys: () =>
      lazily<Config['sealingKeys']>({ providerSecrets: () => optional(envNames.providerSecretsKey), mailPasswords: () => optional(envNames.mailPasswordsKey) }),
    endpoints: () =>
      lazily<Config['endpoints']>({
        dynamodb: () => optional(envNames.dynamodbEndpoint),
        cognito: () => optional(envNames.cognitoEndpoint),
        kms: () => optional(envNames.kmsEndpoint),
        s3: () => optional(envNames.s3Endpoint),
        ses: () => optional(envNames.sesEndpoint),
        eventbridge: () => optional(envNames.eventbridgeEndpoint),
        sqs: () => optional(envNames.sqsEndpoint),
      }),
  });
}

/**
 * One configuration per environment object: in Lambda `process.env` is one object for the life of the
 * process; on the local stack, where every function runs in one process, it is the running function's own.
 */
const configurations = new WeakMap<NodeJS.ProcessEnv, Config>();

/** The configuration of the environment in effect (`process.env`), each setting read on first use. */
export function config(): Config {
  const env = process.env;
  let current = configurations.get(env);
  if (!current) {
    current = readConfig(env);
    configurations.set(env, current);
  }
  return current;
}
