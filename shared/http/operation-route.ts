import type { Operation, OperationRequest } from '../api/operation';
import { publicRoute, userRoute, type RouteHandler, type RouteInput, type RouteSpec, type UserRouteSpec } from './handler-factory';
import type { RouteSchemas } from './validation';

/**
 * Binds a handler to an operation of the catalogue: the chain validates what the operation declares
 * (path, query, body or multipart form) and, for a `user` operation, authenticates the caller first.
 * A function's handler file is a list of these, one per operation of its group.
 */

type Declared<R, K extends keyof OperationRequest> = R extends { [P in K]: infer T } ? T : undefined;

/** The request schemas an operation declares, as the chain's `RouteSchemas`. */
export type SchemasOf<O extends Operation> = {
  path: Declared<O['request'], 'path'>;
  query: Declared<O['request'], 'query'>;
  body: Declared<O['request'], 'body'>;
};

type UserBinding<O extends Operation, A> = Omit<UserRouteSpec<SchemasOf<O>, A>, 'schemas' | 'multipart'>;
type PublicBinding<O extends Operation> = Omit<RouteSpec<SchemasOf<O>, RouteInput<SchemasOf<O>>>, 'schemas' | 'multipart'>;

export function route<const O extends Operation & { access: 'user' }, A = undefined>(operation: O, binding: UserBinding<O, A>): RouteHandler;
export function route<const O extends Operation & { access: 'public' | 'bearer' }>(operation: O, binding: PublicBinding<O>): RouteHandler;
export function route(operation: Operation, binding: object): RouteHandler {
  const { path, query, body, multipart } = operation.request ?? {};
  // The overloads tie the binding's types to the operation's schemas; past them, one generic spec.
  const spec = { schemas: { path, query, body }, ...(multipart ? { multipart } : {}), ...binding };
  const handler =
    operation.access === 'user' ? userRoute(spec as UserRouteSpec<RouteSchemas, unknown>) : publicRoute(spec as RouteSpec<RouteSchemas, RouteInput<RouteSchemas>>);
  return { ...handler, operationId: operation.id };
}

/** A function's handlers by operation id, for `createFunction`. */
export function routes(...handlers: RouteHandler[]): Record<string, RouteHandler> {
  return Object.fromEntries(handlers.map((handler) => [handler.operationId!, handler]));
}
