import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { IamReport } from '../../infra/local/iam/iam-report';
import { iamReportProblems } from '../../infra/local/iam/report-check';
import { unexercisedGrants } from '../../infra/local/iam/unexercised-grants';

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

/**
 * Stops the local stack (it shuts its servers down on SIGTERM, writing its IAM report) and removes its
 * data. Then fails the run if a function made a call its role refused, or, when the whole suite ran, if
 * a role grants an action no test exercised and `infra/local/iam/unexercised-grants.ts` does not
 * excuse. The report is kept under `coverage/local-iam/`, the stack's output under `coverage/local-stack/`.
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
  const dataDir = process.env.TEST_STACK_DIR;
  if (!dataDir) return;
  if (existsSync(`${dataDir}.log`)) {
    mkdirSync(STACK_LOG_COPY, { recursive: true });
    copyFileSync(`${dataDir}.log`, join(STACK_LOG_COPY, 'stack.log'));
    rmSync(`${dataDir}.log`, { force: true });
  }
  const reportFile = join(dataDir, 'iam-report.json');
  let problems: string[];
  if (existsSync(reportFile)) {
    mkdirSync(REPORT_COPY, { recursive: true });
    for (const name of ['iam-report.json', 'iam-report.txt']) copyFileSync(join(dataDir, name), join(REPORT_COPY, name));
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as IamReport;
    problems = iamReportProblems(report, unexercisedGrants, { coverage: wholeSuite(selection) });
  } else {
    problems = ['the local stack wrote no iam-report.json'];
  }
  rmSync(dataDir, { recursive: true, force: true });
  if (problems.length > 0) {
    throw new Error(
      `Local IAM found ${problems.length} problem(s) in this run (report: coverage/local-iam/iam-report.txt):\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    );
  }
}
