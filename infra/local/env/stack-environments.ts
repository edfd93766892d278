import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { declaredVariables, functionEnvironments, toolEnvironment, type FunctionEnvironments } from '../deployment/function-environments';
import type { LocalResources } from '../deployment/overrides';
import type { TemplateDeployment } from '../template/template-deployment';
import { recordEnvReads } from './env-report';
import { functionEnvironment, useFunctionEnvironments } from './process-env';
import { concurrentInvocationsEnv } from '../kernel/function-context';

export interface StackEnvironments {
  /** Each function's own environment. */
  functions: FunctionEnvironments;
  /** What runs outside any function sees: the process's own environment with the tools' (`toolEnvironment`). */
  tools: Record<string, string>;
  /** Puts `process.env` back as it was before. */
  stop(): void;
}

/**
 * Gives each function of the template its own environment (`deployment/function-environments.ts`), as
 * `process.env` while it runs, recording in `<reportDir>/env-report.json` every product variable a
 * function reads that its template does not declare. Outside any function the process's environment
 * gains the tools' environment, so that seeding and the handler modules' loading see the stack.
 */
export function useStackEnvironments(deployment: TemplateDeployment, local: LocalResources, reportDir: string): StackEnvironments {
  const functions = functionEnvironments(deployment, local);
  const tools = toolEnvironment(functions);
  Object.assign(process.env, tools);
  const reads = recordEnvReads(reportDir);
  const declared = declaredVariables(deployment);
  const objects = new Map<ResourceGroup, NodeJS.ProcessEnv>(
    [...functions].map(([group, env]) => [group, functionEnvironment(group, { ...env, ...concurrentInvocationsEnv }, declared.get(group) ?? new Set(), reads.record)]),
  );
  return { functions, tools, stop: useFunctionEnvironments(objects) };
}
