import type { ResourceGroup } from '../../shared/edge/api/routes';
import { envNames, type EnvName } from '../../shared/kernel/config';
import type { EnvReport } from '../../infra/local/env/stack-environments';
import { actionMatches, unexercised, type FunctionReport, type IamReport } from '../../infra/local/iam/iam-report';
import { allowListed, excuses, type Excused, type UnexercisedGrant } from '../../infra/local/iam/unexercised-grants';

/**
 * The integration run's verdict on the reports the local stack writes (test/integration/global-teardown.ts):
 * its IAM report (iam-report.json) and its environment report (env-report.json).
 */

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

/**
 * Product variables a function reads although its template does not declare them, because in AWS the
 * code's default is meant, each with the reason; any other such read fails the integration run (below).
 */
export type DefaultMeant = Excused & { variable: EnvName };

const TOKEN_LIFETIME = 'the stack declares token lifetimes only when the context sets them (tokenLifetimes); otherwise the code’s defaults are meant';
const WEBHOOK_WINDOW = 'the 24 h docs/api/events.md promises; no deployment shortens it';

export const defaultsMeant: readonly DefaultMeant[] = [
  { variable: envNames.accessTokenSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.refreshTokenSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.sessionMaxSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  { variable: envNames.offlineSessionIdleSeconds, functions: 'all', reason: TOKEN_LIFETIME },
  {
    variable: envNames.auditRetentionDays,
    functions: 'all',
    reason: 'the stack declares it only when the context sets auditRetentionDays; otherwise the code’s 400 days are meant',
  },
  {
    variable: envNames.cognitoUserCreationRate,
    functions: 'all',
    reason: "Cognito's default UserCreation quota (50 a second) is meant; only an account granted more would declare it",
  },
  {
    variable: envNames.authRedirectUris,
    functions: ['auth'],
    reason: 'the stack declares it only when the context sets authRedirectUris; otherwise only loopback addresses and the reference’s own page are meant',
  },
  { variable: envNames.webhookRetrySeconds, functions: 'all', reason: WEBHOOK_WINDOW },
  { variable: envNames.webhookDisableAfterSeconds, functions: 'all', reason: WEBHOOK_WINDOW },
  { variable: envNames.webhookSecretOverlapSeconds, functions: 'all', reason: WEBHOOK_WINDOW },
];

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
          'add it to defaultsMeant in test/support/local-report-checks.ts with the reason.',
      ),
  );
}
