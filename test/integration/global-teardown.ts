import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { environmentOverrides } from '../../infra/local/deployment/overrides';
import { envReportFile, type EnvReport } from '../../infra/local/env/stack-environments';
import type { IamReport } from '../../infra/local/iam/iam-report';
import { unexercisedGrants } from '../../infra/local/iam/unexercised-grants';
import { defaultsMeant, envReportProblems, iamReportProblems } from '../support/local-report-checks';

/** The fields of jest's global configuration that say whether only part of the suite ran. */
interface RunSelection {
  testPathPattern?: string;
  testNamePattern?: string;
  onlyChanged?: boolean;
  onlyFailures?: boolean;
  findRelatedTests?: boolean;
  changedSince?: string;
  lastCommit?: boolean;
  shard?: unknown;
}

const REPORT_COPY = join(__dirname, '..', '..', 'coverage', 'local-iam');
const STACK_LOG_COPY = join(__dirname, '..', '..', 'coverage', 'local-stack');

/** Whether every integration test file was selected: only then can a grant no test exercised be told apart. */
function wholeSuite(selection: RunSelection): boolean {
  if (selection.testNamePattern || selection.onlyChanged || selection.onlyFailures || selection.findRelatedTests) return false;
  if (selection.changedSince || selection.lastCommit || selection.shard) return false;
  if (!selection.testPathPattern) return true;
  const pattern = new RegExp(selection.testPathPattern, 'i');
  return readdirSync(__dirname)
    .filter((file) => file.endsWith('.test.ts'))
    .every((file) => pattern.test(join(__dirname, file)));
}

/** What the run's IAM report says is wrong (a copy kept under `coverage/local-iam/`). */
function iamProblems(dataDir: string, selection: RunSelection): string[] {
  const reportFile = join(dataDir, 'iam-report.json');
  if (!existsSync(reportFile)) return ['the local stack wrote no iam-report.json'];
  mkdirSync(REPORT_COPY, { recursive: true });
  for (const name of ['iam-report.json', 'iam-report.txt']) copyFileSync(join(dataDir, name), join(REPORT_COPY, name));
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as IamReport;
  return iamReportProblems(report, unexercisedGrants, { coverage: wholeSuite(selection) }).map((problem) => `local IAM: ${problem}`);
}

/** The variables a function read that its template does not declare (a copy of the report kept under `coverage/local-stack/`). */
function environmentProblems(dataDir: string): string[] {
  const reportFile = envReportFile(dataDir);
  if (!existsSync(reportFile)) return ['the local stack wrote no env-report.json'];
  mkdirSync(STACK_LOG_COPY, { recursive: true });
  copyFileSync(reportFile, join(STACK_LOG_COPY, 'env-report.json'));
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as EnvReport;
  const localOnly = new Set(environmentOverrides.filter((entry) => entry.kind === 'local-only').map((entry) => entry.variable));
  return envReportProblems(report, { localOnly, defaultsMeant }).map((problem) => `environment: ${problem}`);
}

/**
 * Stops the local stack (it shuts its servers down on SIGTERM, writing its reports) and removes its
 * data and the run's shared directory. Then fails the run if a function made a call its role refused, or, when the whole suite ran, if
 * a role grants an action no test exercised and `infra/local/iam/unexercised-grants.ts` does not
 * excuse; and if a function read a product variable its template does not declare, which
 * `defaultsMeant` (test/support/local-report-checks.ts) does not excuse. The IAM report is kept under
 * `coverage/local-iam/`, the stack's output and its env-report.json under `coverage/local-stack/`.
 */
export default async function globalTeardown(selection: RunSelection = {}): Promise<void> {
  const child = (globalThis as { __localStack?: ChildProcess }).__localStack;
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (process.env.TEST_RUN_DIR) rmSync(process.env.TEST_RUN_DIR, { recursive: true, force: true });
  const dataDir = process.env.TEST_STACK_DIR;
  if (!dataDir) return;
  if (existsSync(`${dataDir}.log`)) {
    mkdirSync(STACK_LOG_COPY, { recursive: true });
    copyFileSync(`${dataDir}.log`, join(STACK_LOG_COPY, 'stack.log'));
    rmSync(`${dataDir}.log`, { force: true });
  }
  const problems = [...iamProblems(dataDir, selection), ...environmentProblems(dataDir)];
  rmSync(dataDir, { recursive: true, force: true });
  if (problems.length > 0) {
    throw new Error(
      `The local stack found ${problems.length} problem(s) in this run (reports: coverage/local-iam/iam-report.txt, coverage/local-stack/env-report.json):\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    );
  }
}
