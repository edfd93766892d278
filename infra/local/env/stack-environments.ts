import { join } from 'node:path';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { functionEnvironments, toolEnvironment, type FunctionEnvironments } from '../deployment/function-environments';
import type { LocalResources } from '../deployment/overrides';
import type { TemplateDeployment } from '../template/template-deployment';
import { functionEnvironment, useFunctionEnvironments } from './process-env';
import { concurrentInvocationsEnv } from '../kernel/function-context';
import { keptReport } from '../kernel/write-whole';

/**
 * Gives each function of the template its own environment as `process.env` while it runs, recording its
 * undeclared reads; outside any function the process gains the tools' environment, so seeding sees the stack.
 */
export function useStackEnvironments(deployment: TemplateDeployment, local: LocalResources, reportDir: string) {
  const functions = functionEnvironments(deployment, local);
  const tools = toolEnvironment(functions);
  Object.assign(process.env, tools);
  const reads = recordEnvReads(reportDir);
  const objects = new Map<ResourceGroup, NodeJS.ProcessEnv>(
    deployment.functions.map(({ group, environment }) => [group, functionEnvironment(group, { ...functions.get(group)!, ...concurrentInvocationsEnv }, new Set(Object.keys(environment)), reads.record)]),
  );
  // `tools`: what runs outside any function sees; `stop` puts `process.env` back as it was before.
  return { functions: functions as FunctionEnvironments, tools, stop: useFunctionEnvironments(objects) };
}

/** What the functions read of the environment that their templates do not declare (unset in AWS): `<data dir>/env-report.json`. */

export type EnvReads = ReturnType<typeof recordEnvReads>;
export type EnvReport = ReturnType<EnvReads['report']>;

export const envReportFile = (dataDir: string) => join(dataDir, 'env-report.json');

/** Records undeclared reads; with `reportDir`, keeps `env-report.json` there up to date. */
export function recordEnvReads(reportDir?: string) {
  const reads = new Map<ResourceGroup, Map<string, number>>();
  const report = () => ({
    generatedAt: new Date().toISOString(),
    /** Per function, each product variable it read that its template does not declare, and how often. */
    functions: Object.fromEntries(
      [...reads].map(([group, counts]) => [group, [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([variable, count]) => ({ variable, reads: count }))]),
    ),
  });
  const kept = keptReport('env-report.json', () => (reportDir ? { [envReportFile(reportDir)]: JSON.stringify(report(), null, 2) } : undefined));
  kept.write();
  return {
    ...kept,
    report,
    record: (group: ResourceGroup, variable: string) => {
      const counts = reads.get(group) ?? new Map<string, number>();
      reads.set(group, counts.set(variable, (counts.get(variable) ?? 0) + 1));
      kept.changed();
    },
  };
}
