import type { Subpaths } from '../../kernel/config';
import { takesUserToken, type Operation } from './operation';

/** An operation where API Gateway routes it. */
export interface Route extends Operation {
  /** Whether the chain checks a user's bearer token (every management operation). */
  authenticated: boolean;
  /** Full path as API Gateway sees it, e.g. `/user-management/org/{orgUUID}/users/identity-provider`. */
  fullPath: string;
  /** API Gateway route key, e.g. `GET /user-management/org/{orgUUID}/users`. */
  routeKey: string;
}

const SUBPATH = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Operations resolved against the configured subpaths. It takes the operations it is given, so a
 * function resolves its own operations without bundling the rest of the catalogue.
 */
export function resolveOperations(operations: readonly Operation[], subpaths: Subpaths): Route[] {
  for (const [area, value] of Object.entries(subpaths)) {
    if (!SUBPATH.test(value)) {
      throw new Error(`Subpath for the ${area} area must match ${SUBPATH} (got "${value}")`);
    }
  }
  return operations.map((operation) => {
    const prefix = operation.area === 'auth' || operation.area === 'root' ? '' : `/${operation.area === 'generative' ? subpaths.generative : subpaths.user}`;
    const fullPath = `${prefix}${operation.path}`;
    return { ...operation, authenticated: takesUserToken(operation.access), fullPath, routeKey: `${operation.method} ${fullPath}` };
  });
}

/** An operation's full path with its `{name}` parameters filled in, e.g. for a Location header. */
export function operationPath(operation: Operation, params: Record<string, string>, subpaths: Subpaths): string {
  const [route] = resolveOperations([operation], subpaths);
  return route!.fullPath.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Route ${operation.id} needs the parameter ${name}`);
    return encodeURIComponent(value);
  });
}
