import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { toolEnvironment, type FunctionEnvironments } from '../deployment/function-environments';

/**
 * `<data dir>/function-env.json`: each function's own environment on the running local stack, by resource group,
 * for tools that run handler modules or services against it (`npm run sam:env -- --local`, the operator CLI, the tests).
 */

export const functionEnvFile = (dataDir: string) => join(dataDir, 'function-env.json');

export function writeFunctionEnvironments(dataDir: string, environments: FunctionEnvironments): void {
  writeFileSync(functionEnvFile(dataDir), JSON.stringify(Object.fromEntries(environments), null, 2));
}

export function readFunctionEnvironments(dataDir: string): Map<ResourceGroup, Record<string, string>> {
  const written = JSON.parse(readFileSync(functionEnvFile(dataDir), 'utf8')) as Record<string, Record<string, string>>;
  return new Map(Object.entries(written) as [ResourceGroup, Record<string, string>][]);
}

/** The environment a tool outside any function uses against the stack on `dataDir` (`toolEnvironment`). */
export const toolEnvironmentOf = (dataDir: string): Record<string, string> => toolEnvironment(readFunctionEnvironments(dataDir));
