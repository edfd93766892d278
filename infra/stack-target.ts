/**
 * The stack a tool talks to (the operator CLI, `sam:env`, `sam:event`, the benchmarks, the integration
 * tests' set-up): a running local stack, found through its data directory, or a deployed one, found
 * through the outputs file of `cdk deploy --outputs-file <file>`. Never imported by what ships.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultSubpaths, envNames, type Subpaths } from '../shared/kernel/config';
import { liveHolder } from './local/data-dir-lock';
import { functionEnvFile, toolEnvironmentOf } from './local/env/function-env-file';
import type { StackInfo } from './local/stack';

interface Addresses {
  apiUrl: string;
  /** Where the realms' token endpoints are (`{authUrl}/auth/realms/{realm}/…`). */
  authUrl: string;
  clientId: string;
  subpaths: Subpaths;
  bulkBucket: string;
}

/** A local stack that answers: its description (`stack.json`) and what its functions' environments share (`function-env.json`). */
export interface LocalTarget extends Addresses {
  kind: 'local';
  dataDir: string;
  info: StackInfo;
  functionEnv: Record<string, string>;
}

/** A deployed stack: its name and its CloudFormation outputs. */
export interface DeployedTarget extends Addresses {
  kind: 'deployed';
  stackName: string;
  outputs: Record<string, string>;
}

export type StackTarget = LocalTarget | DeployedTarget;

/** Nothing to talk to where the caller pointed; the message says what to do. Command line tools exit 2 on it. */
export class NoStackError extends Error {}

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

/**
 * The local stack's description, if one that answers wrote it (at or after `since`, epoch ms: a killed
 * stack leaves its own behind); undefined while it starts, after it stopped, or when caught half-written.
 */
export function localStackInfo(dataDir: string, since = 0): StackInfo | undefined {
  const file = join(dataDir, 'stack.json');
  try {
    return statSync(file).mtimeMs < since ? undefined : readJson<StackInfo>(file);
  } catch {
    return undefined;
  }
}

/**
 * The local stack running on `dataDir`. Throws `NoStackError` when there is none (`orElse` names another
 * way, as "pass --outputs <file>") or when it is still starting.
 */
export function runningLocalStack(dataDir: string, { orElse }: { orElse?: string } = {}): LocalTarget {
  const info = localStackInfo(dataDir);
  if (!info || !existsSync(functionEnvFile(dataDir))) {
    if (liveHolder(dataDir)) throw new NoStackError(`The local stack in ${dataDir} is still starting: try again once it prints its banner`);
    throw new NoStackError(`No local stack in ${dataDir}: start it with npm start${orElse ? `, or ${orElse}` : ''}`);
  }
  const functionEnv = toolEnvironmentOf(dataDir);
  const subpaths = { generative: info.generativeSubpath, user: info.userSubpath };
  return { kind: 'local', dataDir, info, functionEnv, apiUrl: info.apiUrl, authUrl: info.authUrl, clientId: info.clientId, subpaths, bulkBucket: functionEnv[envNames.bulkBucket] ?? '' };
}

/** The stack `cdk deploy --outputs-file <file>` described (`{ "<stack>": { "<output>": value } }`). */
export function deployedStack(outputsFile: string): DeployedTarget {
  if (!existsSync(outputsFile)) throw new NoStackError(`No outputs file at ${outputsFile} (cdk deploy --outputs-file ${outputsFile})`);
  const [stackName, outputs] = Object.entries(readJson<Record<string, Record<string, string>>>(outputsFile))[0] ?? [];
  if (!stackName || !outputs) throw new NoStackError(`${outputsFile} names no stack`);
  const base = (url: string | undefined) => (url ?? '').replace(/\/$/, '');
  return {
    kind: 'deployed',
    stackName,
    outputs,
    apiUrl: base(outputs.ApiUrl),
    authUrl: base(outputs.AuthUrl ?? outputs.ApiUrl),
    clientId: outputs.UserPoolClientId ?? '',
    subpaths: { generative: outputs.GenerativeSubpath ?? defaultSubpaths.generative, user: outputs.UserSubpath ?? defaultSubpaths.user },
    bulkBucket: outputs.BulkBucketName ?? '',
  };
}

/** What the handler modules read to reach the stack (names from shared/kernel/config.ts); a deployed stack's from its outputs. */
export function functionEnvironment(target: StackTarget): Record<string, string> {
  if (target.kind === 'local') return target.functionEnv;
  const need = (name: string) => {
    const value = target.outputs[name];
    if (!value) throw new NoStackError(`The outputs file has no ${name}`);
    return value;
  };
  return {
    [envNames.tableName]: need('TableName'),
    [envNames.userPoolId]: need('UserPoolId'),
    [envNames.userPoolClientId]: need('UserPoolClientId'),
    [envNames.signingKey]: `kms:${need('SigningKeyArn')}`,
    [envNames.tokenIssuer]: target.outputs.TokenIssuer ?? `${need('ApiUrl').replace(/\/$/, '')}/auth`,
    [envNames.bulkBucket]: need('BulkBucketName'),
    // The sealing keys: an operator's own role needs their grants to seal or open with them.
    ...(target.outputs.ProviderSecretsKeyArn ? { [envNames.providerSecretsKey]: target.outputs.ProviderSecretsKeyArn } : {}),
    ...(target.outputs.MailPasswordsKeyArn ? { [envNames.mailPasswordsKey]: target.outputs.MailPasswordsKeyArn } : {}),
  };
}

/** Points this process's product modules at the stack: call it before any of them reads its configuration. */
export function useStackEnvironment(target: StackTarget): void {
  Object.assign(process.env, functionEnvironment(target));
}

/**
 * Waits for a local stack being started on `dataDir` to describe itself (and, with `serves`, to pass
 * that check too), polling every `pollMs`. Answers why not when its process ends (`alive` false) or
 * `timeoutMs` passes first.
 */
export async function awaitLocalStack(
  dataDir: string,
  options: { alive: () => boolean; timeoutMs: number; since?: number; pollMs?: number; serves?: (info: StackInfo) => Promise<boolean> },
): Promise<{ info: StackInfo } | { failed: 'exited' | 'timeout' }> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() <= deadline) {
    if (!options.alive()) return { failed: 'exited' };
    const info = localStackInfo(dataDir, options.since);
    if (info && (!options.serves || (await options.serves(info)))) return { info };
    await sleep(options.pollMs ?? 50);
  }
  return { failed: 'timeout' };
}

/** A password grant for a realm's user at the stack's token endpoint. */
export function passwordGrant(stack: Pick<Addresses, 'authUrl' | 'clientId'>, realm: string, username: string, password: string): Promise<Response> {
  return fetch(`${stack.authUrl}/auth/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: stack.clientId, username, password }),
  });
}
