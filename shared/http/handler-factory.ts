import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpRouterHandler from '@middy/http-router';
import httpSecurityHeaders from '@middy/http-security-headers';
import * as z from 'zod';
import { withAuditContext } from '../audit/audit-context';
import { readCaller, verifyBearer, type Addressed, type Caller } from '../auth/caller';
import type { Prefetched } from '../store/prefetched';
import { subpathsFromEnv } from '../config';
import { resolveRoutes, routesOfGroup, type ResourceGroup, type Route } from '../api/routes';
import type { ItemKey } from '../store/keys';
import { errorMapper } from './error-mapper';
import { idempotencyKeyCheck, idempotently, keyedRequestOf } from './idempotency';
import { multipartBodyParser } from './multipart';
import { pathDecodes } from './path-decoding';
import { observability } from './observability';
import { requestId } from './request-id';
import { uuidSchema } from '../schemas/fields';
import type { HttpEvent, HttpResult, Reply, RequestContext } from './types';
import { validate, type RouteSchemas, type ValidInput } from './validation';

/** What a route's handler receives: the validated path, query and body, and the request's plain facts. */
export type RouteInput<S extends RouteSchemas> = ValidInput<S> & {
  headers: Record<string, string | undefined>;
  /** The body as text, for routes that read it themselves (the OAuth form). */
  rawBody: string | undefined;
  /** The request's cookies (`name=value` each), which payload 2.0 carries apart from the headers. */
  cookies: string[];
  /** The request's query string parameters, for routes that read them without a schema. */
  rawQuery: Record<string, string | undefined>;
  requestId: string;
};

export interface RouteSpec<S extends RouteSchemas, I> {
  schemas?: S;
  /**
   * The body is `multipart/form-data` (parsed by `multipart.ts` into fields and files) rather than
   * JSON; a file part longer than `maxFileBytes` arrives with `truncated: true`.
   */
  multipart?: { maxFileBytes: number };
  handle: (input: I) => Promise<Reply>;
}

/**
 * One route's chain, as the router calls it. Its context is `any`, as in the router's own route type:
 * the chain's middlewares add to the context (caller, input) what no caller supplies.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteChain = middy.MiddyfiedHandler<HttpEvent, HttpResult, Error, any>;

export interface RouteHandler {
  authenticated: boolean;
  build: () => RouteChain;
  /** The catalogue operation it serves (`route()` in `operation-route.ts`). */
  readonly operationId?: string;
}

/** A route anyone may call (the token endpoint and JWKS). */
export function publicRoute<S extends RouteSchemas>(spec: RouteSpec<S, RouteInput<S>>): RouteHandler {
  const build = () =>
    middy<HttpEvent, HttpResult, Error, RequestContext>()
      .use(bodyParser(spec))
      .use(validate(spec.schemas))
      .handler(async (event, context) => toResult(await spec.handle({ ...context.input, ...requestFacts(event, context) })));
  return { authenticated: false, build };
}

/** What an authenticated route's handler receives besides its input: the caller, and the items read with it. */
export interface CallerInput {
  caller: Caller;
  prefetched: Prefetched;
}

/** The resource a keyed request changed, as its change recorded it (`shared/audit/audit-event.ts`). */
export interface ChangedResource {
  type: string;
  uuid: string;
}

/** What an authenticated route's steps receive: the request, the caller and what was read with it. */
export type UserRouteInput<S extends RouteSchemas> = RouteInput<S> & CallerInput;

export interface UserRouteSpec<S extends RouteSchemas, A> extends RouteSpec<S, UserRouteInput<S> & { scope: A }> {
  /**
   * The items the handler will read, from its valid path: read in the caller's BatchGetItem. Only a
   * saving: the use cases read what was not prefetched themselves.
   */
  prefetch?: (path: ValidInput<S>['path']) => ItemKey[];
  /**
   * Who may call, in what scope: runs after validation and before anything else, an `Idempotency-Key`
   * replay included, so a caller who lost access gets the 403 or 404 it would get without a key. Its
   * result reaches `handle` as `scope`.
   */
  authorize?: (input: UserRouteInput<S>) => Promise<A>;
  /**
   * The route honours `Idempotency-Key` (`idempotency.ts`): with the header, the same request within
   * 24 hours answers the first answer again and has no second effect. Without it, nothing changes.
   * `replay` answers a request whose change committed but whose answer was never kept (the process
   * stopped in between): it renders the resource the change recorded, as the first answer did.
   * Requires `authorize`.
   */
  idempotent?: true | { replay: (resource: ChangedResource, input: UserRouteInput<S> & { scope: A }) => Promise<Reply> };
}

/** A route that needs a valid user token; the handler receives the caller and, with `authorize`, its scope. */
export function userRoute<S extends RouteSchemas, A = undefined>(spec: UserRouteSpec<S, A>): RouteHandler {
  if (spec.idempotent && !spec.authorize) throw new Error('A route that honours Idempotency-Key authorizes before the key is looked up: give it `authorize`');
  const replay = typeof spec.idempotent === 'object' ? spec.idempotent.replay : undefined;
  // Authentication comes before the body is read, so an anonymous caller learns nothing from validation.
  const build = () =>
    middy<HttpEvent, HttpResult, Error, RequestContext>()
      .use(authentication(spec))
      .use(spec.idempotent ? [idempotencyKeyCheck()] : [])
      .use(bodyParser(spec))
      .use(validate(spec.schemas))
      .handler(async (event, context) => {
        const { caller, prefetched, idempotencyKey } = context;
        const input: UserRouteInput<S> = { ...context.input, ...requestFacts(event, context), caller, prefetched };
        // Authorized before any idempotency record is read: a replay is answered only to whom a new request would be.
        const scope = spec.authorize ? await spec.authorize(input) : (undefined as A);
        const keyed = idempotencyKey === undefined ? undefined : keyedRequestOf(caller.user.uuid, idempotencyKey, event);
        // The caller and the request are the cause of every change the handler makes (audit events);
        // a keyed request's change records the key too, in the change's own transaction.
        const cause = {
          actor: { uuid: caller.user.uuid, email: caller.user.email },
          requestId: context.requestId,
          ...(keyed && replay ? { keyedRequest: keyed } : {}),
        };
        const answer = async () => toResult(await withAuditContext(cause, () => spec.handle({ ...input, scope })));
        if (keyed === undefined) return answer();
        return idempotently({ keyed, event, context }, answer, replay && (async (resource) => toResult(await replay(resource, { ...input, scope }))));
      });
  return { authenticated: true, build };
}

/** Every authenticated route lives under `/org/{orgUUID}`. */
const orgPath = z.object({ orgUUID: uuidSchema });

/**
 * The token's signature and claims first (a bad token is a 401 before any read), then one
 * BatchGetItem of the session, the user and what the route prefetches, then (in `validate`) the
 * request. The path is only peeked at here: when it is invalid nothing is prefetched, and validation
 * answers 422 once the caller is known to be valid.
 */
function authentication<S extends RouteSchemas, A>(
  spec: UserRouteSpec<S, A>,
): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & CallerInput> {
  return {
    before: async (request) => {
      const claims = await verifyBearer(request.event.headers?.authorization);
      const { caller, prefetched } = await readCaller(claims, addressedBy(request.event, spec));
      request.context.caller = caller;
      request.context.prefetched = prefetched;
    },
  };
}

function addressedBy<S extends RouteSchemas, A>(event: HttpEvent, spec: UserRouteSpec<S, A>): Addressed {
  const params = event.pathParameters ?? {};
  const org = orgPath.safeParse(params);
  const path = spec.prefetch && spec.schemas?.path?.safeParse(params);
  return {
    orgUuid: org.success ? org.data.orgUUID : undefined,
    // The route's own path schema accepted it, which is what ValidInput<S>['path'] says.
    prefetch: path && path.success ? spec.prefetch!(path.data as ValidInput<S>['path']) : [],
  };
}

/** The route's body parser: multipart, JSON when it has a body schema, else none (an empty list). */
function bodyParser(spec: {
  schemas?: RouteSchemas;
  multipart?: { maxFileBytes: number };
}): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext>[] {
  if (spec.multipart) return [multipartBodyParser(spec.multipart)];
  return spec.schemas?.body ? [httpJsonBodyParser<HttpEvent>()] : [];
}

function requestFacts(event: HttpEvent, context: RequestContext) {
  return {
    headers: event.headers ?? {},
    rawBody: rawBodyOf(event),
    cookies: event.cookies ?? [],
    rawQuery: event.queryStringParameters ?? {},
    requestId: context.requestId,
  };
}

function rawBodyOf(event: HttpEvent): string | undefined {
  if (typeof event.body !== 'string') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/**
 * The Content-Security-Policy of an HTML page that sets none: nothing loads, nothing submits. A page
 * that needs more (the account page's forms and style, the API reference's script) states its own.
 */
export const STRICT_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The features an HTML page is denied (Permissions-Policy), unless it states its own. middy's list
 * also names features Chromium no longer knows or never shipped (`battery`, `document-domain`,
 * `window-placement`, `sync-script`, …): it ignores each of them with a console warning, so they are
 * left out; what Chromium enforces is the same. `web-share` is known only where the platform shares
 * (not on Linux).
 */
export const PAGE_DENIED_FEATURES = [
  'accelerometer', 'autoplay', 'camera', 'cross-origin-isolated', 'display-capture', 'encrypted-media', 'fullscreen',
  'geolocation', 'gyroscope', 'keyboard-map', 'magnetometer', 'microphone', 'midi', 'payment', 'picture-in-picture',
  'publickey-credentials-get', 'screen-wake-lock', 'sync-xhr', 'usb', 'web-share', 'xr-spatial-tracking', 'clipboard-read',
  'clipboard-write', 'gamepad', 'hid', 'idle-detection', 'interest-cohort', 'serial',
] as const;

/** A Permissions-Policy header's value that denies these features to every origin. */
export const denyingPermissions = (features: readonly string[]): string => features.map((feature) => `${feature}=()`).join(', ');

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);

function toResult(reply: Reply): HttpResult {
  const headers = { ...reply.headers };
  const cookies = reply.cookies?.length ? { cookies: reply.cookies } : {};
  if (reply.body === undefined) return { statusCode: reply.status, headers, ...cookies };
  if (reply.contentType) {
    if (/^text\/html\b/i.test(reply.contentType)) {
      if (!hasHeader(headers, 'content-security-policy')) headers['content-security-policy'] = STRICT_PAGE_POLICY;
      if (!hasHeader(headers, 'permissions-policy')) headers['permissions-policy'] = denyingPermissions(PAGE_DENIED_FEATURES);
    }
    return { statusCode: reply.status, headers: { ...headers, 'content-type': reply.contentType }, body: String(reply.body), ...cookies };
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
 * Builds a resource group's Lambda handler: the group's routes from the route table, each bound to its
 * handler, behind one middy chain whose order is fixed here for every function.
 */
export function createFunction(group: ResourceGroup, handlers: Record<string, RouteHandler>): ApiHandler {
  const routes = routesOfGroup(resolveRoutes(subpathsFromEnv()), group);
  checkHandlers(routes, handlers);
  const router = httpRouterHandler<HttpEvent, HttpResult>(
    routes.map((route) => ({ method: route.method, path: route.fullPath, handler: handlers[route.id]!.build() })),
  );
  return withHttpChain(router, group);
}

/**
 * The middy order every function shares, around a router (or, in unit tests, one route): header
 * normaliser, Lambda context and metrics, request id and logging, event normaliser, path check, security headers, then the error
 * mapper, whose `onError` runs first when anything above or in `inner` throws.
 */
export function withHttpChain(inner: RouteChain, group = 'management-api') {
  return middy<HttpEvent, HttpResult>()
    .use(httpHeaderNormalizer())
    .use(observability(group))
    .use(requestId())
    .use(eventNormalizer())
    .use(pathDecodes())
    .use(httpSecurityHeaders(securityHeaderOptions))
    .use(errorMapper())
    .handler(inner);
}

/**
 * middy's event normaliser handles payload 2.0 as well, but its type names only the 1.0 event: the one
 * cast in the chain, at the library's edge.
 */
const eventNormalizer = httpEventNormalizer as unknown as () => middy.MiddlewareObj<HttpEvent, HttpResult>;

/**
 * An empty Reporting-Endpoints header says nothing; leave it out. The option exists in middy's code but
 * not in its option type, whose properties are all optional, so it passes as a variable beside one
 * default restated. middy's Content-Security-Policy (on HTML only) would replace a page's own with one
 * that sandboxes it and forbids every form, and its Permissions-Policy (HTML only too) would replace a
 * page's own and has features Chromium warns about, so `toResult` gives HTML both instead.
 */
const securityHeaderOptions = { reportingEndpoints: false, poweredBy: { server: '' }, contentSecurityPolicy: false, permissionsPolicy: false };
