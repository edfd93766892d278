import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpRouterHandler from '@middy/http-router';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod';
import { authenticate, type Caller } from '../auth/caller';
import { subpathsFromEnv } from '../config';
import { resolveRoutes, routesOfGroup, type ResourceGroup, type Route } from '../routes';
import { errorMapper } from './error-mapper';
import { multipartBodyParser } from './multipart';
import { pathDecodes } from './path-decoding';
import { requestId } from './request-id';
import type { HttpEvent, HttpResult, Reply, RequestContext } from './types';
import { validate, type RouteSchemas } from './validation';

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export interface RouteInput<S extends RouteSchemas> {
  body: Infer<S['body']>;
  query: Infer<S['query']>;
  path: Infer<S['path']>;
  headers: Record<string, string | undefined>;
  /** The body as text, for routes that read it themselves (the OAuth form). */
  rawBody: string | undefined;
  requestId: string;
}

interface RouteSpec<S extends RouteSchemas, I> {
  schemas?: S;
  /**
   * The body is `multipart/form-data` (parsed by `multipart.ts` into fields and files) rather than
   * JSON; a file part longer than `maxFileBytes` arrives with `truncated: true`.
   */
  multipart?: { maxFileBytes: number };
  handle: (input: I) => Promise<Reply>;
}

export interface RouteHandler {
  authenticated: boolean;
  build: () => middy.MiddyfiedHandler<HttpEvent, HttpResult, Error, RequestContext>;
}

/** A route anyone may call (the token endpoint and JWKS). */
export function publicRoute<S extends RouteSchemas>(spec: RouteSpec<S, RouteInput<S>>): RouteHandler {
  return { authenticated: false, build: () => buildRoute(spec, false) };
}

/** A route that needs a valid user token; the handler receives the caller. */
export function userRoute<S extends RouteSchemas>(spec: RouteSpec<S, RouteInput<S> & { caller: Caller }>): RouteHandler {
  return { authenticated: true, build: () => buildRoute(spec, true) };
}

function authentication(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: async (request) => {
      request.context.caller = await authenticate(request.event.headers?.authorization);
    },
  };
}

function buildRoute<S extends RouteSchemas, I>(spec: RouteSpec<S, I>, authenticated: boolean) {
  const chain = middy<HttpEvent, HttpResult, Error, RequestContext>();
  // Authentication comes before the body is read, so an anonymous caller learns nothing from validation.
  if (authenticated) chain.use(authentication());
  if (spec.multipart) {
    chain.use(multipartBodyParser(spec.multipart));
  } else if (spec.schemas?.body) {
    chain.use(httpJsonBodyParser());
  }
  chain.use(validate(spec.schemas ?? {}));
  return chain.handler(async (event, context) => {
    const input = {
      ...(context.input ?? { body: undefined, query: undefined, path: undefined }),
      headers: event.headers ?? {},
      rawBody: rawBodyOf(event),
      requestId: context.requestId,
      caller: context.caller,
    } as I;
    return toResult(await spec.handle(input));
  });
}

function rawBodyOf(event: HttpEvent): string | undefined {
  if (typeof event.body !== 'string') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

function toResult(reply: Reply): HttpResult {
  const headers = { ...reply.headers };
  if (reply.body === undefined) return { statusCode: reply.status, headers };
  if (reply.contentType) {
    return { statusCode: reply.status, headers: { ...headers, 'content-type': reply.contentType }, body: String(reply.body) };
  }
  return {
    statusCode: reply.status,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(reply.body),
  };
}

/** Throws when a function's handlers and the route table disagree (checked at cold start and in tests). */
export function checkHandlers(routes: Route[], handlers: Record<string, RouteHandler>): void {
  const problems: string[] = [];
  for (const route of routes) {
    const handler = handlers[route.id];
    if (!handler) problems.push(`no handler for ${route.id}`);
    else if (handler.authenticated !== route.authenticated) problems.push(`${route.id} disagrees on authentication`);
  }
  for (const id of Object.keys(handlers)) {
    if (!routes.some((route) => route.id === id)) problems.push(`handler ${id} has no route`);
  }
  if (problems.length > 0) throw new Error(`Route table and handlers disagree: ${problems.join('; ')}`);
}

/**
 * Builds a resource group's Lambda handler: the group's routes from the route table, each bound to its
 * handler, behind one middy chain whose order is fixed here for every function.
 */
export function createFunction(group: ResourceGroup, handlers: Record<string, RouteHandler>): ApiHandler {
  const routes = routesOfGroup(resolveRoutes(subpathsFromEnv()), group);
  checkHandlers(routes, handlers);
  const router = httpRouterHandler(
    routes.map((route) => ({ method: route.method, path: route.fullPath, handler: handlers[route.id]!.build() })),
  );
  return withHttpChain(router as never) as unknown as ApiHandler;
}

/** What each function exports: a plain HTTP API (payload 2.0) Lambda handler. */
export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The middy order every function shares, around a router (or, in unit tests, one route). */
export function withHttpChain(inner: (event: HttpEvent, context: RequestContext) => Promise<HttpResult>) {
  return middy<HttpEvent, HttpResult, Error, RequestContext>()
    .use(httpHeaderNormalizer())
    .use(requestId())
    .use(httpEventNormalizer())
    .use(pathDecodes())
    // An empty Reporting-Endpoints header says nothing; leave it out.
    .use(httpSecurityHeaders({ reportingEndpoints: false } as never))
    .use(errorMapper())
    .handler(inner);
}
