import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../kernel/local-account';
import { accessDeniedMessage, type CallDecision, type CheckerStats } from './role-checker';
import type { IamRequest } from './sdk-requests';
import type { ResolvedPolicies } from '../template/template-policies';
import { asArray } from '../template/cfn';

/** What local IAM saw, per function: each action its calls needed and each its role grants (`<data dir>/iam-report.json`, `.txt`). */

export interface ActionUse {
  action: string;
  outcome: 'allowed' | 'denied' | 'error';
  /** The statement that allowed it: `<policy logical id>#<index in the policy, from 1>`. */
  allowedBy?: string;
  /** Calls (or presigned URLs) that needed it. */
  count: number;
  presignedUrls: number;
  sdkCalls: string[];
  /** Some of the resources (all when few), and how many more there were. */
  resources: string[];
  moreResources: number;
  /** The refusal the SDK raised (denied), or the error (a call local IAM could not judge). */
  message?: string;
}

export interface Grant { action: string; statement: string; resources: string[]; exercised: boolean }

export interface FunctionReport {
  role: string;
  calls: ActionUse[];
  grants: Grant[];
  /** Managed policies from outside the template: not evaluated. */
  externalManagedPolicies: string[];
}

export type IamReport = ReturnType<IamRecorder['report']>;

const RESOURCE_EXAMPLES = 10;

type Use = Omit<ActionUse, 'sdkCalls' | 'resources'> & { sdkCalls: Set<string>; resources: Set<string> };

/** IAM action patterns match without regard to case, `*` and `?` as wildcards. */
export function actionMatches(pattern: string, action: string): boolean {
  const expression = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${expression}$`, 'i').test(action);
}

/** A function's grants no call exercised, one per action. */
export const unexercised = (fn: FunctionReport): Grant[] => [...new Map(fn.grants.filter((g) => !g.exercised).map((g) => [g.action, g])).values()];

export class IamRecorder {
  private readonly uses = new Map<string, Use>();
  private calls = 0;
  private denied = 0;

  record(decision: CallDecision, kind: 'call' | 'presigned-url'): void {
    this.calls++;
    if (decision.error || decision.denied) this.denied++;
    const verdicts: (IamRequest & Pick<ActionUse, 'outcome' | 'allowedBy' | 'message'>)[] = decision.error
      ? [{ action: `(not mapped) ${decision.sdkCall}`, resource: '', outcome: 'error', message: decision.error.message }]
      : decision.verdicts.map(({ action, resource, ...verdict }) =>
          verdict.allowed
            ? { action, resource, outcome: 'allowed', ...(verdict.allowedBy && { allowedBy: verdict.allowedBy }) }
            : { action, resource, outcome: 'denied', message: accessDeniedMessage(decision.principal, { action, resource, ...verdict }) },
        );
    for (const { resource, ...verdict } of verdicts) {
      const key = [decision.group, verdict.action, verdict.outcome, verdict.allowedBy ?? ''].join('\n');
      let use = this.uses.get(key);
      if (!use) {
        use = { ...verdict, count: 0, presignedUrls: 0, sdkCalls: new Set(), resources: new Set(), moreResources: 0 };
        this.uses.set(key, use);
      }
      use.count++;
      if (kind === 'presigned-url') use.presignedUrls++;
      use.sdkCalls.add(decision.sdkCall);
      if (resource && !use.resources.has(resource)) {
        if (use.resources.size < RESOURCE_EXAMPLES) use.resources.add(resource);
        else use.moreResources++;
      }
    }
  }

  report(options: { policies: ResolvedPolicies; synthesized: boolean; loadMs: number; stats?: CheckerStats }) {
    const { policies, stats } = options;
    const functions: Partial<Record<ResourceGroup, FunctionReport>> = {};
    for (const [group, role] of policies.roles) {
      const calls: ActionUse[] = [...this.uses.entries()]
        .filter(([key]) => key.startsWith(`${group}\n`))
        .map(([, use]) => ({ ...use, sdkCalls: [...use.sdkCalls].sort(), resources: [...use.resources].sort() }))
        .sort((a, b) => a.action.localeCompare(b.action) || a.outcome.localeCompare(b.outcome));
      const grants: Grant[] = role.statements.flatMap(({ id, statement }) =>
        statement.Effect !== 'Allow'
          ? []
          : asArray(statement.Action).map(String).map((action) => ({
              action,
              statement: id,
              resources: asArray(statement.Resource).map(String),
              exercised: calls.some((use) => use.outcome === 'allowed' && actionMatches(action, use.action)),
            })),
      );
      functions[group] = { role: role.roleArn, calls, grants, externalManagedPolicies: role.externalManagedPolicies };
    }
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return {
      generatedAt: new Date().toISOString(),
      account: LOCAL_ACCOUNT_ID,
      region: LOCAL_REGION,
      policies: { synthesized: options.synthesized, loadMs: round(options.loadMs), unresolved: policies.unresolved },
      stats: {
        checkedCalls: this.calls,
        deniedCalls: this.denied,
        // Milliseconds spent deciding a call, mean and max.
        checkMsMean: stats && stats.calls ? round(stats.totalMs / stats.calls) : 0,
        checkMsMax: round(stats?.maxMs ?? 0),
        simulations: stats?.simulations ?? 0,
        simulationMsMean: stats && stats.simulations ? round(stats.simulationMs / stats.simulations) : 0,
        cacheHits: stats?.cacheHits ?? 0,
      },
      functions,
    };
  }
}

/** The report for a reader: per function, each action's calls and the statement that allowed them, then unused grants. */
export function reportSummary(report: IamReport, note: (group: ResourceGroup, action: string) => string | undefined = () => undefined): string {
  const lines = [
    `Local IAM, ${report.generatedAt}: ${report.stats.checkedCalls} calls checked, ${report.stats.deniedCalls} refused ` +
      `(deciding a call: ${report.stats.checkMsMean} ms mean, ${report.stats.checkMsMax} ms max)`,
  ];
  if (report.policies.unresolved.length > 0) lines.push(`Unresolved template references: ${report.policies.unresolved.join(', ')}`);
  for (const [group, fn] of Object.entries(report.functions) as [ResourceGroup, FunctionReport][]) {
    lines.push('', `${group}   ${fn.role}`);
    const width = Math.max(0, ...fn.calls.map((use) => use.action.length), ...fn.grants.map((grant) => grant.action.length));
    for (const use of fn.calls) {
      const [label, detail] = {
        allowed: ['allowed', `by ${use.allowedBy ?? '?'}`],
        denied: ['DENIED ', `on ${use.resources.join(', ')}${use.moreResources ? ` and ${use.moreResources} more` : ''}`],
        error: ['ERROR  ', use.message ?? ''],
      }[use.outcome];
      const presigned = use.presignedUrls > 0 ? `, ${use.presignedUrls} of them presigned URLs` : '';
      lines.push(`  ${label}  ${use.action.padEnd(width)}  ${String(use.count).padStart(6)}×  ${detail}   (${use.sdkCalls.join(', ')}${presigned})`);
    }
    const unused = unexercised(fn);
    const excused = unused.filter((grant) => note(group, grant.action));
    for (const grant of unused.filter((g) => !note(group, g.action))) {
      lines.push(`  UNUSED   ${grant.action.padEnd(width)}           granted by ${grant.statement}`);
    }
    if (excused.length > 0) lines.push(`  unused, allow-listed: ${excused.map((grant) => grant.action).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
