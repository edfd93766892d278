import middy from '@middy/core';
import * as z from 'zod';
import type { Operation } from '../api/operation';
import { withAuditContext } from '../audit/audit-context';
import { readCaller, verifyBearer, type Addressed, type Caller } from '../auth/caller';
import { uuidSchema } from '../schemas/fields';
import type { ItemKey } from '../store/keys';
import type { Prefetched } from '../store/prefetched';
import { idempotencyKeyCheck, idempotently, keyedRequestOf } from './idempotency';
import type { SchemasOf } from './operation-schemas';
import { bodyParser, requestFacts, toResult, type RouteHandler, type RouteInput, type RouteSpec } from './route-input';
import { routeChainOptions, type HttpEvent, type HttpResult, type Reply, type RequestContext } from './types';
import { validate, type RouteSchemas, type ValidInput } from './validation';

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
    middy<HttpEvent, HttpResult, Error, RequestContext>(routeChainOptions)
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

/** Binds a handler to a user operation of the catalogue: authenticated first, then what it declares validated. */
export function userOperation<const O extends Operation & { access: 'user' }, A = undefined>(
  operation: O,
  binding: Omit<UserRouteSpec<SchemasOf<O>, A>, 'schemas' | 'multipart'>,
): RouteHandler {
  const { path, query, body, multipart } = operation.request ?? {};
  // The signature ties the binding's types to the operation's schemas; past it, one generic spec.
  const spec = { schemas: { path, query, body }, ...(multipart ? { multipart } : {}), ...binding } as UserRouteSpec<RouteSchemas, unknown>;
  return { ...userRoute(spec), operationId: operation.id, operation };
}
