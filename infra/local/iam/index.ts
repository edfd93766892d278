import { join } from 'node:path';
import { addClientPlugin } from '../../../shared/adapters/clients/client-options';
import { currentFunction } from '../kernel/function-context';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../kernel/local-account';
import { keptReport } from '../kernel/write-whole';
import { loadTemplate, type TemplateSource } from '../synth/template-source';
import { resolvePolicies } from '../template/template-policies';
import { IamRecorder, reportSummary, type IamReport } from './iam-report';
import { RoleChecker } from './role-checker';
import { localIamPlugin } from './sdk-plugin';
import { allowListed, unexercisedGrants } from './unexercised-grants';

/** Each AWS SDK call a function makes is checked against its role in the template (docs/local-stack.md#local-iam-enforcement). */

export interface LocalIamOptions {
  /** Where `iam-report.json` and `iam-report.txt` are written (every few seconds and on exit); none without it. */
  reportDir?: string;
  /** The synthesized template's extract; loaded here when not given. */
  template?: Promise<TemplateSource>;
}

export type LocalIam = ReturnType<typeof startLocalIam>;

let enabled: LocalIam | undefined;

/** Turns local IAM on in this process, once, before the handler modules are imported; a call waits for the policies. */
export const enableLocalIam = (options: LocalIamOptions = {}): LocalIam => (enabled ??= startLocalIam(options));

function startLocalIam(options: LocalIamOptions) {
  const recorder = new IamRecorder();
  let source: TemplateSource | undefined;
  const loading = (options.template ?? loadTemplate()).then((loaded) => (source = loaded));
  loading.catch(() => undefined);

  let resolution: Record<string, string | undefined> | undefined;
  let checker: RoleChecker | undefined;
  const checkerNow = (): RoleChecker | undefined => {
    if (!checker && source) {
      const env = resolution ?? process.env;
      const scope = { account: LOCAL_ACCOUNT_ID, region: env.AWS_REGION ?? LOCAL_REGION };
      checker = new RoleChecker(resolvePolicies(source.policies, { ...scope, env }), scope);
    }
    return checker;
  };

  const report = (): IamReport | undefined => {
    const current = checkerNow();
    if (!current || !source) return undefined;
    return recorder.report({ policies: current.policies, ...current.scope, synthesized: source.synthesized, loadMs: source.ms, stats: current.stats });
  };

  const { reportDir } = options;
  const files = () => {
    const current = reportDir ? report() : undefined;
    if (!current || !reportDir) return undefined;
    const note = (group: Parameters<typeof allowListed>[1], action: string) => allowListed(unexercisedGrants, group, action)?.reason;
    return { [join(reportDir, 'iam-report.json')]: JSON.stringify(current, null, 2), [join(reportDir, 'iam-report.txt')]: reportSummary(current, note) };
  };
  const kept = keptReport('the local IAM report', files);

  addClientPlugin(
    localIamPlugin({
      currentFunction,
      decide: async (group, call) => {
        await loading;
        return checkerNow()!.decide(group, call);
      },
      record: (decision, kind) => {
        recorder.record(decision, kind);
        kept.changed();
      },
    }),
  );

  return {
    /** Settles when the roles' policies are loaded (from the cache, or synthesized); rejects if they cannot be. */
    ready: loading.then(() => undefined),
    /** What was checked so far; undefined before the policies are loaded. */
    report,
    /** Writes the report files now (when a report directory was given). */
    writeReport: kept.write,
    /** The environment the template's references resolve against (else `process.env` at the first check); call it before any function runs. */
    resolveWith: (env: Record<string, string | undefined>) => void (resolution = env),
  };
}
