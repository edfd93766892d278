import middy from '@middy/core';
import type { Operation } from '../api/operation';
import { withAuditContext } from '../../domain/audit/audit-context';
import { BadRequestError } from '../../kernel/errors';
import { internalScimError, scimErrorOf, type ScimErrorReply } from '../../app/scim/scim-errors';
import { takeScimRequest } from '../../app/scim/scim-rate-limit';
import { authenticateScim, type ScimCaller } from '../../app/scim/scim-tokens';
import { logServerFailure } from './error-mapper';
import type { SchemasOf } from './operation-schemas';
import { requestFacts, toResult, type RouteHandler, type RouteInput } from './route-input';
import { routeChainOptions, type AnswerOf, type HttpEvent, type HttpResult, type RequestContext } from './types';
import { routePath, validate, type RouteSchemas } from './validation';

/**
 * The chain of the SCIM endpoints (RFC 7644), apart from the user routes': a SCIM token of the path's
 * organization and nothing else authenticates, the organization's rate limit counts the request,
 * bodies are read as `application/scim+json` (or JSON), and every error, validation included, is
 * answered in SCIM's error schema. The caller's token is the audit events' actor.
 */

export const SCIM_MEDIA_TYPE = 'application/scim+json';

export type ScimRouteInput<S extends RouteSchemas> = RouteInput<S> & {
  scim: ScimCaller;
  /** The absolute URL of the organization's SCIM root (`…/scim/v2`), for `meta.location`. */
  baseUrl: string;
};

/** A SCIM answer: the body as `application/scim+json`. */
export const scimReply = <const S extends number, B>(status: S, body: B, headers: Record<string, string> = {}) => ({ status, body, contentType: SCIM_MEDIA_TYPE, headers });

/** A SCIM answer without a body (a DELETE's 204). */
export const scimNoContent = () => ({ status: 204 as const });

const errorResult = ({ status, body, headers }: ScimErrorReply): HttpResult => ({
  statusCode: status,
  headers: { ...headers, 'content-type': SCIM_MEDIA_TYPE, ...(status === 401 ? { 'www-authenticate': 'Bearer realm="SCIM"' } : {}) },
  body: JSON.stringify(body),
});

type ScimContext = RequestContext & { scim: ScimCaller };

/** Authenticates (401 before anything else is read), then counts the request against the organization's rate. */
function scimAuthentication(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, ScimContext> {
  return {
    before: async (request) => {
      const orgUuid = request.event.pathParameters?.orgUUID;
      request.context.scim = await authenticateScim(request.event.headers?.authorization, orgUuid);
      await takeScimRequest(request.context.scim.scope.orgUuid);
    },
  };
}

/** SCIM clients send `application/scim+json`; plain JSON is read too. An empty body is no body. */
function scimBody(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: (request) => {
      const { event } = request;
      if (typeof event.body !== 'string' || event.body.trim() === '') {
        event.body = undefined;
        return;
      }
      const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      try {
        (event as { body?: unknown }).body = JSON.parse(text) as unknown;
      } catch (error) {
        throw new BadRequestError({ code: 'MALFORMED_JSON', message: 'The request body is not valid JSON', cause: error });
      }
    },
  };
}

function scimErrors(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    onError: (request) => {
      const mapped = scimErrorOf(request.error);
      if (!mapped || mapped.status === 503) logServerFailure(request.error);
      request.response = errorResult(mapped ?? internalScimError());
    },
  };
}

const baseUrlOf = (event: HttpEvent) => {
  const headers = event.headers ?? {};
  const root = event.rawPath.slice(0, event.rawPath.indexOf('/scim/v2') + '/scim/v2'.length);
  return `${headers['x-forwarded-proto'] ?? 'https'}://${headers.host ?? event.requestContext.domainName}${root}`;
};

/** Binds a handler to a SCIM operation of the catalogue. */
export function scimOperation<const O extends Operation & { access: 'scim' }>(
  operation: O,
  binding: NoInfer<{ handle: (input: ScimRouteInput<SchemasOf<O>>) => Promise<AnswerOf<O>> }>,
): RouteHandler {
  const { path, query, body } = operation.request ?? {};
  // The schemas are made when the chain is built (on the route's first call), not as the function loads.
  const build = () => {
    const schemas: RouteSchemas = { path: path?.(), query: query?.(), body: body?.() };
    return middy<HttpEvent, HttpResult, Error, ScimContext & { input: object }>(routeChainOptions)
      .use(routePath(schemas.path))
      .use(scimErrors())
      .use(scimAuthentication())
      .use(scimBody())
      .use(validate(schemas))
      .handler(async (event, context) => {
        const input = { ...context.input, ...requestFacts(event, context), scim: context.scim, baseUrl: baseUrlOf(event) } as ScimRouteInput<SchemasOf<O>>;
        const cause = { actor: { uuid: context.scim.token.id, email: null }, requestId: context.requestId };
        return toResult(await withAuditContext(cause, () => binding.handle(input)));
      });
  };
  return { authenticated: false, build, operationId: operation.id, operation };
}
