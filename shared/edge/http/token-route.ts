import middy from '@middy/core';
import { accessKeys, authorizeAccess, type AccessPath, type ScopeOf } from '../../app/access/access-policy';
import type { Operation, TokenAccess } from '../api/operation';
import { withAuditContext } from '../../domain/audit/audit-context';
import { readCaller, verifyBearer, type Addressed, type Caller } from '../../app/auth/caller';
import { ValidationError } from '../../kernel/errors';
import type { ItemKey, Prefetched } from '../../domain/requests/prefetch.repository';
import { uniqueKeys } from '../../domain/requests/prefetch.repository';
import { idempotencyKeyCheck, idempotently, keyedRequestOf } from './idempotency';
import type { SchemasOf } from './operation-schemas';
import { bodyParser, requestFacts, toResult, type RouteHandler, type RouteInput, type RouteSpec } from './route-input';
import { routeChainOptions, type AnswerOf, type HttpEvent, type HttpResult, type Reply, type RequestContext } from './types';
import { parsedPath, routePath, validate, type ParsedPath, type PathContext, type RouteSchemas, type ValidInput } from './validation';

/** What an authenticated route's handler receives besides its input: the caller, and the items read with it. */
export interface CallerInput {
  caller: Caller;
  prefetched: Prefetched;
}

/** The resource a keyed request changed, as its change recorded it (`shared/domain/audit/audit-event.ts`). */
export interface ChangedResource {
  type: string;
  uuid: string;
}

/** What an authenticated route's steps receive: the request, the caller, what was read with it, and the scope its access grants. */
export type TokenRouteInput<S extends RouteSchemas, A> = RouteInput<S> & CallerInput & { scope: A };

export interface TokenRouteSpec<S extends RouteSchemas, A> extends RouteSpec<S, TokenRouteInput<S, A>> {
  /** Who may call (the catalogue's declaration): checked after the path, before the body is read or validated. */
  access: TokenAccess;
  /**
   * More items the handler will read, from its valid path: read in the caller's BatchGetItem beside
   * what the access check needs. Only a saving: the use cases read what was not prefetched themselves.
   */
  prefetch?: (path: ValidInput<S>['path']) => ItemKey[];
  /**
   * The route honours `Idempotency-Key` (`idempotency.ts`): with the header, the same request within
   * 24 hours answers the first answer again and has no second effect. Without it, nothing changes.
   * `replay` answers a request whose change committed but whose answer was never kept (the process
   * stopped in between): it renders the resource the change recorded, as the first answer did. The
   * key is looked up after the access check, so a caller who lost access gets the 403 or 404 it would
   * get without a key.
   */
  idempotent?: true | { replay: (resource: ChangedResource, input: TokenRouteInput<S, A>) => Promise<Reply> };
}

/**
 * A route that needs a valid user token. The chain's order (docs/architecture.md#request-path): the path
 * parsed (once, for every step after), the token (401 before anything is read), one BatchGetItem of the session, the user and the items the access check and the
 * handler need, the path (422 when malformed), the access check (404 or 403), the idempotency key,
 * then the body is read and the query and body validated (422), and the handler runs with the scope.
 * So a caller without access learns nothing from validation: it gets 403 or 404 whatever it sends.
 */
export function tokenRoute<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): RouteHandler {
  const replay = typeof spec.idempotent === 'object' ? spec.idempotent.replay : undefined;
  const build = () =>
    middy<HttpEvent, HttpResult, Error, RequestContext>(routeChainOptions)
      .use(routePath(spec.schemas?.path))
      .use(authentication(spec))
      .use(authorization(spec))
      .use(spec.idempotent ? [idempotencyKeyCheck()] : [])
      .use(bodyParser(spec))
      .use(validate(spec.schemas))
      .handler(async (event, context) => {
        const { caller, prefetched, scope, idempotencyKey } = context as RequestContext & CallerInput & { scope: A; idempotencyKey?: string; input: ValidInput<S> };
        const input: TokenRouteInput<S, A> = { ...(context as unknown as { input: ValidInput<S> }).input, ...requestFacts(event, context), caller, prefetched, scope };
        const keyed = idempotencyKey === undefined ? undefined : keyedRequestOf(caller.user.uuid, idempotencyKey, event);
        // The caller and the request are the cause of every change the handler makes (audit events);
        // a keyed request's change records the key too, in the change's own transaction.
        const cause = {
          actor: { uuid: caller.user.uuid, email: caller.user.email },
          requestId: context.requestId,
          ...(keyed && replay ? { keyedRequest: keyed } : {}),
        };
        const answer = async () => toResult(await withAuditContext(cause, () => spec.handle(input)));
        if (keyed === undefined) return answer();
        return idempotently({ keyed, event, context }, answer, replay && (async (resource) => toResult(await replay(resource, input))));
      });
  return { authenticated: true, build };
}

/**
 * The organization of an authenticated route's path (every one lives under `/org/{orgUUID}`): the
 * parsed path's; when another segment of the path is bad, the `orgUUID` the path's schema did not
 * refuse, lower-cased as the schema's UUID field makes it, so the batch still reads the user beside
 * the session and `authorization` answers the bad segment.
 */
function orgOf(parsed: ParsedPath, event: HttpEvent): string | undefined {
  if (parsed.valid) {
    const { orgUUID } = (parsed.value ?? {}) as { orgUUID?: unknown };
    return typeof orgUUID === 'string' ? orgUUID : undefined;
  }
  const raw = event.pathParameters?.orgUUID;
  return raw !== undefined && !parsed.issues.some((issue) => issue.fieldName === 'orgUUID') ? raw.toLowerCase() : undefined;
}

/**
 * The token's signature and claims first (a bad token is a 401 before any read), then one
 * BatchGetItem of the session, the user and the items the access check and the handler will read.
 * When the path is invalid nothing is prefetched; `authorization` answers it.
 */
function authentication<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & Partial<PathContext> & CallerInput> {
  return {
    before: async (request) => {
      const claims = await verifyBearer(request.event.headers?.authorization);
      const addressed = addressedBy(request.event, parsedPath(request.context), spec as TokenRouteSpec<S, unknown>);
      const { caller, prefetched } = await readCaller(claims, addressed);
      request.context.caller = caller;
      request.context.prefetched = prefetched;
    },
  };
}

/** What the request names for the batch: its organization, and (from a valid path) the items the access check and the handler will read, each once. */
function addressedBy<S extends RouteSchemas>(event: HttpEvent, parsed: ParsedPath, spec: TokenRouteSpec<S, unknown>): Addressed {
  const path = parsed.valid ? (parsed.value as ValidInput<S>['path']) : undefined;
  return {
    orgUuid: orgOf(parsed, event),
    prefetch: path === undefined ? [] : uniqueKeys([...accessKeys(spec.access, path as AccessPath), ...(spec.prefetch?.(path) ?? [])]),
  };
}

/** The path (422 when malformed, before any access is granted), then the access check: the scope, or 404 / 403. */
function authorization<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & Partial<PathContext> & CallerInput & { scope?: A }> {
  return {
    before: async (request) => {
      const parsed = parsedPath(request.context);
      if (!parsed.valid) throw new ValidationError({ details: parsed.issues });
      const path = (spec.schemas?.path ? parsed.value : {}) as AccessPath;
      request.context.scope = (await authorizeAccess(spec.access, request.context.caller, path, request.context.prefetched)) as A;
    },
  };
}

/** The binding of an operation that takes a user token: the use case and the answer; who may call comes from the catalogue. */
export type TokenBinding<O extends Operation & { access: TokenAccess }> = Omit<TokenRouteSpec<SchemasOf<O>, ScopeOf<O['access']>>, 'schemas' | 'multipart' | 'access' | 'handle'> & {
  handle: (input: TokenRouteInput<SchemasOf<O>, ScopeOf<O['access']>>) => Promise<AnswerOf<O>>;
};

/** Binds a handler to an operation of the catalogue that takes a user token: authenticated, authorized by its declared access, then validated. */
export function tokenOperation<const O extends Operation & { access: TokenAccess }>(operation: O, binding: NoInfer<TokenBinding<O>>): RouteHandler {
  const { path, query, body, multipart } = operation.request ?? {};
  // The signature ties the binding's types to the operation's schemas and answers; past it, one generic spec.
  // Its schemas are made when the chain is built (on the route's first call), not as the function loads.
  const route = () =>
    tokenRoute({ schemas: { path: path?.(), query: query?.(), body: body?.() }, ...(multipart ? { multipart } : {}), access: operation.access, ...binding } as unknown as TokenRouteSpec<RouteSchemas, unknown>);
  return { authenticated: true, build: () => route().build(), operationId: operation.id, operation };
}
