import type { Applied } from './bundle-apply';
import type { Plan } from './bundle-plan';
import type { BundleApplyResponse, BundlePlanResponse } from './bundle.responses';

/** Plans to the shapes of `bundle.responses.ts`: the changes without the records they were computed from. */

/** fast-json-patch's operation types are closed interfaces; the answer's patch operation is open to extensions. */
type Patch = BundlePlanResponse['changes'][number]['patch'];

export function toPlanResponse(plan: Plan): BundlePlanResponse {
  return {
    baseVersion: plan.baseVersion,
    changes: plan.changes.map(({ kind, role, action, patch }) => ({ kind, role, action, patch: patch as Patch })),
  };
}

export function toApplyResponse({ plan, version }: Applied): BundleApplyResponse {
  const { baseVersion, changes } = toPlanResponse(plan);
  return { baseVersion, version, changes };
}
