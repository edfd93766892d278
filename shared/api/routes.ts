import { defaultSubpaths, type Subpaths } from '../config';
import { catalogue } from './catalogue';
import { resourceGroups, type Area, type HttpMethod, type Operation, type ResourceGroup } from './operation';

/**
 * The catalogue's operations as routes: resolved against the configured subpaths, for the CDK stack,
 * the local gateway and each function's router (`test/unit/routes.test.ts` proves the three agree).
 */

export { defaultSubpaths, resourceGroups, type Area, type HttpMethod, type ResourceGroup, type Subpaths };

/** An operation where API Gateway routes it. */
export interface Route extends Operation {
  /** Whether the chain checks a user's bearer token (every management operation). */
  authenticated: boolean;
  /** Full path as API Gateway sees it, e.g. `/user-management/org/{orgUUID}/users/identity-provider`. */
  fullPath: string;
  /** API Gateway route key, e.g. `GET /user-management/org/{orgUUID}/users`. */
  routeKey: string;
}

/**
 * Requests that match no route go to this group, whose router answers the standard 404 body; the
 * CDK stack wires it as the HTTP API's `$default` route and the local gateway does the same.
 */
export const defaultRouteGroup: ResourceGroup = 'auth';

const SUBPATH = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Every operation of the catalogue resolved against the configured subpaths. */
export function resolveRoutes(subpaths: Subpaths): Route[] {
  for (const [area, value] of Object.entries(subpaths)) {
    if (!SUBPATH.test(value)) {
      throw new Error(`Subpath for the ${area} area must match ${SUBPATH} (got "${value}")`);
    }
  }
  return catalogue.map((operation) => {
    const prefix = operation.area === 'auth' || operation.area === 'root' ? '' : `/${operation.area === 'generative' ? subpaths.generative : subpaths.user}`;
    const fullPath = `${prefix}${operation.path}`;
    return { ...operation, authenticated: operation.access === 'user', fullPath, routeKey: `${operation.method} ${fullPath}` };
  });
}

/** The routes one function serves. */
export function routesOfGroup(routes: Route[], group: ResourceGroup): Route[] {
  return routes.filter((route) => route.group === group);
}

/** A route's full path with its `{name}` parameters filled in, e.g. for a Location header. */
export function routePath(id: string, params: Record<string, string>, subpaths: Subpaths): string {
  const route = resolveRoutes(subpaths).find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route ${id} in the route table`);
  return route.fullPath.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Route ${id} needs the parameter ${name}`);
    return encodeURIComponent(value);
  });
}
