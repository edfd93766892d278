import type { Node } from 'constructs';
import { defaultSubpaths, type Subpaths } from '../../shared/routes';
import { envNames } from '../../shared/config';

/**
 * Everything the stack reads from CDK context (`cdk synth -c key=value` or cdk.json), each value
 * optional. `-c` always passes strings, cdk.json may pass numbers: both are accepted.
 */
export const contextDefaults = {
  stackName: 'AgentPlatformManagementApi',
  senderEmail: 'no-reply@example.com',
  throttleRateLimit: 50,
  throttleBurstLimit: 100,
  logLevel: 'INFO',
} as const;

const logLevels = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/** Context keys for token lifetimes, mapped to the environment variables `shared/config.ts` reads. */
const tokenLifetimeKeys = {
  accessTokenSeconds: envNames.accessTokenSeconds,
  refreshTokenSeconds: envNames.refreshTokenSeconds,
  sessionMaxSeconds: envNames.sessionMaxSeconds,
} as const;

export interface StackSettings {
  readonly stackName: string;
  readonly senderEmail: string;
  readonly subpaths: Subpaths;
  /** Unset: the API's own endpoint followed by `/auth`. */
  readonly tokenIssuer?: string;
  /**
   * The sign-in address e-mails to users give, `{realm}` standing for the organization's name (say,
   * the console's). Unset: the realm's token endpoint on this API.
   */
  readonly signInUrl?: string;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logLevel: string;
  /** An existing SNS topic that every alarm notifies. */
  readonly alarmTopicArn?: string;
  /** Set only for the lifetimes given in context; the functions' own defaults apply otherwise. */
  readonly tokenLifetimes: Readonly<Record<string, string>>;
}

/** Reads and checks the stack's context values, failing synth with a message naming the bad key. */
export function readSettings(node: Node): StackSettings {
  const text = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new Error(`Context value "${key}" must be a string`);
    return value;
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

  const senderEmail = text('senderEmail') ?? contextDefaults.senderEmail;
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(senderEmail)) {
    throw new Error(`Context value "senderEmail" must be an e-mail address (got "${senderEmail}")`);
  }
  const logLevel = (text('logLevel') ?? contextDefaults.logLevel).toUpperCase();
  if (!logLevels.includes(logLevel)) {
    throw new Error(`Context value "logLevel" must be one of ${logLevels.join(', ')} (got "${logLevel}")`);
  }
  const tokenLifetimes: Record<string, string> = {};
  for (const [key, variable] of Object.entries(tokenLifetimeKeys)) {
    const seconds = positiveInt(key);
    if (seconds !== undefined) tokenLifetimes[variable] = String(seconds);
  }

  return {
    stackName: text('stackName') ?? contextDefaults.stackName,
    senderEmail,
    subpaths: {
      generative: text('generativeSubpath') ?? defaultSubpaths.generative,
      user: text('userSubpath') ?? defaultSubpaths.user,
    },
    tokenIssuer: text('tokenIssuer'),
    signInUrl: text('signInUrl'),
    throttle: {
      rateLimit: positiveInt('throttleRateLimit') ?? contextDefaults.throttleRateLimit,
      burstLimit: positiveInt('throttleBurstLimit') ?? contextDefaults.throttleBurstLimit,
    },
    logLevel,
    alarmTopicArn: text('alarmTopicArn'),
    tokenLifetimes,
  };
}
