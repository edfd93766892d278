import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { envNames } from '../../../shared/kernel/config';
import { environmentOverrides, type LocalResources } from './overrides';
import type { TemplateDeployment } from '../template/template-deployment';

export type FunctionEnvironments = ReadonlyMap<ResourceGroup, Readonly<Record<string, string>>>;

/** A variable whose template value is an intrinsic the overrides table does not replace. */
export class UnresolvedVariableError extends Error {}

const literal = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);

/**
 * Each function's environment: its template's variables (literals as they are, the overrides table's
 * local values), then the table's local-only variables. An intrinsic the table does not replace stops the start.
 */
export function functionEnvironments(deployment: TemplateDeployment, local: LocalResources): Map<ResourceGroup, Record<string, string>> {
  const valueOf = (group: ResourceGroup, name: string, declared: unknown): string | undefined => {
    const override = environmentOverrides.find((entry) => entry.kind === 'replace' && entry.variable === name);
    if (override) return override.value(local, declared);
    if (literal(declared)) return String(declared);
    throw new UnresolvedVariableError(
      `The ${group} function's ${name} is ${JSON.stringify(declared)} in the synthesized template, which the local stack cannot resolve: ` +
        `add ${name} to the overrides table (infra/local/deployment/overrides.ts) with its local value and the reason.`,
    );
  };
  const localOnly = environmentOverrides.filter((override) => override.kind === 'local-only');
  return new Map(
    deployment.functions.map(({ group, environment }) => {
      const values = [
        ...Object.entries(environment).map(([name, declared]) => [name, valueOf(group, name, declared)]),
        ...localOnly.map((entry) => [entry.variable, entry.value(local)]),
      ];
      return [group, Object.fromEntries(values.filter(([, value]) => value !== undefined))];
    }),
  );
}

/**
 * What a tool outside any function (the operator CLI, the tests' set-up, seeding) points the product's modules
 * with: every product variable and local-only variable that the functions having it agree on.
 */
export function toolEnvironment(environments: FunctionEnvironments): Record<string, string> {
  const wanted = new Set<string>([...Object.values(envNames), ...environmentOverrides.filter((entry) => entry.kind === 'local-only').map((entry) => entry.variable)]);
  const values = new Map<string, Set<string>>();
  for (const env of environments.values()) {
    for (const [name, value] of Object.entries(env)) if (wanted.has(name)) values.set(name, (values.get(name) ?? new Set()).add(value));
  }
  return Object.fromEntries([...values].filter(([, seen]) => seen.size === 1).map(([name, seen]) => [name, [...seen][0]!]));
}
