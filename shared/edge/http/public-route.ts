import middy from '@middy/core';
import type { Operation } from '../api/operation';
import { withAuditContext } from '../../domain/audit/audit-context';
import { bodyParser, requestFacts, toResult, type RouteHandler, type RouteInput, type RouteSpec } from './route-input';
import { routeChainOptions, type AnswerOf, type HttpEvent, type HttpResult, type RequestContext } from './types';
import { routePath, validate, type RouteSchemas } from './validation';
import type { SchemasOf } from './operation-schemas';

/** A public route's request as the cause of what `work` changes (audit events): no caller is known. */
export const asAnonymous = <T>(requestId: string, work: () => Promise<T>): Promise<T> =>
  withAuditContext({ actor: { uuid: null, email: null }, requestId }, work);

/** A route anyone may call (the token endpoint and JWKS). */
export function publicRoute<S extends RouteSchemas>(spec: RouteSpec<S, RouteInput<S>>): RouteHandler {
  const build = () =>
    middy<HttpEvent, HttpResult, Error, RequestContext>(routeChainOptions)
      .use(routePath(spec.schemas?.path))
      .use(bodyParser(spec))
      .use(validate(spec.schemas))
      .handler(async (event, context) => toResult(await spec.handle({ ...context.input, ...requestFacts(event, context) })));
  return { authenticated: false, build };
}

/** Binds a handler to a public operation of the catalogue (the chain validates what it declares). */
export function publicOperation<const O extends Operation & { access: 'public' | 'bearer' }>(
  operation: O,
  binding: NoInfer<Omit<RouteSpec<SchemasOf<O>, RouteInput<SchemasOf<O>>>, 'schemas' | 'multipart' | 'handle'> & { handle: (input: RouteInput<SchemasOf<O>>) => Promise<AnswerOf<O>> }>,
): RouteHandler {
  const { path, query, body, multipart } = operation.request ?? {};
  // The signature ties the binding's types to the operation's schemas; past it, one generic spec.
  // Its schemas are made when the chain is built (on the route's first call), not as the function loads.
  const route = () =>
    publicRoute({ schemas: { path: path?.(), query: query?.(), body: body?.() }, ...(multipart ? { multipart } : {}), ...binding } as RouteSpec<RouteSchemas, RouteInput<RouteSchemas>>);
  return { authenticated: false, build: () => route().build(), operationId: operation.id, operation };
}
