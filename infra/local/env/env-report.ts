import { join } from 'node:path';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { keptReport } from '../kernel/write-whole';
import type { DefaultMeant } from './defaults-meant';
import { excuses } from '../kernel/allow-list';

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

/**
 * Every undeclared read the run made that nothing excuses: not a local-only variable of the overrides
 * table (unset in AWS by design), not on the allow-list of defaults meant.
 */
export function envReportProblems(report: EnvReport, excused: { localOnly: ReadonlySet<string>; defaultsMeant: readonly DefaultMeant[] }): string[] {
  return (Object.entries(report.functions) as [ResourceGroup, EnvReport['functions'][string]][]).flatMap(([group, reads]) =>
    (reads ?? [])
      .filter(({ variable }) => !excused.localOnly.has(variable))
      .filter(({ variable }) => !excused.defaultsMeant.some((entry) => entry.variable === variable && excuses(entry, group)))
      .map(
        ({ variable, reads: count }) =>
          `${group}: read ${variable} ${count} time(s), which its function does not have in the synthesized template (in AWS it is unset). ` +
          'Give the function the variable in infra/cloud/ (the bind helper of what it names), or, if its default is meant there, ' +
          'add it to infra/local/env/defaults-meant.ts with the reason.',
      ),
  );
}
