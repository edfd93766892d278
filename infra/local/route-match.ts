/** Matching a request to a route as API Gateway does: method and path, the fewest path parameters first. */
import type { Route } from '../../shared/edge/api/routes';

export interface CompiledRoute { route: Route; pattern: RegExp; names: string[] }

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const segments = route.fullPath.split('/').map((segment) => {
    const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
    if (param) names.push(param[1]!);
    return param ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return { route, pattern: new RegExp(`^${segments.join('/')}$`), names };
}

/**
 * The route table ready for matching, once: a route with fewer path parameters first, as API Gateway
 * prefers `/supervisors/default` to `/supervisors/{supervisorUUID}`.
 */
export function compileRoutes(routes: Route[]): CompiledRoute[] {
  return routes.map(compile).sort((a, b) => a.names.length - b.names.length);
}

/**
 * HTTP API hands the function percent-decoded path values; a value that does not decode (`%`, `%zz`,
 * `%C0%AF`; undocumented) reaches the function as sent, so the gateway never fails on it.
 */
export function decodePathValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Matches a request like API Gateway does: method and path against the compiled routes, else `$default`. */
export function matchRoute(routes: CompiledRoute[], method: string, path: string) {
  for (const { route, pattern, names } of routes) {
    if (route.method !== method) continue;
    const match = path.match(pattern);
    if (match) {
      const pathParameters = Object.fromEntries(names.map((name, i) => [name, decodePathValue(match[i + 1]!)]));
      return { route, pathParameters };
    }
  }
  return undefined;
}
