import type * as z from 'zod/mini';
import { authOperationDescriptions } from '../api/auth-descriptions';
import { resolveRoutes, type Route, type Subpaths } from '../api/routes';
import { headerRefs, requestHeaderParameters, responseHeaders } from './headers';
import { introduction, securitySchemes } from './introduction';
import { describeAccess } from '../../app/access/access-kinds';
import { catalogue } from '../api/catalogue';
import { takesUserToken, type Access, type Outcome } from '../api/operation';
import { authResponses } from '../../app/auth/auth.responses';
import { sharedResponses } from '../../kernel/schemas/responses';
import { objectShape, schemaRef, SchemaConverter, type Json } from './schema-converter';

/**
 * The OpenAPI 3.1 document of the API, generated from the catalogue (`shared/edge/api/`): each operation's
 * path, request schemas (zod's input side), answers (the response schemas' output side), summary,
 * description and example.
 */

/**
 * Statuses every management operation may answer besides its own (docs/api/README.md#choices-that-apply-everywhere; 429 is API Gateway's, 503
 * API Gateway's or the API's own when an AWS service stays over its request rate).
 */
const commonErrors = [400, 401, 403, 404, 409, 422, 429, 500, 503];
const bodyErrors = [413, 415];

const statusText: Record<number, string> = {
  400: 'Bad request',
  401: 'No valid bearer token',
  403: 'Not allowed for this caller',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone: what the request points at is no longer kept',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests (API Gateway throttling)',
  500: 'Internal error',
  503: 'Service unavailable (API Gateway integration timeout; SERVICE_BUSY, with Retry-After, when an AWS service such as Cognito stays over its request rate; or TIMEOUT, with Retry-After, when the function ran out of time and may have been partly applied)',
};

/** Where a SCIM route's answer differs from a management operation's. */
const scimStatusText: Record<number, string> = {
  429: "Too many requests: past the organization's SCIM rate limit; retry after Retry-After",
  503: 'Service unavailable: Cognito (or DynamoDB) stays over its request rate after the back-off, or the function ran out of time; retry after Retry-After',
};

export interface DocumentOptions {
  /**
   * The organization (realm) whose sign-in page and token endpoint the OAuth2 authorization code flow
   * names, so that a client (Swagger UI's Authorize) signs in there. Without it the document offers the
   * bearer token only: the API cannot list its realms to the reference, which reads none of its data.
   */
  realm?: string;
}

/** Builds the document for the API served at `serverUrl` with these subpaths. */
export function openApiDocument(subpaths: Subpaths, serverUrl: string, options: DocumentOptions = {}): Json {
  makeSchemas();
  const converter = new SchemaConverter();
  const security = options.realm ? [{ bearerAuth: [] }, { oauth2: [] }] : [{ bearerAuth: [] }];
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of resolveRoutes(subpaths)) {
    (paths[route.fullPath] ??= {})[route.method.toLowerCase()] = operationOf(route, converter, security);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent platform management API',
      version: '4.8.0',
      description: introduction(serverUrl, options.realm),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl.replace(/\/$/, '') }],
    tags: [
      { name: 'auth', description: 'OpenID Connect token service (Keycloak-shaped), one realm per organization' },
      { name: 'users', description: 'Users of an organization (docs/api/users.md)' },
      { name: 'bulk', description: 'Bulk operations on users (docs/api/bulk.md)' },
      { name: 'configurations', description: "The caller's configuration values (docs/api/configurations.md)" },
      { name: 'supervisors', description: 'Supervisors of a bot (docs/api/agents.md)' },
      { name: 'agents', description: 'Agents of a bot (docs/api/agents.md)' },
      { name: 'docs', description: 'This description and its interactive reference' },
    ],
    paths,
    components: {
      schemas: converter.components(),
      securitySchemes: securitySchemes(serverUrl, options.realm),
      parameters: requestHeaderParameters(),
      headers: responseHeaders(),
    },
  };
}

/**
 * Makes the schemas of every request and answer the catalogue declares, and the error bodies the
 * document names by id (`ErrorBody`, `ValidationErrorBody`, `GatewayError`, `OAuthError`): each schema
 * module makes its schemas on first call, registering the named ones (`TokenRequest`, `User`, …), and
 * the converter reads the registry as it is made. No function makes them as it loads; the document is
 * what asks for them.
 */
function makeSchemas(): void {
  sharedResponses();
  authResponses();
  for (const operation of catalogue) {
    const { path, query, body, form } = operation.request ?? {};
    for (const make of [path, query, body, form]) make?.();
    for (const outcome of operation.responses) outcome.json?.();
    operation.errors?.scim?.();
  }
}

function operationOf(route: Route, converter: SchemaConverter, security: Json[]): Json {
  const request = route.request ?? {};
  const parameters = [
    ...pathParameters(route, request.path?.(), converter),
    ...queryParameters(request.query?.(), converter),
    ...(request.headers ?? []).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    { $ref: '#/components/parameters/XRequestId' },
  ];
  const requestBody = requestBodyOf(route, converter);
  return {
    operationId: route.id,
    summary: route.summary,
    description: [route.description ?? authOperationDescriptions[route.id], `Who may call: ${accessPhrase(route.access)}.`].filter(Boolean).join('\n\n'),
    tags: [route.group],
    security: route.access === 'public' ? [] : security,
    'x-access': route.access,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(route, requestBody !== undefined, converter),
  };
}

/** The access an operation declares, in words (the machine-readable form is its `x-access`). */
function accessPhrase(access: Access): string {
  if (takesUserToken(access)) return `${describeAccess(access)}, with a user's access token`;
  if (access === 'scim') return "a SCIM token of the organization (the organization's identity provider)";
  if (access === 'bearer') return "anyone; the operation reads a user's access token itself";
  return 'anyone';
}

function pathParameters(route: Route, schema: z.ZodMiniType | undefined, converter: SchemaConverter): Json[] {
  const shape = objectShape(schema);
  return [...route.fullPath.matchAll(/\{(\w+)\}/g)].map(([, name]) => {
    const property = shape[name!];
    return {
      name,
      in: 'path',
      required: true,
      schema: property ? converter.parameter(property) : { type: 'string' },
      ...(property ? {} : { description: 'Not read by this operation' }),
    };
  });
}

function queryParameters(schema: z.ZodMiniType | undefined, converter: SchemaConverter): Json[] {
  return Object.entries(objectShape(schema)).map(([name, property]) => {
    const absent = property.safeParse(undefined);
    const documented = converter.parameter(property);
    const fallback = absent.success && absent.data !== undefined ? absent.data : undefined;
    return {
      name,
      in: 'query',
      required: !absent.success,
      schema: fallback === undefined ? documented : { ...documented, default: documented.type === 'string' ? String(fallback) : fallback },
    };
  });
}

/** The request body, with the operation's example when it has one. */
function requestBodyOf(route: Route, converter: SchemaConverter): Json | undefined {
  const request = route.request ?? {};
  const example = route.example === undefined ? {} : { example: route.example };
  if (request.form) {
    return { required: true, content: { 'application/x-www-form-urlencoded': { schema: converter.request(request.form()), ...example } } };
  }
  if (request.multipart) {
    const file = { type: 'string', contentMediaType: 'text/csv', description: `A CSV file of at most ${request.multipart.maxFileBytes} bytes` };
    return {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file } }, ...example } },
    };
  }
  const body = request.body?.();
  if (!body) return undefined;
  const schema = converter.request(body);
  const content = Object.fromEntries((request.bodyMediaTypes ?? ['application/json']).map((type) => [type, { schema, ...example }]));
  return { required: !body.safeParse(undefined).success, content };
}

function responsesOf(route: Route, hasBody: boolean, converter: SchemaConverter): Json {
  const responses: Json = {};
  const errors = route.errors ?? {};
  for (const outcome of route.responses) responses[String(outcome.status)] = outcomeResponse(outcome, converter);
  const statuses = errors.only ?? [...commonErrors, ...(hasBody ? bodyErrors : []), ...(errors.extra ?? [])];
  for (const status of [...new Set(statuses)].sort()) responses[String(status)] = errorResponse(status, route, converter);
  if (errors.anyOther) {
    const schema = { oneOf: [schemaRef('ErrorBody'), schemaRef('GatewayError')] };
    responses.default = { description: 'Any other error', headers: headerRefs([]), content: { 'application/json': { schema } } };
  }
  return responses;
}

function outcomeResponse(outcome: Outcome, converter: SchemaConverter): Json {
  const headers = headerRefs(outcome.headers ?? []);
  const json = outcome.json && converter.response(outcome.json());
  const content = json
    ? {
        [outcome.mediaType ?? 'application/json']: { schema: json },
        // The same value as text of another media type (a bundle as YAML): what a client receives is the text.
        ...Object.fromEntries((outcome.mediaTypes ?? []).map((type) => [type, { schema: { type: 'string', description: `The same body as ${type}` } }])),
      }
    : outcome.text
      ? { [outcome.text.mediaType]: { schema: { type: 'string', description: outcome.text.description } } }
      : undefined;
  return { description: outcome.description, headers, ...(content ? { content } : {}) };
}

function errorResponse(status: number, route: Route, converter: SchemaConverter): Json {
  const headers = headerRefs(status === 401 && route.access !== 'public' ? ['WWW-Authenticate'] : status === 503 ? ['Retry-After'] : []);
  if (route.errors?.scim) {
    const retry = status === 429 ? headerRefs(['Retry-After']) : headers;
    return { description: scimStatusText[status] ?? statusText[status] ?? 'Error', headers: retry, content: { 'application/scim+json': { schema: converter.response(route.errors.scim()) } } };
  }
  let schema: Json;
  if (route.errors?.oauth && (status === 400 || status === 401)) schema = schemaRef('OAuthError');
  else if (status === 422) schema = schemaRef('ValidationErrorBody');
  else if (status === 429) schema = schemaRef('GatewayError');
  else if (status === 413 || status === 500 || status === 503) schema = { oneOf: [schemaRef('ErrorBody'), schemaRef('GatewayError')] };
  else schema = schemaRef('ErrorBody');
  return { description: statusText[status] ?? 'Error', headers, content: { 'application/json': { schema } } };
}
