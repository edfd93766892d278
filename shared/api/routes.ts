import { defaultSubpaths, type Subpaths } from '../config';

export { defaultSubpaths, type Subpaths };
/**
 * The route table, written once. The CDK stack, the local gateway and each function's router read it,
 * and `test/unit/routes.test.ts` proves the three agree.
 */

/** One Lambda per resource group (docs/architecture.md#the-pieces). */
export const resourceGroups = ['auth', 'docs', 'users', 'supervisors', 'agents', 'configurations', 'bulk', 'bulk-worker'] as const;
export type ResourceGroup = (typeof resourceGroups)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Which configurable area prefix a route lives under (spec "Addressing"). */
/** `auth` and `root` sit at the API's root; the other two under their configurable subpath. */
export type Area = 'auth' | 'root' | 'generative' | 'user';

export interface RouteDefinition {
  /** Stable name, used by function routers to bind handlers and by `events/` file names. */
  id: string;
  group: ResourceGroup;
  method: HttpMethod;
  area: Area;
  /** Path after the area's subpath, in API Gateway syntax (`{name}` parameters). */
  path: string;
  /** Whether the route needs a user bearer token (every management route does). */
  authenticated: boolean;
}

export const routeDefinitions: readonly RouteDefinition[] = [
  {
    id: 'auth.token',
    group: 'auth',
    method: 'POST',
    area: 'auth',
    path: '/auth/realms/{realm}/protocol/openid-connect/token',
    authenticated: false,
  },
  ...authRoutes([
    ['auth.certs', 'GET', '/protocol/openid-connect/certs'],
    ['auth.discovery', 'GET', '/.well-known/openid-configuration'],
    ['auth.userinfo', 'GET', '/protocol/openid-connect/userinfo'],
    ['auth.userinfoPost', 'POST', '/protocol/openid-connect/userinfo'],
    ['auth.revoke', 'POST', '/protocol/openid-connect/revoke'],
    ['auth.logout', 'POST', '/protocol/openid-connect/logout'],
    // The account page (HTML forms, no script): sign in, set or change the password, sign out.
    ['auth.account', 'GET', '/account'],
    ['auth.accountSignIn', 'POST', '/account/sign-in'],
    ['auth.accountPassword', 'POST', '/account/password'],
    ['auth.accountSignOut', 'POST', '/account/sign-out'],
  ]),
  // The API's own description and its interactive reference, public like the OpenID discovery; the
  // API's root address leads a person to the reference.
  { id: 'docs.root', group: 'docs', method: 'GET', area: 'root', path: '/', authenticated: false },
  { id: 'docs.openapi', group: 'docs', method: 'GET', area: 'root', path: '/openapi.json', authenticated: false },
  { id: 'docs.ui', group: 'docs', method: 'GET', area: 'root', path: '/docs', authenticated: false },
  { id: 'docs.asset', group: 'docs', method: 'GET', area: 'root', path: '/docs/{asset}', authenticated: false },
  // Literal paths (`identity-provider`, `quicksearch`, `activate`) win over `{userId}` in API Gateway,
  // in middy's router and in the local gateway alike.
  ...userAreaRoutes('users', [
    ['users.identityProvider', 'GET', '/users/identity-provider'],
    ['users.list', 'GET', '/users'],
    ['users.quicksearch', 'GET', '/users/quicksearch'],
    ['users.create', 'POST', '/users'],
    ['users.activate', 'PUT', '/users/activate'],
    ['users.get', 'GET', '/users/{userId}'],
    ['users.update', 'PUT', '/users/{userId}'],
    ['users.delete', 'DELETE', '/users/{userId}'],
    // Keycloak's attack detection (its admin path, under the organization): a user's failed sign-ins
    // and temporary lock, and clearing them.
    ['users.bruteForce', 'GET', '/attack-detection/brute-force/users/{userId}'],
    ['users.clearBruteForce', 'DELETE', '/attack-detection/brute-force/users/{userId}'],
    // Who changed what, when, in which request (issue 14): ADMIN's.
    ['users.auditEvents', 'GET', '/audit-events'],
  ]),
  // `bulk-worker` has no route: the bulk bucket's object-created events start it.
  ...userAreaRoutes('bulk', [
    ['bulk.create', 'POST', '/users/bulk-create'],
    ['bulk.upload', 'POST', '/users/bulk-uploads'],
    ['bulk.job', 'GET', '/users/bulk-jobs/{jobId}'],
    ['bulk.failedRows', 'GET', '/users/bulk-jobs/{jobId}/failed-rows'],
    ['bulk.retry', 'POST', '/users/bulk-jobs/{jobId}/retry'],
    ['bulk.welcomes', 'POST', '/users/bulk-jobs/{jobId}/welcomes'],
    ['bulk.delete', 'DELETE', '/users/bulk-delete'],
    ['bulk.grant', 'POST', '/users/bulk-permissions'],
    ['bulk.revoke', 'DELETE', '/users/bulk-permissions'],
  ]),
  ...userAreaRoutes('configurations', [
    ['configurations.save', 'POST', '/configurations'],
    ['configurations.list', 'GET', '/configurations'],
    ['configurations.has', 'GET', '/configurations/userHasConf'],
    ['configurations.listOfBot', 'GET', '/configurations/{botUUID}'],
    ['configurations.hasOfBot', 'GET', '/configurations/{botUUID}/userHasConf'],
  ]),
  ...botRoutes('supervisors', [
    ['supervisors.list', 'GET', '/supervisors'],
    ['supervisors.default', 'GET', '/supervisors/default'],
    ['supervisors.get', 'GET', '/supervisors/{supervisorUUID}'],
    ['supervisors.update', 'PUT', '/supervisors/{supervisorUUID}'],
    ['supervisors.revisions', 'GET', '/supervisors/{supervisorUUID}/revisions'],
    ['supervisors.revision', 'GET', '/supervisors/{supervisorUUID}/revisions/{revision}'],
    ['supervisors.revisionDiff', 'GET', '/supervisors/{supervisorUUID}/revisions/{revision}/diff'],
    ['supervisors.restore', 'POST', '/supervisors/{supervisorUUID}/revisions/{revision}/restore'],
  ]),
  ...botRoutes('agents', [
    ['agents.list', 'GET', '/agents'],
    ['agents.quicksearch', 'GET', '/agents/quicksearch'],
    ['agents.create', 'POST', '/agents'],
    ['agents.get', 'GET', '/agents/{agentUUID}'],
    ['agents.update', 'PUT', '/agents/{agentUUID}'],
    ['agents.revisions', 'GET', '/agents/{agentUUID}/revisions'],
    ['agents.revision', 'GET', '/agents/{agentUUID}/revisions/{revision}'],
    ['agents.revisionDiff', 'GET', '/agents/{agentUUID}/revisions/{revision}/diff'],
    ['agents.restore', 'POST', '/agents/{agentUUID}/revisions/{revision}/restore'],
  ]),
];

/** OpenID Connect routes of one realm (public: they check their own credentials, OAuth's way). */
function authRoutes(routes: [string, HttpMethod, string][]): RouteDefinition[] {
  return routes.map(([id, method, path]) => ({
    id,
    group: 'auth' as const,
    method,
    area: 'auth' as const,
    path: `/auth/realms/{realm}${path}`,
    authenticated: false,
  }));
}

/** Routes of the user-administration area, under one organization. */
function userAreaRoutes(group: ResourceGroup, routes: [string, HttpMethod, string][]): RouteDefinition[] {
  return routes.map(([id, method, path]) => ({
    id,
    group,
    method,
    area: 'user' as const,
    path: `/org/{orgUUID}${path}`,
    authenticated: true,
  }));
}

/** Routes of the agent-configuration area, all under one bot. */
function botRoutes(group: ResourceGroup, routes: [string, HttpMethod, string][]): RouteDefinition[] {
  return routes.map(([id, method, path]) => ({
    id,
    group,
    method,
    area: 'generative' as const,
    path: `/org/{orgUUID}/env/{envUUID}/bot/{botUUID}${path}`,
    authenticated: true,
  }));
}

/**
 * Requests that match no route go to this group, whose router answers the standard 404 body; the
 * CDK stack wires it as the HTTP API's `$default` route and the local gateway does the same.
 */
export const defaultRouteGroup: ResourceGroup = 'auth';


export interface Route extends RouteDefinition {
  /** Full path as API Gateway sees it, e.g. `/user-management/org/{orgUUID}/users/identity-provider`. */
  fullPath: string;
  /** API Gateway route key, e.g. `GET /user-management/org/{orgUUID}/users`. */
  routeKey: string;
}


const SUBPATH = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Resolves every route against the configured subpaths. */
export function resolveRoutes(subpaths: Subpaths): Route[] {
  for (const [area, value] of Object.entries(subpaths)) {
    if (!SUBPATH.test(value)) {
      throw new Error(`Subpath for the ${area} area must match ${SUBPATH} (got "${value}")`);
    }
  }
  return routeDefinitions.map((route) => {
    const prefix = route.area === 'auth' || route.area === 'root' ? '' : `/${route.area === 'generative' ? subpaths.generative : subpaths.user}`;
    const fullPath = `${prefix}${route.path}`;
    return { ...route, fullPath, routeKey: `${route.method} ${fullPath}` };
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
