import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { actionMatches, unexercised, type FunctionReport, type IamReport } from './iam-report';
import type { UnexercisedGrant } from './unexercised-grants';
import { excuses } from '../kernel/allow-list';

/** The allow-list entry that excuses `action` of `group` being granted and never exercised. */
export function allowListed(allowList: readonly UnexercisedGrant[], group: ResourceGroup, action: string): UnexercisedGrant | undefined {
  return allowList.find((entry) => excuses(entry, group) && entry.action.toLowerCase() === action.toLowerCase());
}

/**
 * What is wrong with a run's IAM report: every refused or unjudged call; and, when the whole suite ran (`coverage`),
 * every unexercised grant the allow-list does not excuse, and every entry that excuses nothing any more.
 */
export function iamReportProblems(report: IamReport, allowList: readonly UnexercisedGrant[], options: { coverage: boolean }): string[] {
  const functions = Object.entries(report.functions) as [ResourceGroup, FunctionReport][];
  const problems = functions.flatMap(([group, fn]) =>
    fn.calls
      .filter((use) => use.outcome !== 'allowed')
      .map((use) =>
        use.outcome === 'error'
          ? `${group}: ${use.count} call(s) local IAM could not judge: ${use.message}`
          : `${group}: ${use.action} refused ${use.count} time(s) (${use.sdkCalls.join(', ')} on ${use.resources.join(', ')}): ` +
            `the role does not grant it. Grant it in infra/cloud/, or stop making the call.`,
      ),
  );
  if (!options.coverage) return problems;

  // Which functions each entry excused: an entry naming a function it no longer excuses is stale.
  const excused = new Map<UnexercisedGrant, Set<ResourceGroup>>();
  for (const [group, fn] of functions) {
    for (const grant of unexercised(fn)) {
      const entry = allowListed(allowList, group, grant.action);
      if (entry) excused.set(entry, (excused.get(entry) ?? new Set()).add(group));
      else {
        problems.push(
          `${group}: ${grant.action} is granted (${grant.statement}) but no test made a call that needs it: ` +
            'remove it from the role, or add it to infra/local/iam/unexercised-grants.ts with the reason it stays.',
        );
      }
    }
  }
  const grants = (group: ResourceGroup | undefined, action: string) =>
    functions.some(([g, fn]) => (group === undefined || g === group) && fn.grants.some((grant) => actionMatches(grant.action, action)));
  for (const entry of allowList) {
    const stale: [string, ResourceGroup | undefined][] =
      entry.functions === 'all'
        ? excused.has(entry)
          ? []
          : [['all functions', undefined]]
        : entry.functions.filter((group) => !excused.get(entry)?.has(group)).map((group) => [group, group]);
    for (const [who, group] of stale) {
      problems.push(
        `infra/local/iam/unexercised-grants.ts excuses ${entry.action} for ${who}, ` +
          `but ${grants(group, entry.action) ? 'a test exercises it now' : 'no role grants it any more'}: remove it from the entry.`,
      );
    }
  }
  return problems;
}
