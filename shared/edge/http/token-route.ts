import middy from '@middy/core';
import * as z from 'zod/mini';
import '../../kernel/schemas/zod-messages';
import { accessKeys, authorizeAccess, type AccessPath, type ScopeOf } from '../../app/access/access-policy';
import type { Operation, TokenAccess } from '../api/operation';
import { withAuditContext } from '../../domain/audit/audit-context';
import { readCaller, verifyBearer, type Addressed, type Caller } from '../../app/auth/caller';
import { ValidationError } from '../../kernel/errors';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas } from '../../kernel/schemas/fields';
import type { ItemKey } from '../../adapters/store/keys';
import { keyId } from '../../adapters/store/table';
import type { Prefetched } from '../../adapters/store/prefetched';
import { idempotencyKeyCheck, idempotently, keyedRequestOf } from './idempotency';
import type { SchemasOf } from './operation-schemas';
import { bodyParser, requestFacts, toResult, type RouteHandler, type RouteInput, type RouteSpec } from './route-input';
import { routeChainOptions, type AnswerOf, type HttpEvent, type HttpResult, type Reply, type RequestContext } from './types';
import { toFieldIssues, validate, type RouteSchemas, type ValidInput } from './validation';

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
 * A route that needs a valid user token. The chain's order (docs/architecture.md#request-path): the token (401 before
 * anything is read), one BatchGetItem of the session, the user and the items the access check and the
 * handler need, the path (422 when malformed), the access check (404 or 403), the idempotency key,
 * then the body is read and the query and body validated (422), and the handler runs with the scope.
 * So a caller without access learns nothing from validation: it gets 403 or 404 whatever it sends.
 */
export function tokenRoute<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): RouteHandler {
  const replay = typeof spec.idempotent === 'object' ? spec.idempotent.replay : undefined;
  const build = () =>
    middy<HttpEvent, HttpResult, Error, RequestContext>(routeChainOptions)
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

/** Every authenticated route lives under `/org/{orgUUID}` (made on the first request, not as the function loads). */
const orgPath = lazy(() => z.object({ orgUUID: fieldSchemas().uuidSchema }));

/** The path as the route's schema reads it, or undefined when it does not. */
const validPath = <S extends RouteSchemas>(spec: TokenRouteSpec<S, unknown>, event: HttpEvent) => {
  const parsed = spec.schemas?.path?.safeParse(event.pathParameters ?? {});
  return parsed?.success ? (parsed.data as ValidInput<S>['path']) : undefined;
};

/**
 * The token's signature and claims first (a bad token is a 401 before any read), then one
 * BatchGetItem of the session, the user and the items the access check and the handler will read.
 * When the path is invalid nothing is prefetched; `authorization` answers it.
 */
function authentication<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & CallerInput> {
  return {
    before: async (request) => {
      const claims = await verifyBearer(request.event.headers?.authorization);
      const { caller, prefetched } = await readCaller(claims, addressedBy(request.event, spec as TokenRouteSpec<S, unknown>));
      request.context.caller = caller;
      request.context.prefetched = prefetched;
    },
  };
}

/** BatchGetItem refuses a key given twice: the access check's keys and the handler's may overlap. */
const uniqueKeys = (itemKeys: ItemKey[]) => [...new Map(itemKeys.map((key) => [keyId(key), key])).values()];

function addressedBy<S extends RouteSchemas>(event: HttpEvent, spec: TokenRouteSpec<S, unknown>): Addressed {
  const org = orgPath().safeParse(event.pathParameters ?? {});
  const path = validPath(spec, event);
  return {
    orgUuid: org.success ? org.data.orgUUID : undefined,
    prefetch: path === undefined ? [] : uniqueKeys([...accessKeys(spec.access, path as AccessPath), ...(spec.prefetch?.(path) ?? [])]),
  };
}

/** The path (422 when malformed, before any access is granted), then the access check: the scope, or 404 / 403. */
function authorization<S extends RouteSchemas, A>(spec: TokenRouteSpec<S, A>): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & CallerInput & { scope?: A }> {
  return {
    before: async (request) => {
      const parsed = spec.schemas?.path?.safeParse(request.event.pathParameters ?? {}, { reportInput: true });
      if (parsed && !parsed.success) throw new ValidationError({ details: toFieldIssues(parsed.error) });
      const path = (parsed?.data ?? {}) as AccessPath;
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
