import { runSimulation, type RunSimulationResults, type SimulationIdentityPolicy } from '@cloud-copilot/iam-simulate';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { LOCAL_ACCOUNT_ID } from '../kernel/local-account';
import { iamRequestsFor, type IamRequest, type SdkCall } from './sdk-requests';
import type { ResolvedPolicies } from '../template/template-policies';

/** IAM's answer for one action on one resource, as the calling function's role. */
export interface Verdict extends IamRequest {
  allowed: boolean;
  /** The statement that allowed it (`<policy>#<index>`). */
  allowedBy?: string;
  explicitDeny?: boolean;
}

export interface CallDecision {
  group: ResourceGroup;
  /** `DynamoDB TransactWriteItems`. */
  sdkCall: string;
  principal: string;
  verdicts: Verdict[];
  /** The first refused authorization: the call fails with AccessDenied naming it. */
  denied?: Verdict;
  /** A call local IAM cannot judge (not mapped to IAM actions): it fails with this error. */
  error?: Error;
}

export type CheckerStats = RoleChecker['stats'];

/** "User: … is not authorized to perform: …", worded as AWS words it. */
export function accessDeniedMessage(principal: string, verdict: Verdict, options: { quoteResource?: boolean } = {}): string {
  const resource = options.quoteResource ? `"${verdict.resource}"` : verdict.resource;
  const reason = verdict.explicitDeny
    ? 'with an explicit deny in an identity-based policy'
    : `because no identity-based policy allows the ${verdict.action} action`;
  return `User: ${principal} is not authorized to perform: ${verdict.action} on resource: ${resource} ${reason}`;
}

const CACHE_LIMIT = 10_000;

/**
 * Decides SDK calls against each function's role with iam-simulate. Policies never change while the
 * stack runs, so a verdict is cached per function, action and resource.
 */
export class RoleChecker {
  /** Calls decided and the time spent deciding them (loading excluded); evaluations by iam-simulate, and cache hits. */
  readonly stats = { calls: 0, totalMs: 0, maxMs: 0, simulations: 0, simulationMs: 0, cacheHits: 0 };
  private readonly verdicts = new Map<string, Promise<Verdict>>();
  private readonly identityPolicies = new Map<ResourceGroup, SimulationIdentityPolicy[]>();

  constructor(readonly policies: ResolvedPolicies) {
    // One policy per statement, named by the statement: the simulator then names the statement that allowed.
    for (const [group, role] of policies.roles) {
      this.identityPolicies.set(group, role.statements.map(({ id, statement }) => ({ name: id, policy: { Version: '2012-10-17', Statement: [statement] } })));
    }
  }

  async decide(group: ResourceGroup, call: SdkCall): Promise<CallDecision> {
    const started = performance.now();
    const role = this.policies.roles.get(group);
    const sdkCall = `${call.clientName.replace(/Client$/, '')} ${call.commandName.replace(/Command$/, '')}`;
    const decision: CallDecision = { group, sdkCall, principal: role?.principal ?? group, verdicts: [] };
    try {
      if (!role) throw new Error(`The template has no function for the resource group ${group}`);
      const requests = iamRequestsFor(call);
      decision.verdicts = await Promise.all(requests.map((request) => this.verdict(group, request)));
      decision.denied = decision.verdicts.find((verdict) => !verdict.allowed);
    } catch (error) {
      decision.error = error instanceof Error ? error : new Error(String(error));
    }
    const ms = performance.now() - started;
    this.stats.calls++;
    this.stats.totalMs += ms;
    this.stats.maxMs = Math.max(this.stats.maxMs, ms);
    return decision;
  }

  private verdict(group: ResourceGroup, request: IamRequest): Promise<Verdict> {
    const key = `${group}\n${request.action}\n${request.resource}`;
    const cached = this.verdicts.get(key);
    if (cached) {
      this.stats.cacheHits++;
      return cached;
    }
    if (this.verdicts.size >= CACHE_LIMIT) this.verdicts.clear();
    const evaluated = this.simulate(group, request);
    this.verdicts.set(key, evaluated);
    evaluated.catch(() => this.verdicts.delete(key));
    return evaluated;
  }

  private async simulate(group: ResourceGroup, request: IamRequest): Promise<Verdict> {
    const started = performance.now();
    const result = await runSimulation(
      {
        request: {
          principal: this.policies.roles.get(group)!.principal,
          action: request.action,
          resource: { resource: request.resource, accountId: LOCAL_ACCOUNT_ID },
          contextVariables: {},
        },
        identityPolicies: this.identityPolicies.get(group) ?? [],
        // A KMS key's key policy: without one that lets the account's IAM policies in, KMS refuses whatever a role grants.
        ...(this.policies.resourcePolicies?.has(request.resource) ? { resourcePolicy: this.policies.resourcePolicies.get(request.resource) } : {}),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    );
    this.stats.simulations++;
    this.stats.simulationMs += performance.now() - started;
    return { ...request, ...outcomeOf(result, request) };
  }
}

function outcomeOf(result: RunSimulationResults, request: IamRequest): Pick<Verdict, 'allowed' | 'allowedBy' | 'explicitDeny'> {
  if (result.resultType === 'error') {
    throw new Error(`Local IAM could not evaluate ${request.action} on ${request.resource}: ${result.errors.message}`);
  }
  const analysis = result.resultType === 'single' ? result.result.analysis : result.results[0]?.analysis;
  if (result.overallResult === 'Allowed') {
    return { allowed: true, allowedBy: analysis?.identityAnalysis?.allowStatements[0]?.policyId };
  }
  return { allowed: false, explicitDeny: result.overallResult === 'ExplicitlyDenied' };
}
