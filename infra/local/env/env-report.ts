import { writeFileWhole } from '../kernel/write-whole';
import { join } from 'node:path';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import type { DefaultMeant } from './defaults-meant';

/**
 * What the functions read of the environment that their templates do not declare: in AWS each such
 * variable would be unset. Written as `<data dir>/env-report.json` a few seconds after a new read and on
 * exit; the integration run's global teardown fails on any such read that is not excused.
 */

export interface EnvReport {
  generatedAt: string;
  /** Per function, each product variable it read that its template does not declare, and how often. */
  functions: Partial<Record<ResourceGroup, { variable: string; reads: number }[]>>;
}

const REPORT_FILE = 'env-report.json';
const REPORT_DELAY_MS = 2_000;

export interface EnvReads {
  record(group: ResourceGroup, variable: string): void;
  report(): EnvReport;
  /** Writes the report now (when a report directory was given). */
  write(): void;
  /** Writes the report a last time and stops: no pending write, no write on exit. */
  close(): void;
}

/** Records undeclared reads; with `reportDir`, keeps `env-report.json` there up to date. */
export function recordEnvReads(reportDir?: string): EnvReads {
  const reads = new Map<ResourceGroup, Map<string, number>>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const report = (): EnvReport => ({
    generatedAt: new Date().toISOString(),
    functions: Object.fromEntries(
      [...reads].map(([group, counts]) => [group, [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([variable, count]) => ({ variable, reads: count }))]),
    ),
  });
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!reportDir) return;
    try {
      writeFileWhole(join(reportDir, REPORT_FILE), JSON.stringify(report(), null, 2));
    } catch (error) {
      // The stack must not fall over because a report could not be written (its directory removed, say).
      console.error(`The local stack could not write ${REPORT_FILE}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  if (reportDir) {
    write();
    process.on('exit', write);
  }
  return {
    report,
    write,
    close: () => {
      write();
      closed = true;
      process.off('exit', write);
    },
    record: (group, variable) => {
      const counts = reads.get(group) ?? new Map<string, number>();
      reads.set(group, counts.set(variable, (counts.get(variable) ?? 0) + 1));
      if (reportDir && !timer && !closed) timer = setTimeout(write, REPORT_DELAY_MS).unref();
    },
  };
}

export const envReportFile = (dataDir: string) => join(dataDir, REPORT_FILE);

/**
 * Every undeclared read the run made that nothing excuses: not a local-only variable of the overrides
 * table (unset in AWS by design), not on the allow-list of defaults meant.
 */
export function envReportProblems(report: EnvReport, excused: { localOnly: ReadonlySet<string>; defaultsMeant: readonly DefaultMeant[] }): string[] {
  const problems: string[] = [];
  for (const [group, reads] of Object.entries(report.functions) as [ResourceGroup, EnvReport['functions'][ResourceGroup]][]) {
    for (const { variable, reads: count } of reads ?? []) {
      if (excused.localOnly.has(variable)) continue;
      if (excused.defaultsMeant.some((entry) => entry.variable === variable && (entry.functions === 'all' || entry.functions.includes(group)))) continue;
      problems.push(
        `${group}: read ${variable} ${count} time(s), which its function does not have in the synthesized template (in AWS it is unset). ` +
          'Give the function the variable in infra/cloud/ (the bind helper of what it names), or, if its default is meant there, ' +
          'add it to infra/local/env/defaults-meant.ts with the reason.',
      );
    }
  }
  return problems;
}
