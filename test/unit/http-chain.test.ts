import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { OAuthError } from '../../shared/app/auth/oauth-errors';
import { ConflictError, ForbiddenError, NotFoundError, UnauthenticatedError, errorMessage } from '../../shared/kernel/errors';
import { withHttpChain, type RouteHandler, type RouteInput } from '../../shared/edge/http/handler-factory';
import { publicRoute } from '../../shared/edge/http/public-route';
import type { RouteSchemas } from '../../shared/edge/http/validation';
import { ok, type HttpEvent, type HttpResult, type Reply, type RequestContext } from '../../shared/edge/http/types';
import { logger } from '../../shared/kernel/logger';
import { expectErrorBody } from '../support/error-body';

const PATH = '/things';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const bodySchema = z.strictObject({ name: z.string().check(z.minLength(1)), age: z.number().check(z.int()), tags: z.optional(z.array(z.string())) });
const querySchema = z.object({ limit: z.optional(z.coerce.number().check(z.int(), z.positive())) });
type Schemas = { body: typeof bodySchema; query: typeof querySchema };

type Invoke = (event: HttpEvent, context: RequestContext) => Promise<HttpResult>;

/** One route behind the chain every function shares, invoked with an API Gateway v2 event. */
function chained(route: RouteHandler): Invoke {
  const handler = withHttpChain(route.build());
  // The normalizer middlewares widen the declared event type to v1 | v2; the events here are v2.
  return (event, context) => handler(event as Parameters<typeof handler>[0], context);
}

/** A JSON route with body and query schemas; its handler is the test's. */
function jsonRoute(handle: (input: RouteInput<Schemas>) => Promise<Reply>): Invoke {
  return chained(publicRoute({ schemas: { body: bodySchema, query: querySchema }, handle }));
}

/** A route with no body or schema, for the error-mapping cases. */
function plainRoute(handle: (input: RouteInput<RouteSchemas>) => Promise<Reply>): Invoke {
  return chained(publicRoute({ handle }));
}

function event(options: { method?: string; headers?: Record<string, string>; body?: string; query?: Record<string, string>; base64?: boolean } = {}): HttpEvent {
  const method = options.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: `${method} ${PATH}`,
    rawPath: PATH,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers: options.headers ?? {},
    ...(options.query ? { queryStringParameters: options.query } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'unit',
      domainName: 'unit.test',
      domainPrefix: 'unit',
      http: { method, path: PATH, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'gateway-request-id',
      routeKey: `${method} ${PATH}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: options.base64 ?? false,
    ...(options.body !== undefined ? { body: options.body } : {}),
  };
}

function context(remainingMs = 10_000): RequestContext {
  const deadline = Date.now() + remainingMs;
  const lambda: Context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'unit',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:unit',
    memoryLimitInMB: '128',
    awsRequestId: 'lambda-request-id',
    logGroupName: '/aws/lambda/unit',
    logStreamName: 'unit',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  return lambda as RequestContext;
}

const json = { 'content-type': 'application/json' };

function parse(result: HttpResult): Record<string, unknown> {
  return JSON.parse(String(result.body)) as Record<string, unknown>;
}

/** Asserts the spec's standard error body (section 7) and that nothing internal leaks. */
function expectStandardBody(result: HttpResult, status: number, errorCode: string) {
  const body = expectErrorBody(
    { status: result.statusCode, contentType: result.headers?.['content-type'] as string | undefined, text: String(result.body) },
    { status, errorCode, path: PATH },
  );
  expect(result.headers?.['x-request-id']).toEqual(expect.any(String));
  return body as unknown as Record<string, unknown>;
}

const neverCalled = jest.fn(async () => ok({}));

beforeAll(() => logger.setLogLevel('SILENT'));
beforeEach(() => neverCalled.mockClear());

describe('a valid request', () => {
  test('reaches the handler with the parsed body and query, and answers JSON with a request id', async () => {
    const seen: RouteInput<Schemas>[] = [];
    const handler = jsonRoute(async (input) => {
      seen.push(input);
      return ok({ echoed: input.body.name });
    });

    const result = await handler(
      event({ headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{"name":"Ann","age":3}', query: { limit: '5' } }),
      context(),
    );

    expect(result.statusCode).toBe(200);
    expect(parse(result)).toEqual({ echoed: 'Ann' });
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(result.headers?.['x-request-id']).toMatch(UUID);
    expect(seen[0]).toMatchObject({ body: { name: 'Ann', age: 3 }, query: { limit: 5 } });
  });

  test('reads a base64-encoded JSON body', async () => {
    const handler = jsonRoute(async (input) => ok({ echoed: input.body.name }));

    const result = await handler(
      event({ headers: json, body: Buffer.from('{"name":"Bo","age":1}').toString('base64'), base64: true }),
      context(),
    );

    expect(result.statusCode).toBe(200);
    expect(parse(result)).toEqual({ echoed: 'Bo' });
  });

  test('has its path parsed once, at the head of the chain, and handed to the handler', async () => {
    const pathSchema = z.object({ thingId: z.pipe(z.string().check(z.maxLength(8)), z.transform((id) => id.toLowerCase())) });
    const parses = jest.spyOn(pathSchema, 'safeParse');
    const seen: unknown[] = [];
    const handler = chained(
      publicRoute({
        schemas: { path: pathSchema },
        handle: async (input) => {
          seen.push(input.path);
          return ok({});
        },
      }),
    );

    const good = await handler({ ...event({ method: 'GET' }), pathParameters: { thingId: 'AB12' } }, context());
    const goodParses = parses.mock.calls.length;
    const bad = await handler({ ...event({ method: 'GET' }), pathParameters: { thingId: 'far-too-long' } }, context());

    expect(good.statusCode).toBe(200);
    expect(seen).toEqual([{ thingId: 'ab12' }]);
    expect(goodParses).toBe(1);
    expect(expectStandardBody(bad, 422, 'VALIDATION_FAILED').details).toEqual([expect.objectContaining({ fieldName: 'thingId' })]);
    expect(parses.mock.calls.length - goodParses).toBe(1);
  });
});

describe('body problems', () => {
  test('malformed JSON is 400 MALFORMED_JSON', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json, body: '{"name": "Ann",' }), context());

    expectStandardBody(result, 400, 'MALFORMED_JSON');
    expect(neverCalled).not.toHaveBeenCalled();
  });

  test('a missing body on a JSON route is 400 MALFORMED_JSON', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json }), context());

    expectStandardBody(result, 400, 'MALFORMED_JSON');
  });

  test.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no content type', {}],
  ])('a body sent as %s to a JSON route is 415 UNSUPPORTED_MEDIA_TYPE', async (_label, headers) => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers, body: '{"name":"Ann","age":3}' }), context());

    expectStandardBody(result, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(neverCalled).not.toHaveBeenCalled();
  });
});

describe('schema violations', () => {
  test('are 422 with one detail per bad field, every field at once', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(
      event({ headers: json, body: JSON.stringify({ age: 'three', extra: true, other: 1 }), query: { limit: '-1' } }),
      context(),
    );

    const body = expectStandardBody(result, 422, 'VALIDATION_FAILED');
    const details = body.details as { fieldName: string; message: string; errorCode: string }[];
    expect(details.map((detail) => detail.fieldName).sort()).toEqual(['age', 'extra', 'limit', 'name', 'other']);
    expect(details).toEqual(
      expect.arrayContaining([
        { fieldName: 'name', message: expect.any(String), errorCode: 'FIELD_REQUIRED' },
        { fieldName: 'extra', message: expect.any(String), errorCode: 'FIELD_UNKNOWN' },
        { fieldName: 'other', message: expect.any(String), errorCode: 'FIELD_UNKNOWN' },
        { fieldName: 'limit', message: expect.any(String), errorCode: 'FIELD_INVALID' },
      ]),
    );
    for (const detail of details) expect(detail.message.length).toBeGreaterThan(0);
    expect(neverCalled).not.toHaveBeenCalled();
  });

  test('a present field of the wrong type is FIELD_INVALID, not FIELD_REQUIRED', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json, body: JSON.stringify({ name: 'Ann', age: 'three' }) }), context());

    const body = expectStandardBody(result, 422, 'VALIDATION_FAILED');
    expect(body.details).toEqual([{ fieldName: 'age', message: expect.any(String), errorCode: 'FIELD_INVALID' }]);
    expect((body.details as { message: string }[])[0]!.message).not.toMatch(/required/i);
  });

  test('a missing required field is FIELD_REQUIRED', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json, body: JSON.stringify({ name: 'Ann' }) }), context());

    const body = expectStandardBody(result, 422, 'VALIDATION_FAILED');
    expect(body.details).toEqual([{ fieldName: 'age', message: expect.any(String), errorCode: 'FIELD_REQUIRED' }]);
  });

  test('name a nested field by its path', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json, body: JSON.stringify({ name: 'Ann', age: 3, tags: ['a', 7] }) }), context());

    const body = expectStandardBody(result, 422, 'VALIDATION_FAILED');
    expect(body.details).toEqual([{ fieldName: 'tags.1', message: expect.any(String), errorCode: 'FIELD_INVALID' }]);
  });

  test('a JSON body that is not an object is 422', async () => {
    const handler = jsonRoute(neverCalled);

    const result = await handler(event({ headers: json, body: '[1,2]' }), context());

    const body = expectStandardBody(result, 422, 'VALIDATION_FAILED');
    expect((body.details as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('errors from the handler', () => {
  test('an unexpected error is 500 INTERNAL with a generic message; the error goes only to the log', async () => {
    const failure = new Error('secret internals at /var/task');
    const logged = jest.spyOn(logger, 'error');
    const handler = plainRoute(async () => {
      throw failure;
    });

    const result = await handler(event({ method: 'GET' }), context());

    const body = expectStandardBody(result, 500, 'INTERNAL');
    expect(body.message).toBe(errorMessage('INTERNAL'));
    expect(String(result.body)).not.toMatch(/secret|\/var\/task|\bat\s/);
    expect(Object.keys(body).sort()).toEqual(['errorCode', 'errorType', 'message', 'path', 'timestamp']);
    expect(logged).toHaveBeenCalledWith(expect.any(String), failure);
    logged.mockRestore();
  });

  test('a handler still running at the function\'s time limit is 503 TIMEOUT with Retry-After, saying it may have been partly applied', async () => {
    const handler = plainRoute(() => new Promise<Reply>((resolve) => setTimeout(() => resolve(ok({})), 400)));

    const logged = jest.spyOn(logger, 'error');

    const result = await handler(event({ method: 'GET' }), context(100));

    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/ran out of the function's time/));
    logged.mockRestore();
    const body = expectStandardBody(result, 503, 'TIMEOUT');
    expect(body.message).toBe(errorMessage('TIMEOUT'));
    expect(body.message).toMatch(/partly applied: read the resource back/);
    expect(result.headers?.['retry-after']).toBe('1');
  });

  test('a thrown non-Error value is 500 INTERNAL too', async () => {
    const handler = plainRoute(async () => {
      throw 'a string with secret text';
    });

    const result = await handler(event({ method: 'GET' }), context());

    expectStandardBody(result, 500, 'INTERNAL');
    expect(String(result.body)).not.toMatch(/secret/);
  });

  test.each([
    ['NotFoundError', () => new NotFoundError('The bot was not found'), 404, 'NOT_FOUND', 'The bot was not found'],
    ['ConflictError', () => new ConflictError({ code: 'EMAIL_TAKEN' }), 409, 'EMAIL_TAKEN', errorMessage('EMAIL_TAKEN')],
    ['ForbiddenError', () => new ForbiddenError(), 403, 'FORBIDDEN', errorMessage('FORBIDDEN')],
    ['UnauthenticatedError', () => new UnauthenticatedError(), 401, 'UNAUTHENTICATED', errorMessage('UNAUTHENTICATED')],
  ])('%s maps to %i with its catalogue code', async (_name, makeError, status, code, message) => {
    const handler = plainRoute(async () => {
      throw makeError();
    });

    const result = await handler(event({ method: 'GET' }), context());

    const body = expectStandardBody(result, status, code);
    expect(body.message).toBe(message);
  });

  test('a 401 carries a Bearer challenge', async () => {
    const handler = plainRoute(async () => {
      throw new UnauthenticatedError();
    });

    const result = await handler(event({ method: 'GET' }), context());

    expect(result.headers?.['www-authenticate']).toBe('Bearer');
  });

  test("an OAuth error answers OAuth's own body, not cached", async () => {
    const handler = plainRoute(async () => {
      throw new OAuthError('invalid_grant', 'Invalid user credentials');
    });

    const result = await handler(event(), context());

    expect(result.statusCode).toBe(400);
    expect(parse(result)).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(result.headers?.['x-request-id']).toMatch(UUID);
  });
});

describe('request id', () => {
  test('a safe x-request-id is echoed, on success and on error', async () => {
    const okHandler = plainRoute(async () => ok({}));
    const failing = plainRoute(async () => {
      throw new ForbiddenError();
    });

    // API Gateway HTTP API (payload 2.0) delivers header names lower-cased.
    const success = await okHandler(event({ method: 'GET', headers: { 'x-request-id': 'abc-123.def:4_5' } }), context());
    const failure = await failing(event({ method: 'GET', headers: { 'x-request-id': 'abc-123' } }), context());

    expect(success.headers?.['x-request-id']).toBe('abc-123.def:4_5');
    expect(failure.headers?.['x-request-id']).toBe('abc-123');
  });

  test.each([
    ['a newline', 'abc\ndef'],
    ['spaces', 'abc def'],
    ['200 characters', 'a'.repeat(200)],
    ['an empty value', ''],
  ])('an x-request-id with %s is replaced by a generated one', async (_label, unsafe) => {
    const handler = plainRoute(async () => ok({}));

    const result = await handler(event({ method: 'GET', headers: { 'x-request-id': unsafe } }), context());

    expect(result.headers?.['x-request-id']).toMatch(UUID);
  });

  test('each request without an id gets a different one', async () => {
    const handler = plainRoute(async () => ok({}));

    const first = await handler(event({ method: 'GET' }), context());
    const second = await handler(event({ method: 'GET' }), context());

    expect(first.headers?.['x-request-id']).toMatch(UUID);
    expect(second.headers?.['x-request-id']).toMatch(UUID);
    expect(first.headers?.['x-request-id']).not.toBe(second.headers?.['x-request-id']);
  });

  test('the handler sees the request id the response carries', async () => {
    const seen: string[] = [];
    const spying = plainRoute(async ({ requestId }) => {
      seen.push(requestId);
      return ok({});
    });

    const result = await spying(event({ method: 'GET' }), context());

    expect(seen).toEqual([result.headers?.['x-request-id']]);
  });
});

describe('a reply\'s own security headers', () => {
  test('replace the shared ones; set empty, X-Frame-Options is removed and any other keeps the shared value', async () => {
    const invoke = plainRoute(async () => ({
      status: 200,
      body: 'framed',
      contentType: 'text/plain',
      headers: { 'cross-origin-opener-policy': 'unsafe-none', 'x-frame-options': '', 'strict-transport-security': '' },
    }));
    const result = await invoke(event({ method: 'GET' }), context());
    expect(result.headers?.['Cross-Origin-Opener-Policy']).toBe('unsafe-none');
    expect(result.headers).not.toHaveProperty('X-Frame-Options');
    expect(result.headers).not.toHaveProperty('x-frame-options');
    expect(result.headers?.['Strict-Transport-Security']).toMatch(/^max-age=\d+/);
    expect(result.headers).not.toHaveProperty('strict-transport-security');
  });
});
