import type { Node } from 'constructs';
import { defaultSubpaths, resourceGroups, type ResourceGroup, type Subpaths } from '../../shared/edge/api/routes';
import { DEFAULT_EVENT_TYPE_PREFIX, envNames, EVENT_TYPE_PREFIX_PATTERN } from '../../shared/kernel/config';

/**
 * Everything the stack reads from CDK context (`cdk synth -c key=value` or cdk.json), each value
 * optional. `-c` always passes strings, cdk.json may pass numbers: both are accepted.
 */
export const contextDefaults = {
  stackName: 'AgentPlatformManagementApi',
  /**
   * A placeholder that can never be verified (`.invalid` is reserved), so `cdk synth` works offline
   * with no context at all while the address itself says what is missing. `-c deploy=true` (the
   * deploy command of docs/operations/deploy.md#3-deploy) refuses it: a deployed stack needs `-c senderEmail=<address you own>`.
   */
  senderEmail: 'set-sender-email@sender-not-configured.invalid',
  /** The stage's default, for `$default` and any route whose group has no limits of its own. */
  throttleRateLimit: 50,
  throttleBurstLimit: 100,
  logLevel: 'INFO',
  /** API 5xx answers, in percent of requests in 5 minutes, that raise the alarm. */
  apiErrorRatePercent: 1,
  /** API Gateway's p99 `Latency`, over 3 consecutive 5-minute periods (bulk requests may wait 25 s). */
  apiLatencyP99Ms: 5000,
  /** Reserved concurrency of the bulk worker: imports never starve the API (see workerConcurrency). */
  workerConcurrency: 2,
} as const;

/**
 * Per-route throttling: the token endpoint (`throttleTokenRate`, `throttleTokenBurst`) and each
 * resource group's routes (`throttle<Group>Rate`, `throttle<Group>Burst`, e.g. `throttleUsersRate`).
 * The token endpoint is the one route anyone may call without a token: its own limits keep a client
 * hammering it from the other routes' account-wide share, and stay under Cognito's default
 * AdminInitiateAuth quota (120 requests a second per account) with sign-ins and refreshes of a busy
 * month (about 16 a second at 100 million requests, docs/operations/cost.md#assumptions) well within them. Bulk writes
 * hold a function up to 25 s each; bulk reads (a job's status, polled) take the stage's default.
 * At 100 million requests a month (about 160 a second in business hours) raise the stage's limits.
 */
export const throttleDefaults: { readonly token: Throttle } & Readonly<Partial<Record<ResourceGroup, Throttle>>> = {
  token: { rateLimit: 40, burstLimit: 80 },
  auth: { rateLimit: 50, burstLimit: 100 },
  users: { rateLimit: 50, burstLimit: 100 },
  supervisors: { rateLimit: 50, burstLimit: 100 },
  agents: { rateLimit: 50, burstLimit: 100 },
  configurations: { rateLimit: 50, burstLimit: 100 },
  bulk: { rateLimit: 5, burstLimit: 10 },
  // Every organization's directory together: each is held to 50 a second by the function itself (shared/app/scim/scim-rate-limit.ts).
  scim: { rateLimit: 100, burstLimit: 200 },
  // The public API reference: a page load is five requests, mostly cacheable for a day; its script is 1.7 MB.
  docs: { rateLimit: 20, burstLimit: 40 },
  // The change feed: a request may hold its function up to 20 s, so its rate bounds the instances it holds (10 a second: at most about 200).
  feed: { rateLimit: 10, burstLimit: 20 },
};

const logLevels = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/** Context keys for token lifetimes, mapped to the environment variables `shared/kernel/config.ts` reads. */
const tokenLifetimeKeys = {
  accessTokenSeconds: envNames.accessTokenSeconds,
  refreshTokenSeconds: envNames.refreshTokenSeconds,
  sessionMaxSeconds: envNames.sessionMaxSeconds,
  offlineSessionIdleSeconds: envNames.offlineSessionIdleSeconds,
} as const;

export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/** `throttleUsersRate`, `throttleBulkWorkerBurst`: the context key of a group's limit. */
export const pascalCase = (group: string): string =>
  group.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

export interface StackSettings {
  readonly stackName: string;
  readonly senderEmail: string;
  /** Use this existing, verified SES identity (the sender's address or its domain) instead of creating one. */
  readonly importedSenderIdentity?: string;
  readonly subpaths: Subpaths;
  /** Unset: the API's own endpoint followed by `/auth`. */
  readonly tokenIssuer?: string;
  /**
   * The sign-in address e-mails to users give, `{realm}` standing for the organization's name (say,
   * the console's). Unset: the realm's token endpoint on this API.
   */
  readonly signInUrl?: string;
  /**
   * Redirect URIs the authorization endpoint accepts besides loopback ones and the reference's page:
   * the console's own addresses (`-c authRedirectUris="https://console.example.com/callback …"`).
   */
  readonly authRedirectUris: readonly string[];
  /** The stage's default limits. */
  readonly throttle: Throttle;
  /** The token endpoint's limits and each group's (groups without routes have none). */
  readonly routeThrottles: { readonly token: Throttle } & Readonly<Partial<Record<ResourceGroup, Throttle>>>;
  readonly logLevel: string;
  /** An existing SNS topic that every alarm notifies; unset, the stack creates its own. */
  readonly alarmTopicArn?: string;
  /** Subscribed by e-mail to the stack's own alarm topic. */
  readonly alarmEmail?: string;
  readonly apiErrorRatePercent: number;
  readonly apiLatencyP99Ms: number;
  /** Reserved concurrency of the bulk worker; undefined (`-c workerConcurrency=none`) reserves none. */
  readonly workerConcurrency?: number;
  /** Reserved concurrency of the bulk HTTP function; none unless given (management-api-stack.ts says why). */
  readonly bulkConcurrency?: number;
  /** Set only for the lifetimes given in context; the functions' own defaults apply otherwise. */
  readonly tokenLifetimes: Readonly<Record<string, string>>;
  /** How long audit events are kept, in days (their TTL); unset, the functions' default (400 days). */
  readonly auditRetentionDays?: number;
  /** An existing EventBridge bus change events go to (`-c eventBusName=…`); unset, the stack's own bus. */
  readonly eventBusName?: string;
  /** The prefix of change events' types and their EventBridge `source` (`-c eventTypePrefix=…`). */
  readonly eventTypePrefix: string;
}

const emailPattern = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Reads and checks the stack's context values, failing synth with a message naming the bad key. */
export function readSettings(node: Node): StackSettings {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new Error(`Context value "${key}" must be a string`);
    return value;
  };
  const flag = (key: string): boolean => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '' || value === false || value === 'false') return false;
    if (value === true || value === 'true') return true;
    throw new Error(`Context value "${key}" must be true or false (got ${JSON.stringify(value)})`);
  };
  const positiveInt = (key: string): number | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    if (!Number.isInteger(parsed) || parsed <= 0) {
      throw new Error(`Context value "${key}" must be a positive integer (got ${JSON.stringify(value)})`);
    }
    return parsed;
  };
  const email = (key: string): string | undefined => {
    const value = text(key);
    if (value !== undefined && !emailPattern.test(value)) {
      throw new Error(`Context value "${key}" must be an e-mail address (got "${value}")`);
    }
    return value;
  };

  const givenSender = email('senderEmail');
  if (flag('deploy') && givenSender === undefined) {
    throw new Error(
      'Context value "senderEmail" is required to deploy (-c deploy=true): an address you can receive mail at, ' +
        'or one in a domain verified in SES; see docs/operations/deploy.md',
    );
  }
  const senderEmail = givenSender ?? contextDefaults.senderEmail;
  const importedSenderIdentity = readImportedIdentity(text('importSenderIdentity'), senderEmail);

  const logLevel = (text('logLevel') ?? contextDefaults.logLevel).toUpperCase();
  if (!logLevels.includes(logLevel)) {
    throw new Error(`Context value "logLevel" must be one of ${logLevels.join(', ')} (got "${logLevel}")`);
  }
  const tokenLifetimes: Record<string, string> = {};
  for (const [key, variable] of Object.entries(tokenLifetimeKeys)) {
    const seconds = positiveInt(key);
    if (seconds !== undefined) tokenLifetimes[variable] = String(seconds);
  }
  const throttleOf = (prefix: string, fallback: Throttle): Throttle => ({
    rateLimit: positiveInt(`${prefix}Rate`) ?? fallback.rateLimit,
    burstLimit: positiveInt(`${prefix}Burst`) ?? fallback.burstLimit,
  });
  const routeThrottles: Partial<Record<ResourceGroup, Throttle>> = {};
  for (const group of resourceGroups) {
    const fallback = throttleDefaults[group];
    if (fallback) routeThrottles[group] = throttleOf(`throttle${pascalCase(group)}`, fallback);
  }
  // Not text(key): that refuses the numbers cdk.json may give (`"workerConcurrency": 4`).
  const concurrency = (key: string, fallback?: number): number | undefined =>
    node.tryGetContext(key) === 'none' ? undefined : (positiveInt(key) ?? fallback);

  return {
    stackName: text('stackName') ?? contextDefaults.stackName,
    senderEmail,
    importedSenderIdentity,
    subpaths: {
      generative: text('generativeSubpath') ?? defaultSubpaths.generative,
      user: text('userSubpath') ?? defaultSubpaths.user,
    },
    tokenIssuer: text('tokenIssuer'),
    signInUrl: text('signInUrl'),
    authRedirectUris: redirectUrisOf(node.tryGetContext('authRedirectUris')),
    throttle: {
      rateLimit: positiveInt('throttleRateLimit') ?? contextDefaults.throttleRateLimit,
      burstLimit: positiveInt('throttleBurstLimit') ?? contextDefaults.throttleBurstLimit,
    },
    routeThrottles: { token: throttleOf('throttleToken', throttleDefaults.token), ...routeThrottles },
    logLevel,
    alarmTopicArn: text('alarmTopicArn'),
    alarmEmail: email('alarmEmail'),
    apiErrorRatePercent: positiveInt('apiErrorRatePercent') ?? contextDefaults.apiErrorRatePercent,
    apiLatencyP99Ms: positiveInt('apiLatencyP99Ms') ?? contextDefaults.apiLatencyP99Ms,
    workerConcurrency: concurrency('workerConcurrency', contextDefaults.workerConcurrency),
    bulkConcurrency: concurrency('bulkConcurrency'),
    tokenLifetimes,
    auditRetentionDays: positiveInt('auditRetentionDays'),
    eventBusName: text('eventBusName'),
    eventTypePrefix: eventTypePrefixOf(text('eventTypePrefix')),
  };
}

/**
 * `importSenderIdentity=true` imports the sender's own address identity; any other value names the
 * existing identity (the sender's address or its domain). `false` or unset: the stack creates one.
 */
function readImportedIdentity(value: string | undefined, senderEmail: string): string | undefined {
  if (value === undefined || value === 'false') return undefined;
  if (value === 'true') return senderEmail;
  const domain = senderEmail.slice(senderEmail.indexOf('@') + 1).toLowerCase();
  if (value.toLowerCase() !== senderEmail.toLowerCase() && value.toLowerCase() !== domain) {
    throw new Error(
      `Context value "importSenderIdentity" must be true, false, the sender's address or its domain "${domain}" (got "${value}")`,
    );
  }
  return value;
}

/** The change events' type prefix: a reverse-DNS name, as the functions check it at cold start. */
function eventTypePrefixOf(value: string | undefined): string {
  if (value === undefined) return DEFAULT_EVENT_TYPE_PREFIX;
  if (!EVENT_TYPE_PREFIX_PATTERN.test(value)) throw new Error(`Context value "eventTypePrefix" must be a reverse-DNS name like com.example (got "${value}")`);
  return value;
}

/**
 * `authRedirectUris`: absolute https addresses (or http on loopback), without a fragment, separated by
 * spaces or commas (or a list in cdk.json). Each is compared exactly with what a client sends.
 */
function redirectUrisOf(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const given = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : undefined;
  if (!given || given.some((uri) => typeof uri !== 'string')) throw new Error('Context value "authRedirectUris" must be addresses separated by spaces or commas, or a list of them');
  for (const uri of given as string[]) {
    let url: URL | undefined;
    try {
      url = new URL(uri);
    } catch {
      url = undefined;
    }
    const loopback = url?.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
    if (!url || (url.protocol !== 'https:' && !loopback) || uri.includes('#')) {
      throw new Error(`Context value "authRedirectUris" holds "${uri}": each must be an absolute https address (http only on loopback) without a fragment`);
    }
  }
  return given as string[];
}
