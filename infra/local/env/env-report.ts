import { join } from 'node:path';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { keptReport } from '../kernel/write-whole';

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
