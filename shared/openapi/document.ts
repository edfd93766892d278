import * as z from 'zod';
import type { RouteHandler } from '../http/handler-factory';
import { languages } from '../mail/mail.templates';
import { resolveRoutes, type Route, type Subpaths } from '../api/routes';
import { introduction, securitySchemes } from './introduction';
import { operationSpecs, type OperationSpec, type Outcome, type RequestHeader, type ResponseHeader } from './operations';
import { requestExamples } from './request-examples';
import { routeHandlers } from './route-handlers';
import { responseRegistry } from './responses';

/**
 * The OpenAPI 3.1 document of the API, generated from the route table, each route's request schemas
 * (requests: zod's input side) and the response schemas of `responses.ts` (output side).
 */

type Json = Record<string, unknown>;

const schemaRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Statuses every management operation may answer besides its own (spec 7; 429 and 503 are API Gateway's). */
const commonErrors = [400, 401, 403, 404, 409, 422, 429, 500, 503];
const bodyErrors = [413, 415];

const statusText: Record<number, string> = {
  400: 'Bad request',
  401: 'No valid bearer token',
  403: 'Not allowed for this caller',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests (API Gateway throttling)',
  500: 'Internal error',
  503: 'Service unavailable (API Gateway integration timeout)',
};

export interface DocumentOptions {
  /**
   * The organization (realm) whose token endpoint the OAuth2 password flow names, so that a client
   * (Swagger UI's Authorize) signs in there. Without it the document offers the bearer token only:
   * the API cannot list its realms to the reference, which reads none of its data.
   */
  realm?: string;
}

/** Builds the document for the API served at `serverUrl` with these subpaths. */
export function openApiDocument(subpaths: Subpaths, serverUrl: string, options: DocumentOptions = {}): Json {
  const handlers = routeHandlers();
  const converter = new SchemaConverter();
  const security = options.realm ? [{ bearerAuth: [] }, { oauth2: [] }] : [{ bearerAuth: [] }];
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of resolveRoutes(subpaths)) {
    const operation = operationOf(route, handlers[route.id], converter, security);
    (paths[route.fullPath] ??= {})[route.method.toLowerCase()] = operation;
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
      { name: 'users', description: 'Users of an organization (spec 4.3)' },
      { name: 'bulk', description: 'Bulk operations on users (spec 4.5)' },
      { name: 'configurations', description: "The caller's configuration values (spec 4.4)" },
      { name: 'supervisors', description: 'Supervisors of a bot (spec 4.1)' },
      { name: 'agents', description: 'Agents of a bot (spec 4.2)' },
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

function operationOf(route: Route, handler: RouteHandler | undefined, converter: SchemaConverter, security: Json[]): Json {
  const spec: OperationSpec | undefined = operationSpecs[route.id];
  const schemas = handler?.schemas ?? {};
  const hasBody = Boolean(schemas.body || handler?.multipart || spec?.formBody);
  const parameters = [
    ...pathParameters(route, schemas.path, converter),
    ...queryParameters(schemas.query, converter),
    ...(spec?.requestHeaders ?? []).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    { $ref: '#/components/parameters/XRequestId' },
  ];
  const requestBody = requestBodyOf(route, handler, spec, converter);
  return {
    operationId: route.id,
    summary: spec?.summary ?? `${route.method} ${route.path}`,
    ...(spec?.description ? { description: spec.description } : {}),
    ...(spec ? {} : { description: 'Described generically: any success, and the error bodies the API answers.' }),
    tags: [route.group],
    security: route.authenticated || spec?.bearer ? security : [],
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: spec ? responsesOf(route, spec, hasBody, converter) : genericResponses(),
  };
}

function pathParameters(route: Route, schema: z.ZodType | undefined, converter: SchemaConverter): Json[] {
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

function queryParameters(schema: z.ZodType | undefined, converter: SchemaConverter): Json[] {
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

/** The request body, with the operation's example (`request-examples.ts`) when it has one. */
function requestBodyOf(route: Route, handler: RouteHandler | undefined, spec: OperationSpec | undefined, converter: SchemaConverter): Json | undefined {
  const example = Object.hasOwn(requestExamples, route.id) ? { example: requestExamples[route.id] } : {};
  if (spec?.formBody) {
    return { required: true, content: { 'application/x-www-form-urlencoded': { schema: converter.request(spec.formBody), ...example } } };
  }
  if (handler?.multipart) {
    const file = { type: 'string', contentMediaType: 'text/csv', description: `A CSV file of at most ${handler.multipart.maxFileBytes} bytes` };
    return {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file } }, ...example } },
    };
  }
  const body = handler?.schemas?.body;
  if (!body) return undefined;
  return { required: !body.safeParse(undefined).success, content: { 'application/json': { schema: converter.request(body), ...example } } };
}

function responsesOf(route: Route, spec: OperationSpec, hasBody: boolean, converter: SchemaConverter): Json {
  const responses: Json = {};
  for (const outcome of spec.outcomes) responses[String(outcome.status)] = outcomeResponse(outcome, converter);
  const errors = spec.errors ?? [...commonErrors, ...(hasBody ? bodyErrors : []), ...(spec.extraErrors ?? [])];
  for (const status of [...new Set(errors)].sort()) responses[String(status)] = errorResponse(status, spec, route);
  if (spec.defaultError) {
    const schema = { oneOf: [schemaRef('ErrorBody'), schemaRef('GatewayError')] };
    responses.default = { description: 'Any other error', headers: headerRefs([]), content: { 'application/json': { schema } } };
  }
  return responses;
}

function outcomeResponse(outcome: Outcome, converter: SchemaConverter): Json {
  const headers = headerRefs(outcome.headers ?? []);
  const content = outcome.json
    ? { 'application/json': { schema: converter.response(outcome.json) } }
    : outcome.text
      ? { [outcome.text.mediaType]: { schema: { type: 'string', description: outcome.text.description } } }
      : undefined;
  return { description: outcome.description, headers, ...(content ? { content } : {}) };
}

function errorResponse(status: number, spec: OperationSpec, route: Route): Json {
  const headers = headerRefs(status === 401 && (route.authenticated || spec.bearer) ? ['WWW-Authenticate'] : []);
  let schema: Json;
  if (spec.oauthErrors && (status === 400 || status === 401)) schema = schemaRef('OAuthError');
  else if (status === 422) schema = schemaRef('ValidationErrorBody');
  else if (status === 429 || status === 503) schema = schemaRef('GatewayError');
  else if (status === 413 || status === 500) schema = { oneOf: [schemaRef('ErrorBody'), schemaRef('GatewayError')] };
  else schema = schemaRef('ErrorBody');
  return { description: statusText[status] ?? 'Error', headers, content: { 'application/json': { schema } } };
}

/** A route `operations.ts` does not describe yet: any success, and the error bodies the API answers. */
function genericResponses(): Json {
  const anyError = { anyOf: [schemaRef('ValidationErrorBody'), schemaRef('OAuthError'), schemaRef('GatewayError')] };
  return {
    '2XX': { description: 'Success', headers: headerRefs([]), content: { '*/*': { schema: {} } } },
    '3XX': { description: 'Redirect', headers: headerRefs([]) },
    '4XX': { description: 'Client error', headers: headerRefs([]), content: { 'application/json': { schema: anyError }, 'text/html': { schema: { type: 'string' } } } },
    '5XX': { description: 'Server error', headers: headerRefs([]), content: { 'application/json': { schema: { oneOf: [schemaRef('ErrorBody'), schemaRef('GatewayError')] } } } },
  };
}

const headerRefs = (names: (ResponseHeader | 'WWW-Authenticate')[]): Json =>
  Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));

function requestHeaderParameters(): Record<RequestHeader | 'XRequestId', Json> {
  return {
    XRequestId: {
      name: 'x-request-id',
      in: 'header',
      required: false,
      description: "The client's request id for distributed logs (short, printable); answered back in `x-request-id`.",
      schema: { type: 'string', maxLength: 200 },
    },
    Language: {
      name: 'language',
      in: 'header',
      required: false,
      description: 'Language of the e-mail sent to the user (any case).',
      schema: { type: 'string', enum: [...languages], default: 'en' },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'ETag(s) of the version read; a mismatch is a 409 VERSION_CONFLICT.',
      schema: { type: 'string' },
    },
    Prefer: {
      name: 'Prefer',
      in: 'header',
      required: false,
      description: '`respond-async` answers 202 and the job at once (RFC 7240).',
      schema: { type: 'string' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        "A key of the caller's choosing (one per intended operation, e.g. a UUID), scoped to the calling user and kept 24 hours. " +
        'The same key with the same request (method, path and query, body) answers the first answer again, status, body and headers, ' +
        'with `Idempotent-Replayed: true`, and does nothing more; with a different request it is a 422 `IDEMPOTENCY_KEY_REUSED`; ' +
        'while the first request still runs, a 409 `IDEMPOTENCY_IN_PROGRESS`. An error answer is not kept: a retry runs again. ' +
        'A malformed key is a 422 naming `Idempotency-Key`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    },
  };
}

function responseHeaders(): Record<ResponseHeader | 'X-Request-Id' | 'WWW-Authenticate', Json> {
  const text = (description: string) => ({ description, schema: { type: 'string' } });
  return {
    'X-Request-Id': text("The request's id: the client's `x-request-id` when usable, else a new UUID"),
    ETag: text("The resource's version, quoted; send it back in If-Match"),
    Location: text('Where the job is polled, or the page to see next'),
    'Preference-Applied': text('`respond-async` when the Prefer header was honoured'),
    'Content-Disposition': text('attachment; filename="failed-rows-{jobId}.csv"'),
    'Cache-Control': text('no-store on tokens and pages; public, max-age=300 on keys'),
    'Set-Cookie': text("The account page's session (HttpOnly, SameSite=Strict, scoped to the page's path)"),
    'WWW-Authenticate': text('Bearer'),
    'Idempotent-Replayed': { description: '`true` on an answer replayed for an `Idempotency-Key` seen before', schema: { type: 'string', enum: ['true'] } },
  };
}

interface ZodInternals {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodInternals } })._zod.def;

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  return schema && defOf(schema).type === 'object' ? (defOf(schema).shape ?? {}) : {};
}

/**
 * The schema a parameter's value must meet, without the transforms around it: `queryInt`'s number
 * range rather than its string, the enum a case-folding pipe checks.
 */
function checkedSchema(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) return checkedSchema(def.innerType);
  if (def.type === 'pipe' && def.in && def.out) return defOf(def.out).type === 'transform' ? checkedSchema(def.in) : checkedSchema(def.out);
  return schema;
}

/** zod to JSON Schema, named response schemas collected once under `components.schemas`. */
class SchemaConverter {
  private readonly named: Record<string, Json>;
  private readonly ids = new Map<unknown, string>();

  constructor() {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of responseRegistry._idmap) {
      registry.add(schema, { id });
      this.ids.set(schema, id);
    }
    const converted = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
    this.named = Object.fromEntries(Object.entries(converted.schemas).map(([id, schema]) => [id, clean(schema as Json)]));
    this.registry = registry;
  }

  private readonly registry: z.core.$ZodRegistry<{ id: string }>;

  components(): Record<string, Json> {
    return Object.fromEntries(Object.entries(this.named).sort(([a], [b]) => a.localeCompare(b)));
  }

  response(schema: z.ZodType): Json {
    const id = this.ids.get(schema);
    return id ? schemaRef(id) : this.inline(schema, 'output');
  }

  request(schema: z.ZodType): Json {
    return this.inline(schema, 'input');
  }

  parameter(schema: z.ZodType): Json {
    return this.inline(checkedSchema(schema), 'output');
  }

  private inline(schema: z.ZodType, io: 'input' | 'output'): Json {
    const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', metadata: this.registry }) as Json;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    for (const [id, def] of Object.entries(defs)) this.named[id] ??= clean(def);
    return clean(converted);
  }
}

/** Drops what a JSON Schema document has and an OpenAPI schema object must not, and points refs at components. */
function clean(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}
