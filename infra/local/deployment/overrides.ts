import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { envNames, type Subpaths } from '../../../shared/kernel/config';
import { localArn } from '../kernel/local-account';
import { referenced } from '../template/cfn';

/** The overrides table: everything the local stack runs otherwise than the synthesized template says, each with its reason (docs/local-stack.md#the-overrides-table). */

/** The retry delays from `LOCAL_ASYNC_RETRY_DELAYS_MS`, else 1 s and 2 s. */
export function retryDelaysFromEnv(value = process.env.LOCAL_ASYNC_RETRY_DELAYS_MS): number[] {
  if (value === undefined || value.trim() === '') return [1000, 2000];
  const delays = value.split(',').map((part) => Number(part.trim()));
  if (delays.length > 2 || delays.some((delay) => !Number.isInteger(delay) || delay < 0)) {
    throw new Error(`LOCAL_ASYNC_RETRY_DELAYS_MS must list at most 2 waits in milliseconds, like "1000,2000" (got "${value}")`);
  }
  return delays;
}

/** The local ARN of the template's KMS key that `declared` (a `Fn::GetAtt` or `Ref`) names: its logical id as the key id, as local IAM reads it. */
export function localKeyArn(declared: unknown): string | undefined {
  const id = referenced(declared);
  return id ? localArn('kms', `key/${id}`) : undefined;
}

/** What the local stack made, whose values replace the template's references to AWS's resources. */
export interface LocalResources {
  apiUrl: string;
  subpaths: Subpaths;
  tableName: string;
  bucketName: string;
  eventBusName: string;
  userPoolId: string;
  userPoolClientId: string;
  signingKeyFile: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  endpoints: { dynamodb: string; cognito: string; s3: string; ses: string; eventbridge: string; sqs: string; kms: string };
  /** The local URL of the queue a template's reference (`{ Ref: <queue> }`) names. */
  queueUrlOf(reference: unknown): string | undefined;
  /** The environment `npm start` was given: the laptop's own choices. */
  processEnv: NodeJS.ProcessEnv;
}

/**
 * `replace` gives a function whose template declares the variable this value instead (none when undefined);
 * `local-only` gives every function a variable the template never declares (in AWS the code's default is meant).
 */
export interface VariableOverride {
  variable: string;
  kind: 'replace' | 'local-only';
  value(local: LocalResources, declared?: unknown): string | undefined;
  reason: string;
}

const replace = (variable: string, value: VariableOverride['value'], reason: string): VariableOverride => ({ variable, kind: 'replace', value, reason });
const localOnly = (variable: string, value: VariableOverride['value'], reason: string): VariableOverride => ({ variable, kind: 'local-only', value, reason });

export const environmentOverrides: readonly VariableOverride[] = [
  replace(envNames.tableName, (l) => l.tableName, "the local table in DynamoDB Local (the template's Ref names the stack's table)"),
  replace(envNames.userPoolId, (l) => l.userPoolId, "the local user pool in cognito-local (the template's Ref names the stack's pool)"),
  replace(envNames.userPoolClientId, (l) => l.userPoolClientId, "the local pool's console client (the template's Ref names the stack's)"),
  replace(envNames.signingKey, (l) => `file:${l.signingKeyFile}`, 'a P-256 key in the data directory (signing-key.json): there is no KMS locally'),
  replace(envNames.providerSecretsKey, (_l, declared) => localKeyArn(declared), "the local KMS's key of the same logical id (its material in the data directory, sealing-keys.json)"),
  replace(envNames.mailPasswordsKey, (_l, declared) => localKeyArn(declared), "the local KMS's key of the same logical id (its material in the data directory, sealing-keys.json)"),
  replace(envNames.tokenIssuer, (l) => `${l.apiUrl}/auth`, "the local gateway's address (the template joins the HTTP API's endpoint)"),
  replace(envNames.signInUrl, (l) => `${l.apiUrl}/auth/realms/{realm}/account?kc_locale={locale}`, "the account page on the local gateway (the template's is on the HTTP API)"),
  replace(envNames.bulkBucket, (l) => l.bucketName, "the local bucket (the template's Ref names the stack's bucket)"),
  replace(envNames.mailQueueUrl, (l, declared) => l.queueUrlOf(declared), "the local SQS's URL of the queue the template's Ref names"),
  replace(envNames.eventBusName, (l) => l.eventBusName, "the local EventBridge bus (the template's Ref names the stack's bus, or an existing one)"),
  replace(envNames.mailFrom, () => 'Management API <no-reply@management-api.local>', "a sender the local SES takes (the stack's is an identity verified in the account)"),
  replace(envNames.sesConfigurationSet, () => undefined, 'unset: the local SES has no configuration sets'),
  replace(envNames.mailConsumers, () => '1', 'one poller drains the mail queue locally, at the whole send rate (AWS: two invocations, each at half)'),
  replace(envNames.generativeSubpath, (l) => l.subpaths.generative, "the local gateway's subpaths (GENERATIVE_SUBPATH of npm start), which the functions share"),
  replace(envNames.userSubpath, (l) => l.subpaths.user, "the local gateway's subpaths (USER_SUBPATH of npm start), which the functions share"),
  replace('POWERTOOLS_LOG_LEVEL', (l, declared) => l.processEnv.POWERTOOLS_LOG_LEVEL ?? String(declared), "the laptop's log level (the integration tests run SILENT)"),
  localOnly(envNames.region, (l) => l.region, 'Lambda sets AWS_REGION itself; the template never declares it'),
  localOnly('AWS_ACCESS_KEY_ID', (l) => l.credentials.accessKeyId, "the emulators' credentials (Lambda gives a function its role's session)"),
  localOnly('AWS_SECRET_ACCESS_KEY', (l) => l.credentials.secretAccessKey, "the emulators' credentials (Lambda gives a function its role's session)"),
  localOnly(envNames.dynamodbEndpoint, (l) => l.endpoints.dynamodb, 'DynamoDB Local (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.cognitoEndpoint, (l) => l.endpoints.cognito, 'cognito-local (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.s3Endpoint, (l) => l.endpoints.s3, 'the local S3 behind the POST policy check (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.sesEndpoint, (l) => l.endpoints.ses, 'aws-ses-v2-local (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.eventbridgeEndpoint, (l) => l.endpoints.eventbridge, 'the local EventBridge (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.kmsEndpoint, (l) => l.endpoints.kms, 'the local KMS of the sealing keys (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.sqsEndpoint, (l) => l.endpoints.sqs, 'the local SQS (in AWS unset: the SDK finds the service)'),
  localOnly(envNames.webhookAllowLoopbackHttp, () => 'true', 'the stack is on loopback itself: receivers at http://127.0.0.1:<port> are allowed (never in AWS)'),
  localOnly(envNames.webhookFirstRetryMs, () => '1000', 'webhook retries a laptop sees within seconds (AWS: 5 s, doubling)'),
  localOnly(envNames.webhookPollMs, () => '100', 'a sweep looks for due webhook deliveries 10 times a second (AWS: 4), so they leave at once'),
];

/** A setting of the deployment (not a variable) the local stack runs otherwise, and why. */
export interface DeploymentOverride<T> { value: T; reason: string }

/** The mail queue's visibility timeout from `LOCAL_MAIL_VISIBILITY_SECONDS`, if set. */
export const VISIBILITY_ENV = 'LOCAL_MAIL_VISIBILITY_SECONDS';

export function visibilityFromEnv(setting = process.env[VISIBILITY_ENV]): number | undefined {
  if (setting === undefined || setting === '') return undefined;
  const value = Number(setting);
  if (!Number.isInteger(value) || value < 0 || value > 43_200) throw new Error(`${VISIBILITY_ENV} must be a whole number of seconds from 0 to 43200 (got "${setting}")`);
  return value;
}

const setting = <T>(value: T, reason: string): DeploymentOverride<T> => ({ value, reason });

export const deploymentOverrides = {
  queueNames: setting<Readonly<Record<string, string>>>(
    { 'MailQueue/Queue': 'mail', 'MailQueue/DeadLetters': 'mail-dead-letters' },
    'the names the docs and the tests use (CloudFormation names queues in AWS); any other queue is named by its construct path in kebab case',
  ),
  queueVisibilitySeconds: setting(
    (path: string): number | undefined => (path === 'MailQueue/Queue' ? visibilityFromEnv() : undefined),
    `${VISIBILITY_ENV} shortens the mail queue's visibility timeout (the tests take 3 s to see a retry)`,
  ),
  maxConcurrency: setting<Partial<Record<ResourceGroup, number>>>({ mail: 1 }, "one consumer of the mail queue, as MAIL_CONSUMERS says (AWS: the mapping's minimum, two)"),
  maxBatchingWindowSeconds: setting(0, "a queue's batch is handed over as soon as a message is there, so a failed bulk upload's job is marked failed at once"),
  streamPollMs: setting(100, "an idle table stream is read 10 times a second (Lambda's pollers: about 4), for a laptop's latency"),
  streamRetryBaseMs: setting(200, 'a failed stream batch is retried after 200 ms, doubling up to 6.4 s (Lambda: about a second and up)'),
  asyncRetryDelaysMs: setting(retryDelaysFromEnv, "an asynchronous invocation's retries wait 1 s and 2 s, or LOCAL_ASYNC_RETRY_DELAYS_MS (Lambda: about 1 and 2 minutes)"),
  scheduleEveryMs: setting(4_000, 'a schedule fires every 4 s (the template: each minute), so a sweep of due webhook deliveries is always running'),
  scheduleTimeoutMs: setting(20_000, 'a scheduled invocation has 20 s (the publisher function: 90 s), so a sweep looks for 5 s and the stack stops within seconds'),
};
