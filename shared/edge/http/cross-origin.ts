import type middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { Operation } from '../api/operation';
import type { Route } from '../api/route-resolution';
import type { HttpEvent, HttpResult } from './types';

/**
 * Which of a function's routes a web page on another origin may read (CORS), and from where. Only
 * simple requests are answered this way (a form post, a GET with no credentials of its own): the API
 * has no preflight (`OPTIONS`) routes.
 */
export interface CrossOriginRule {
  /** The operations, as the catalogue declares them. */
  operations: readonly Operation[];
  /**
   * `any`: every origin, without credentials (a public document). Otherwise the origins allowed, each
   * answered as itself with `Access-Control-Allow-Credentials` (a browser library may send its
   * requests with credentials), and `Vary: Origin` always.
   */
  origins: 'any' | ((origin: string) => boolean);
}

/** What `createFunction` takes: the middleware for its routes, once they are resolved. */
export type CrossOriginChain = (routes: readonly Route[]) => middy.MiddlewareObj<HttpEvent, HttpResult>;

/**
 * middy's CORS middleware for the routes each rule names, found by the route key API Gateway puts on the
 * event; other routes answer no CORS header. A file of its own, imported only by a function that opens
 * routes to other origins, so that the others carry no CORS package.
 */
export const crossOrigin = (rules: readonly CrossOriginRule[]): CrossOriginChain => (routes) => {
  const byRoute = new Map<string, middy.MiddlewareObj<HttpEvent, HttpResult>>();
  for (const rule of rules) {
    const { origins } = rule;
    const cors =
      origins === 'any'
        ? httpCors({ origin: '*' })
        : httpCors({ credentials: true, vary: 'Origin', getOrigin: (incoming: string | undefined) => (incoming !== undefined && origins(incoming) ? incoming : null) });
    for (const route of routes) {
      if (rule.operations.some((operation) => operation.id === route.id)) byRoute.set(route.routeKey, cors as middy.MiddlewareObj<HttpEvent, HttpResult>);
    }
  }
  const apply = (phase: 'after' | 'onError'): middy.MiddlewareFn<HttpEvent, HttpResult> => (request) => {
    // An error thrown before any answer (none was mapped) is not this middleware's to shape.
    if (phase === 'onError' && request.response === undefined) return;
    const cors = byRoute.get(request.event.routeKey);
    if (!cors) return;
    void cors[phase]?.(request);
    // middy sends Allow-Credentials whatever the origin: without an allowed origin it says nothing true.
    const headers = request.response?.headers;
    if (headers && !('Access-Control-Allow-Origin' in headers)) delete headers['Access-Control-Allow-Credentials'];
  };
  return { after: apply('after'), onError: apply('onError') };
};
