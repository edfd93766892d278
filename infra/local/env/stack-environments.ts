import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { declaredVariables, functionEnvironments, toolEnvironment, type FunctionEnvironments } from '../deployment/function-environments';
import type { LocalResources } from '../deployment/overrides';
import type { TemplateDeployment } from '../template/template-deployment';
import { recordEnvReads } from './env-report';
import { functionEnvironment, useFunctionEnvironments } from './process-env';
import { concurrentInvocationsEnv } from '../kernel/function-context';

/**
 * Gives each function of the template its own environment as `process.env` while it runs, recording its
 * undeclared reads; outside any function the process gains the tools' environment, so seeding sees the stack.
 */
export function useStackEnvironments(deployment: TemplateDeployment, local: LocalResources, reportDir: string) {
  const functions = functionEnvironments(deployment, local);
  const tools = toolEnvironment(functions);
  Object.assign(process.env, tools);
  const reads = recordEnvReads(reportDir);
  const declared = declaredVariables(deployment);
  const objects = new Map<ResourceGroup, NodeJS.ProcessEnv>(
    [...functions].map(([group, env]) => [group, functionEnvironment(group, { ...env, ...concurrentInvocationsEnv }, declared.get(group) ?? new Set(), reads.record)]),
  );
  // `tools`: what runs outside any function sees; `stop` puts `process.env` back as it was before.
  return { functions: functions as FunctionEnvironments, tools, stop: useFunctionEnvironments(objects) };
}
