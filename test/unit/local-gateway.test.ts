import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createGateway, type GatewayOptions, type LambdaHandler } from '../../infra/local/gateway';
import { HTTP_API_LIMITS } from '../../infra/local/kernel/gateway-answers';
import { decodePathValue } from '../../infra/local/route-match';
import { currentFunction } from '../../infra/local/kernel/function-context';
import { defaultSubpaths, resolveRoutes, resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';

// The gateway factory with fake handlers: API Gateway's (HTTP API) and Lambda's rules, no AWS.

const routes = resolveRoutes(defaultSubpaths);
const userPath = (userId: string) => `/${defaultSubpaths.user}/org/o1/users/${userId}`;
const ok = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };

interface Reply {
  status: number;
  body: string;
}

/** Sends a request as written (the path is not normalised, unlike fetch may do). */
function send(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A gateway in front of `handler` for every group, on a free port; `calls` lists the events it received. */
async function gatewayWith(handler: LambdaHandler, options: GatewayOptions = {}) {
  const calls: { group: ResourceGroup | undefined; event: APIGatewayProxyEventV2 }[] = [];
  const logs: Record<string, unknown>[] = [];
  const handlers = Object.fromEntries(
    resourceGroups.map((group) => [
      group,
      ((event, context) => {
        calls.push({ group: currentFunction(), event });
        return handler(event, context);
      }) as LambdaHandler,
    ]),
  ) as Record<ResourceGroup, LambdaHandler>;
  const server = createGateway(routes, handlers, { log: (record) => logs.push(record), ...options });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, calls, logs };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

const gatewayAnswer = (message: string) => JSON.stringify({ message });

describe('the 10 MB request limit', () => {
  test('a body over 10 MB is a 413 before any function runs', async () => {
    const { port, calls, logs } = await gatewayWith(async () => ok);

    const reply = await send(port, userPath('u1'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(HTTP_API_LIMITS.requestBytes + 1, 0x20),
    });

    expect(reply).toEqual({ status: 413, body: gatewayAnswer('Request Entity Too Large') });
    expect(calls).toHaveLength(0);
    // Refused on the body's size, without building the event the 6 MB rule measures.
    expect(logs).toEqual([]);
  });
});

describe("Lambda's 6 MB invocation payload, measured on the event with binary bodies base64-encoded", () => {
  const binary = (size: number) => Buffer.alloc(size, 0xff);
  const multipart = { 'content-type': 'multipart/form-data; boundary=x' };

  test('a binary body is base64-encoded in the event; a textual one is not', async () => {
    const { port, calls } = await gatewayWith(async () => ok);

    await send(port, userPath('u1'), { method: 'PUT', headers: multipart, body: Buffer.from([0, 1, 2, 255]) });
    await send(port, userPath('u1'), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1}') });

    expect(calls.map(({ event }) => [event.isBase64Encoded, event.body])).toEqual([
      [true, Buffer.from([0, 1, 2, 255]).toString('base64')],
      [false, '{"a":1}'],
    ]);
  });

  test('the largest binary body whose event fits is invoked; 3 bytes more (4 encoded) is a 413 without invoking', async () => {
    const { port, calls, logs } = await gatewayWith(async () => ok);
    // Same number of content-length digits as the bodies below, so the event's envelope is the same size.
    await send(port, userPath('u1'), { method: 'PUT', headers: multipart, body: binary(4_000_000) });
    const [calibration] = calls.splice(0);
    const envelope = Buffer.byteLength(JSON.stringify(calibration!.event)) - calibration!.event.body!.length;
    const fits = Math.floor((HTTP_API_LIMITS.invokeRequestBytes - envelope) / 4) * 3;

    const atLimit = await send(port, userPath('u1'), { method: 'PUT', headers: multipart, body: binary(fits) });
    const over = await send(port, userPath('u1'), { method: 'PUT', headers: multipart, body: binary(fits + 3) });

    expect(atLimit.status).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(calls[0]!.event))).toBeLessThanOrEqual(HTTP_API_LIMITS.invokeRequestBytes);
    expect(over).toEqual({ status: 413, body: gatewayAnswer('Request Entity Too Large') });
    expect(calls).toHaveLength(1);
    expect(logs).toEqual([expect.objectContaining({ level: 'WARN', function: 'users', payloadBytes: expect.any(Number) })]);
    expect(logs[0]!.payloadBytes).toBeGreaterThan(HTTP_API_LIMITS.invokeRequestBytes);
  });

  test('a 5 MiB file in a multipart body, far under 10 MB, is over 6 MB once encoded: 413', async () => {
    const { port, calls } = await gatewayWith(async () => ok);
    const boundary = 'limit';
    const file = Buffer.alloc(5 * 1024 * 1024, 'a');
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="users.csv"\r\nContent-Type: text/csv\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);

    const reply = await send(port, `/${defaultSubpaths.user}/org/o1/users/bulk-create`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });

    expect(body.length).toBeLessThan(HTTP_API_LIMITS.requestBytes);
    expect(reply.status).toBe(413);
    expect(calls).toHaveLength(0);
  });
});

describe('timeouts', () => {
  test('an integration past the gateway timeout (30 s, here 200 ms) is a 503; the handler keeps running and its end is logged', async () => {
    let finish: () => void = () => undefined;
    const { port, logs } = await gatewayWith(
      () =>
        new Promise((resolve) => {
          finish = () => resolve(ok);
        }),
      { integrationTimeoutMs: 200, functionTimeoutMs: () => 10_000 },
    );

    const started = Date.now();
    const reply = await send(port, userPath('u1'));
    const elapsed = Date.now() - started;

    expect(reply).toEqual({ status: 503, body: gatewayAnswer('Service Unavailable') });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(5_000);
    expect(logs).toEqual([expect.objectContaining({ level: 'WARN', function: 'users', message: expect.stringMatching(/integration timeout after 200 ms/) })]);

    finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logs[1]).toEqual(expect.objectContaining({ message: expect.stringMatching(/gave up on has now finished/) }));
  });

  test("a handler past its function's timeout, before the gateway's, is a Lambda timeout: 500", async () => {
    const { port, logs } = await gatewayWith(() => new Promise(() => undefined), { integrationTimeoutMs: 5_000, functionTimeoutMs: () => 100 });

    const reply = await send(port, userPath('u1'));

    expect(reply).toEqual({ status: 500, body: gatewayAnswer('Internal Server Error') });
    expect(logs).toEqual([expect.objectContaining({ errorType: 'Sandbox.Timedout', message: expect.stringMatching(/past its 100 ms timeout/) })]);
  });

  test("each function's timeout defaults to the CDK stack's", async () => {
    const remaining: Record<string, number> = {};
    const { port } = await gatewayWith(async (event, context) => {
      remaining[event.routeKey] = context.getRemainingTimeInMillis();
      return ok;
    });

    await send(port, userPath('u1'));
    await send(port, `/${defaultSubpaths.user}/org/o1/users/bulk-jobs/j1`);

    expect(remaining[`GET ${userPath('{userId}').replace('o1', '{orgUUID}')}`]).toBeGreaterThan(19_000);
    expect(remaining[`GET ${userPath('{userId}').replace('o1', '{orgUUID}')}`]).toBeLessThanOrEqual(20_000);
    expect(remaining[`GET /${defaultSubpaths.user}/org/{orgUUID}/users/bulk-jobs/{jobId}`]).toBeGreaterThan(28_000);
  });
});

describe("a function's init phase (its module loaded on the first request)", () => {
  test("init runs before the invocation's timer: a slow init does not time the function out", async () => {
    const initialized: ResourceGroup[] = [];
    const initialize = async (group: ResourceGroup) => {
      initialized.push(group);
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const { port, calls } = await gatewayWith(async () => ok, { functionTimeoutMs: () => 100, initialize });

    const reply = await send(port, userPath('u1'));

    expect(reply.status).toBe(200);
    expect(initialized).toEqual(['users']);
    expect(calls).toHaveLength(1);
  });

  test('a failed init is a 500 without invoking, logged as the module failing to load', async () => {
    const { port, calls, logs } = await gatewayWith(async () => ok, { initialize: () => Promise.reject(new SyntaxError('Unexpected token')) });

    const reply = await send(port, userPath('u1'));

    expect(reply).toEqual({ status: 500, body: gatewayAnswer('Internal Server Error') });
    expect(calls).toHaveLength(0);
    expect(logs).toEqual([expect.objectContaining({ level: 'ERROR', function: 'users', errorType: 'SyntaxError', message: expect.stringMatching(/module failed to load/) })]);
  });
});

describe('function errors and results', () => {
  test('a handler that throws is a 500 {"message":"Internal Server Error"}, logged as a function error', async () => {
    const { port, logs } = await gatewayWith(async () => {
      throw new TypeError('boom');
    });

    const reply = await send(port, userPath('u1'));

    expect(reply).toEqual({ status: 500, body: gatewayAnswer('Internal Server Error') });
    expect(logs).toEqual([expect.objectContaining({ level: 'ERROR', errorType: 'TypeError', function: 'users' })]);
  });

  test('a path beginning with // is a path, not a protocol-relative URL: it reaches the default route', async () => {
    const { port, calls } = await gatewayWith(async () => ({ statusCode: 404, body: 'none' }));

    const reply = await send(port, '///?key=a&limit=1e3');

    expect(reply).toEqual({ status: 404, body: 'none' });
    expect(calls.map((call) => [call.group, call.event.rawPath])).toEqual([['auth', '///']]);
  });

  test('a result over 6 MB is a 500', async () => {
    const { port } = await gatewayWith(async () => ({ statusCode: 200, body: 'x'.repeat(HTTP_API_LIMITS.invokeResponseBytes) }));

    expect(await send(port, userPath('u1'))).toEqual({ status: 500, body: gatewayAnswer('Internal Server Error') });
  });

  test('a result without statusCode is the JSON body of a 200 (payload 2.0); a malformed status is a 500', async () => {
    const plain = await gatewayWith(async () => ({ hello: 'world' }) as never);
    const malformed = await gatewayWith(async () => ({ statusCode: 42 }));

    expect(await send(plain.port, userPath('u1'))).toEqual({ status: 200, body: '{"hello":"world"}' });
    expect(await send(malformed.port, userPath('u1'))).toEqual({ status: 500, body: gatewayAnswer('Internal Server Error') });
  });

  test('each invocation runs as its function, for local IAM', async () => {
    const { port, calls } = await gatewayWith(async () => ok);

    await send(port, userPath('u1'));
    await send(port, `/${defaultSubpaths.user}/org/o1/users/bulk-jobs/j1`);
    await send(port, '/nowhere');

    expect(calls.map((call) => call.group)).toEqual(['users', 'bulk', 'auth']);
  });
});

describe('path parameters', () => {
  test.each([
    ['%', '%'],
    ['%zz', '%zz'],
    ['%E0%A4%A', '%E0%A4%A'],
    ['%C0%AF', '%C0%AF'],
    ['a%20b', 'a b'],
    ['caf%C3%A9', 'café'],
  ])('%s reaches the function as %s, never a gateway 500', async (raw, value) => {
    const { port, calls } = await gatewayWith(async () => ok);

    const reply = await send(port, userPath(raw));

    expect(reply.status).toBe(200);
    expect(calls[0]!.event.pathParameters).toEqual({ orgUUID: 'o1', userId: value });
    expect(calls[0]!.event.rawPath).toBe(userPath(raw));
  });

  test('decodePathValue decodes what decodes and keeps the rest as sent', () => {
    expect(decodePathValue('%2Fx')).toBe('/x');
    expect(decodePathValue('%E0%A4%A')).toBe('%E0%A4%A');
  });
});
