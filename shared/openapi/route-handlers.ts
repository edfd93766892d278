import * as agents from '../../functions/agents/handler';
import * as auth from '../../functions/auth/handler';
import * as bulk from '../../functions/bulk/handler';
import * as configurations from '../../functions/configurations/handler';
import * as docs from '../../functions/docs/handler';
import * as supervisors from '../../functions/supervisors/handler';
import * as users from '../../functions/users/handler';
import type { RouteHandler } from '../http/handler-factory';

/**
 * Every route's handler by route id, for the request schemas they validate with. Read when called, not
 * when this module loads, so a function that serves the document may import it (an import cycle).
 */
export function routeHandlers(): Record<string, RouteHandler> {
  return {
    ...auth.handlers,
    ...docs.handlers,
    ...users.handlers,
    ...bulk.handlers,
    ...configurations.handlers,
    ...supervisors.handlers,
    ...agents.handlers,
  };
}
