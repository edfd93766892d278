import { writeFileWhole } from '../kernel/write-whole';
import { join } from 'node:path';
import { addClientPlugin } from '../../../shared/adapters/clients/client-options';
import { currentFunction } from '../kernel/function-context';
import { loadTemplate, type TemplateSource } from '../synth/template-source';
import { IamRecorder, reportSummary, type IamReport } from './iam-report';
import { allowListed } from './report-check';
import { RoleChecker } from './role-checker';
import { localIamPlugin } from './sdk-plugin';
import { resolvePolicies, type LocalAccount } from '../template/template-policies';
import { unexercisedGrants } from './unexercised-grants';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../kernel/local-account';

/**
 * IAM on the local stack: every AWS SDK call a function makes (inside `runAsFunction`) is checked
 * against that function's role in the synthesized template and refused as AWS refuses it. Calls made
 * outside any function (provisioning, seeding, tests' own set-up) are not checked.
 */

export const LOCAL_ACCOUNT = LOCAL_ACCOUNT_ID;

export interface LocalIamOptions {
  /** Where `iam-report.json` and `iam-report.txt` are written (every few seconds and on exit); none without it. */
  reportDir?: string;
  /** The synthesized template's extract; loaded here when not given. */
  template?: Promise<TemplateSource>;
}

export interface LocalIam {
  /** Settles when the roles' policies are loaded (from the cache, or synthesized); rejects if they cannot be. */
  ready: Promise<void>;
  /** What was checked so far; undefined before the policies are loaded. */
  report(): IamReport | undefined;
  /** Writes the report files now (when a report directory was given). */
  writeReport(): void;
  /**
   * The environment the template's references resolve against (the table, bucket, pool and sender the
   * functions are given); by default `process.env` at the first check. Call it before any function runs.
   */
  resolveWith(env: Record<string, string | undefined>): void;
}

const REPORT_DELAY_MS = 2_000;

let enabled: LocalIam | undefined;

/**
 * Turns local IAM on in this process, once: loads the roles' policies (in the background; a call
 * waits for them) and gives every AWS client the check. The local stack calls it before it imports
 * the handler modules. The account is LOCAL_ACCOUNT_ID (local-account.ts); region and resource names come from
 * `resolveWith`'s environment (else `process.env` at the first check).
 */
export function enableLocalIam(options: LocalIamOptions = {}): LocalIam {
  if (enabled) return enabled;
  const recorder = new IamRecorder();
  let source: TemplateSource | undefined;
  const loading = (options.template ?? loadTemplate()).then((loaded) => (source = loaded));
  loading.catch(() => undefined);

  let resolution: Record<string, string | undefined> | undefined;
  const account = (): LocalAccount => {
    const env = resolution ?? process.env;
    return { account: LOCAL_ACCOUNT, region: env.AWS_REGION ?? LOCAL_REGION, env };
  };
  let checker: RoleChecker | undefined;
  const checkerNow = (): RoleChecker | undefined => {
    if (!checker && source) {
      const local = account();
      checker = new RoleChecker(resolvePolicies(source.policies, local), { account: local.account, region: local.region });
    }
    return checker;
  };

  const report = (): IamReport | undefined => {
    const current = checkerNow();
    if (!current || !source) return undefined;
    const { account: id, region } = account();
    return recorder.report({ policies: current.policies, account: id, region, synthesized: source.synthesized, loadMs: source.ms, stats: current.stats });
  };

  let timer: NodeJS.Timeout | undefined;
  const writeReport = () => {
    clearTimeout(timer);
    timer = undefined;
    const current = options.reportDir ? report() : undefined;
    if (!current || !options.reportDir) return;
    writeFileWhole(join(options.reportDir, 'iam-report.json'), JSON.stringify(current, null, 2));
    const note = (group: Parameters<typeof allowListed>[1], action: string) => allowListed(unexercisedGrants, group, action)?.reason;
    writeFileWhole(join(options.reportDir, 'iam-report.txt'), reportSummary(current, note));
  };
  // The stack must not fall over because a report could not be written (its directory removed, say).
  const writeQuietly = () => {
    try {
      writeReport();
    } catch (error) {
      console.error(`Local IAM could not write its report: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  if (options.reportDir) process.on('exit', writeQuietly);

  addClientPlugin(
    localIamPlugin({
      currentFunction,
      decide: async (group, call) => {
        await loading;
        return checkerNow()!.decide(group, call);
      },
      record: (decision, kind) => {
        recorder.record(decision, kind);
        if (options.reportDir && !timer) timer = setTimeout(writeQuietly, REPORT_DELAY_MS).unref();
      },
    }),
  );

  enabled = { ready: loading.then(() => undefined), report, writeReport, resolveWith: (env) => void (resolution = env) };
  return enabled;
}
