import { defaultSubpaths, type Subpaths } from '../../kernel/config';
import { catalogue } from './catalogue';
import { resourceGroups, type Area, type HttpMethod, type ResourceGroup } from './operation';
import { operationPath, resolveOperations, type Route } from './route-resolution';

/**
 * The catalogue's operations as routes: resolved against the configured subpaths, for the CDK stack,
 * the local gateway and each function's router (`test/unit/routes.test.ts` proves the three agree).
 */

export { defaultSubpaths, resourceGroups, type Area, type HttpMethod, type ResourceGroup, type Route, type Subpaths };

/**
 * Requests that match no route go to this group, whose router answers the standard 404 body; the
 * CDK stack wires it as the HTTP API's `$default` route and the local gateway does the same.
 */
export const defaultRouteGroup: ResourceGroup = 'auth';

/** Every operation of the catalogue resolved against the configured subpaths. */
export function resolveRoutes(subpaths: Subpaths): Route[] {
  return resolveOperations(catalogue, subpaths);
}

/** The routes one function serves. */
export function routesOfGroup(routes: Route[], group: ResourceGroup): Route[] {
  return routes.filter((route) => route.group === group);
}

/** A route's full path with its `{name}` parameters filled in, e.g. for a Location header. */
export function routePath(id: string, params: Record<string, string>, subpaths: Subpaths): string {
  const operation = catalogue.find((candidate) => candidate.id === id);
  if (!operation) throw new Error(`No route ${id} in the route table`);
  return operationPath(operation, params, subpaths);
}
