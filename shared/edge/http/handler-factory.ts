import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler from '@middy/http-router';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { ResourceGroup } from '../api/operation';
import { resolveOperations, type Route } from '../api/route-resolution';
import { subpathsFromEnv } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import type { CrossOriginChain } from './cross-origin';
import { errorMapper } from './error-mapper';
import { observability } from './observability';
import { pathDecodes } from './path-decoding';
import { requestId } from './request-id';
import type { RouteChain, RouteHandler } from './route-input';
import type { HttpEvent, HttpResult } from './types';

export type { RouteChain, RouteHandler, RouteInput, RouteSpec } from './route-input';

/** A function's handlers by operation id, for `createFunction`: one per operation of its group. */
export function routes(...handlers: RouteHandler[]): Record<string, RouteHandler> {
  return Object.fromEntries(handlers.map((handler) => [handler.operationId!, handler]));
}

/** Throws when a function's handlers and the route table disagree (checked at cold start and in tests). */
export function checkHandlers(routes: Route[], handlers: Record<string, RouteHandler>): void {
  const problems: string[] = [];
  for (const route of routes) {
    const handler = handlers[route.id];
    if (!handler) problems.push(`no handler for ${route.id}`);
    else if (handler.authenticated !== route.authenticated) problems.push(`${route.id} disagrees on authentication`);
    else if (handler.operationId !== undefined && handler.operationId !== route.id) problems.push(`${route.id} is bound to ${handler.operationId}`);
  }
  for (const id of Object.keys(handlers)) {
    if (!routes.some((route) => route.id === id)) problems.push(`handler ${id} has no route`);
  }
  if (problems.length > 0) throw new Error(`Route table and handlers disagree: ${problems.join('; ')}`);
}

/** What each function exports: an HTTP API (payload 2.0) Lambda handler, as middy builds it. */
export type ApiHandler = ReturnType<typeof withHttpChain>;

/**
 * Builds a resource group's Lambda handler: the operations its handlers are bound to, resolved against
 * the configured subpaths, behind one middy chain whose order is fixed here for every function. A
 * function reads only its own operations, so its bundle holds no other area's schemas; that it binds
 * every operation of its group is checked against the whole catalogue in `test/unit/routes.test.ts`.
 */
export function createFunction(group: ResourceGroup, handlers: Record<string, RouteHandler>, options: { crossOrigin?: CrossOriginChain } = {}): ApiHandler {
  const operations = Object.values(handlers).flatMap((handler) => (handler.operation ? [handler.operation] : []));
  const foreign = operations.filter((operation) => operation.group !== group).map((operation) => operation.id);
  if (foreign.length > 0) throw new Error(`The ${group} function is bound to other groups' operations: ${foreign.join(', ')}`);
  const routes = resolveOperations(operations, subpathsFromEnv());
  checkHandlers(routes, handlers);
  const router = httpRouterHandler<HttpEvent, HttpResult>(
    routes.map((route) => ({ method: route.method, path: route.fullPath, handler: builtOnFirstCall(handlers[route.id]!.build) })),
  );
  return withHttpChain(router, group, options.crossOrigin?.(routes));
}

/** A route's chain, built when the route is first called rather than for every route as the function loads. */
function builtOnFirstCall(build: () => RouteChain): RouteChain {
  const chain = lazy(build);
  return middy<HttpEvent, HttpResult>().handler((event, context, options) => chain()(event, context, options));
}

/**
 * The middy order every function shares, around a router (or, in unit tests, one route): header
 * normaliser, Lambda context and metrics, request id and logging, event normaliser, path check,
 * security headers, the CORS headers of the routes a page on another origin may read (`cross-origin.ts`,
 * in a function that opens any), then the error mapper, whose `onError` runs first when anything above
 * or in `inner` throws.
 */
export function withHttpChain(inner: RouteChain, group = 'management-api', crossOrigin?: middy.MiddlewareObj<HttpEvent, HttpResult>) {
  return middy<HttpEvent, HttpResult>()
    .use(httpHeaderNormalizer())
    .use(observability(group))
    .use(requestId())
    .use(eventNormalizer())
    .use(pathDecodes())
    .use(ownHeadersWin())
    .use(httpSecurityHeaders(securityHeaderOptions))
    .use(crossOrigin ? [crossOrigin] : [])
    .use(errorMapper())
    .handler(inner);
}

/** The security headers a reply may remove by setting them empty: a page meant to be framed has no `X-Frame-Options`. */
const REMOVABLE_HEADERS = new Set(['X-Frame-Options']);

/**
 * A header a reply set itself (lower-case, as every reply spells them) replaces the security headers'
 * one of the same name (middy spells them capitalised), rather than going out beside it: the sign-in
 * pages' and the reference's own `Cross-Origin-Opener-Policy`. Set empty, one of `REMOVABLE_HEADERS`
 * is removed and any other keeps the shared value. Its `after` runs once the security headers' has
 * (middy runs `after`s in reverse).
 */
function ownHeadersWin(): middy.MiddlewareObj<HttpEvent, HttpResult> {
  const after: middy.MiddlewareFn<HttpEvent, HttpResult> = (request) => {
    const headers = request.response?.headers;
    if (!headers) return;
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (name !== lower && lower in headers) {
        if (headers[lower] !== '') headers[name] = headers[lower]!;
        else if (REMOVABLE_HEADERS.has(name)) delete headers[name];
        delete headers[lower];
      }
    }
  };
  return { after, onError: after };
}

/**
 * middy's event normaliser handles payload 2.0 as well, but its type names only the 1.0 event: the one
 * cast in the chain, at the library's edge.
 */
const eventNormalizer = httpEventNormalizer as unknown as () => middy.MiddlewareObj<HttpEvent, HttpResult>;

/**
 * middy's Content-Security-Policy would replace a page's own with one that sandboxes it and forbids
 * every form, and its Permissions-Policy would replace a page's own and has features Chromium warns
 * about, so `toResult` gives HTML both instead; an API answer needs neither.
 */
const securityHeaderOptions = { contentSecurityPolicy: false, permissionsPolicy: false };
