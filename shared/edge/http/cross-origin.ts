import type middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { HttpEvent, HttpResult } from './types';

/**
 * Which of a function's routes a web page on another origin may read (CORS), and from where. Only
 * simple requests are answered this way (a form post, a GET with no credentials of its own): the API
 * has no preflight (`OPTIONS`) routes.
 */
export interface CrossOriginRule {
  /** The routes' API Gateway route keys (`POST /auth/realms/{realm}/protocol/openid-connect/token`). */
  routeKeys: readonly string[];
  /**
   * `any`: every origin, without credentials (a public document). Otherwise the origins allowed, each
   * answered as itself with `Access-Control-Allow-Credentials` (a browser library may send its
   * requests with credentials), and `Vary: Origin` always.
   */
  origins: 'any' | ((origin: string) => boolean);
}

/** middy's CORS middleware for the routes each rule names; other routes answer no CORS header. */
export function crossOrigin(rules: readonly CrossOriginRule[]): middy.MiddlewareObj<HttpEvent, HttpResult> {
  const byRoute = new Map<string, middy.MiddlewareObj<HttpEvent, HttpResult>>();
  for (const rule of rules) {
    const { origins } = rule;
    const cors =
      origins === 'any'
        ? httpCors({ origin: '*' })
        : httpCors({ credentials: true, vary: 'Origin', getOrigin: (incoming: string | undefined) => (incoming !== undefined && origins(incoming) ? incoming : null) });
    for (const routeKey of rule.routeKeys) byRoute.set(routeKey, cors as middy.MiddlewareObj<HttpEvent, HttpResult>);
  }
  const apply = (phase: 'after' | 'onError'): middy.MiddlewareFn<HttpEvent, HttpResult> => (request) => {
    // An error thrown before any answer (none was mapped) is not this middleware's to shape.
    if (phase === 'onError' && request.response === undefined) return;
    return byRoute.get(request.event.routeKey)?.[phase]?.(request);
  };
  return { after: apply('after'), onError: apply('onError') };
}
