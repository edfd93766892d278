import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ErrorCode } from '../../shared/errors';
import { defaultRouteGroup, type ResourceGroup, type Route } from '../../shared/api/routes';
import { defaultLog, errorType, FunctionTimeoutError, functionTimeoutMs, invokeOnce, type LocalLog } from './invoke';

/** A Lambda handler as the functions export it. */
export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.fullPath
    .split('/')
    .map((segment) => {
      const param = segment.match(/^\{([A-Za-z0-9_]+)\}$/);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/**
 * The route table ready for matching, once: a route with fewer path parameters first, as API Gateway
 * prefers `/supervisors/default` to `/supervisors/{supervisorUUID}`.
 */
export function compileRoutes(routes: Route[]): CompiledRoute[] {
  return routes.map(compile).sort((a, b) => a.names.length - b.names.length);
}

/**
 * HTTP API hands the function percent-decoded path values (live captures: `space%20value` arrives as
 * `space value`). What it does with a value that does not decode (`%`, `%zz`, a cut or invalid UTF-8
 * sequence such as `%E0%A4%A` or `%C0%AF`) is not documented; here it reaches the function as it was
 * sent, so the gateway never fails on it and the function answers for it.
 */
export function decodePathValue(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Matches a request like API Gateway does: method and path against the compiled routes, else `$default`. */
export function matchRoute(routes: CompiledRoute[], method: string, path: string) {
  for (const { route, pattern, names } of routes) {
    if (route.method !== method) continue;
    const match = path.match(pattern);
    if (match) {
      const pathParameters = Object.fromEntries(names.map((name, i) => [name, decodePathValue(match[i + 1]!)]));
      return { route, pathParameters };
    }
  }
  return undefined;
}

const TEXTUAL = /^(text\/|application\/(json|[^;]+\+json|x-www-form-urlencoded|xml))/i;

/** Builds an API Gateway HTTP API (payload format 2.0) event from a Node request. */
export function toEvent(request: IncomingMessage, body: Buffer, routes: CompiledRoute[]): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = request.method ?? 'GET';
  const matched = matchRoute(routes, method, url.pathname);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'cookie' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // As API Gateway, which tells the function how the client reached it (there always HTTPS, port 443;
  // here HTTP on the gateway's port): the docs function names the API's address from these and Host.
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const textual = TEXTUAL.test(headers['content-type'] ?? '');
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: matched ? matched.route.routeKey : '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: matched ? matched.route.routeKey : '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: body.length > 0 && !textual,
  };
  if (request.headers.cookie) event.cookies = request.headers.cookie.split(/;\s*/);
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (matched && Object.keys(matched.pathParameters).length > 0) event.pathParameters = matched.pathParameters;
  if (body.length > 0) event.body = textual ? body.toString('utf8') : body.toString('base64');
  return event;
}

/**
 * What API Gateway HTTP API and Lambda allow, and what the client sees past each limit. Sources: the
 * HTTP API quotas page (payload 10 MB and integration timeout 30 s, neither adjustable), Lambda's
 * quotas (6 MB each way for a synchronous invocation) and, for the exact byte counts and answers,
 * AWS's own Lambda Test Tool (aws/aws-lambda-dotnet, Tools/LambdaTestTool-v2), which emulates HTTP
 * API payload 2.0, and Lambda's own error messages.
 */
export const HTTP_API_LIMITS = {
  /** The request body: 10 MB as API Gateway counts ("HTTP content length exceeded 10485760 bytes"). */
  requestBytes: 10 * 1024 * 1024,
  /**
   * The invocation payload, i.e. the event serialised as JSON, binary bodies base64-encoded in it
   * ("Request must be smaller than 6291456 bytes for the InvokeFunction operation").
   */
  invokeRequestBytes: 6 * 1024 * 1024,
  /** The function's result serialised ("Response payload size exceeded maximum allowed payload size (6291556 bytes)"). */
  invokeResponseBytes: 6 * 1024 * 1024 + 100,
  /** The integration timeout, HTTP API's maximum and default (the CDK stack keeps the default). */
  integrationTimeoutMs: 30_000,
} as const;

/** API Gateway's own answers (HTTP API), each a JSON body with a message. */
const ANSWERS = {
  /**
   * A body over 10 MB, or an event Lambda refuses as over 6 MB (`RequestEntityTooLargeException`):
   * HTTP API answers 413 in both cases, before any function code runs.
   */
  tooLarge: { statusCode: 413, message: 'Request Entity Too Large' },
  /**
   * A function error (thrown, or the function's own timeout), a result over 6 MB or one that is not a
   * valid payload 2.0 response: HTTP API answers 500 (a REST API would answer 502).
   */
  internalError: { statusCode: 500, message: 'Internal Server Error' },
  /** The integration ran past 30 s: API Gateway gives up on it while the function may still run. */
  unavailable: { statusCode: 503, message: 'Service Unavailable' },
} as const;

function answer(response: ServerResponse, { statusCode, message }: { statusCode: number; message: string }): void {
  const body = JSON.stringify({ message });
  response.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * The body, or undefined once it passes `limit` bytes; the rest is still read (and dropped) so that the
 * client, still sending, receives the 413.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
    request.on('close', () => {
      if (!request.complete) reject(new Error('The client went away before the end of its request'));
    });
  });
}

/**
 * A payload 2.0 result as API Gateway reads it: an object with a `statusCode` is the response; any
 * other value is the JSON body of a 200. Undefined when it is not a response API Gateway can send.
 */
function toResponse(result: unknown): APIGatewayProxyStructuredResultV2 | undefined {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result ?? null) };
  }
  const structured = result as APIGatewayProxyStructuredResultV2;
  const status = structured.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  return structured;
}

function write(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  // Like API Gateway, which serialises the result as JSON: a header set to undefined is no header.
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined && value !== null) headers[name] = String(value);
  }
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
}

export interface GatewayOptions {
  /** API Gateway's integration timeout; 30 s unless a test shortens it. */
  integrationTimeoutMs?: number;
  /** Each function's timeout; by default the CDK stack's (`infra/cloud/group-access.ts`, else 10 s). */
  functionTimeoutMs?: (group: ResourceGroup) => number;
  /** Where the gateway writes what it did instead of the function (one JSON line each; stderr by default). */
  log?: LocalLog;
  /**
   * Whether the stack behind the gateway is ready (every handler loaded, the demo data written). Until
   * it is, every request is answered `startingAnswer`, so no client meets a half-started stack.
   */
  ready?: () => boolean;
}

/** How long a client told "starting" waits before it tries again, in seconds. */
export const STARTING_RETRY_AFTER_S = 1;

/**
 * The answer while the stack starts: 503 with `Retry-After` and the spec's standard error body. The
 * code is the local gateway's own (a deployed API is never half-started).
 */
export function startingAnswer(path: string): { statusCode: 503; headers: Record<string, string>; body: string } {
  const body = {
    timestamp: Date.now(),
    errorCode: 'STACK_STARTING' satisfies ErrorCode,
    errorType: 'API_ERROR',
    message: `The local stack is still starting: retry in a moment (Retry-After: ${STARTING_RETRY_AFTER_S} s)`,
    path,
  };
  return { statusCode: 503, headers: { 'content-type': 'application/json', 'retry-after': String(STARTING_RETRY_AFTER_S) }, body: JSON.stringify(body) };
}

/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): each request becomes a v2 event
 * for the same handler module the group's Lambda runs, under API Gateway's and Lambda's rules (see
 * `HTTP_API_LIMITS` and `ANSWERS`). An unmatched request goes to the `$default` route's group, as in
 * the cloud. Each invocation runs as its function (`runAsFunction`), so local IAM applies its role.
 */
export function createGateway(routes: Route[], handlers: Record<ResourceGroup, LambdaHandler>, options: GatewayOptions = {}): Server {
  const compiled = compileRoutes(routes);
  const integrationTimeoutMs = options.integrationTimeoutMs ?? HTTP_API_LIMITS.integrationTimeoutMs;
  const timeoutOf = options.functionTimeoutMs ?? functionTimeoutMs;
  const log = options.log ?? defaultLog;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request, HTTP_API_LIMITS.requestBytes);
    if (body === undefined) return answer(response, ANSWERS.tooLarge);
    const event = toEvent(request, body, compiled);
    const group = routes.find((route) => route.routeKey === event.routeKey)?.group ?? defaultRouteGroup;
    const where = { source: 'local-gateway', function: group, routeKey: event.routeKey, requestId: event.requestContext.requestId };

    const payloadBytes = Buffer.byteLength(JSON.stringify(event));
    if (payloadBytes > HTTP_API_LIMITS.invokeRequestBytes) {
      log({ level: 'WARN', ...where, payloadBytes, message: `the event is over Lambda's ${HTTP_API_LIMITS.invokeRequestBytes}-byte invocation payload: 413 without invoking` });
      return answer(response, ANSWERS.tooLarge);
    }

    const timeoutMs = timeoutOf(group);
    const { attempt, running } = invokeOnce(group, handlers[group], event, { timeoutMs });
    let integrationTimer: NodeJS.Timeout | undefined;
    const integrationTimedOut = new Promise<'integration-timeout'>((resolve) => {
      integrationTimer = setTimeout(() => resolve('integration-timeout'), integrationTimeoutMs);
    });
    const outcome = await Promise.race([attempt, integrationTimedOut]);
    clearTimeout(integrationTimer);

    if (outcome === 'integration-timeout' || (!outcome.ok && outcome.error instanceof FunctionTimeoutError)) {
      // Lambda would stop a timed-out function; here the handler keeps running in this process.
      const started = Date.now();
      running.then(
        () => log({ level: 'WARN', ...where, afterMs: Date.now() - started, message: 'the handler the gateway gave up on has now finished' }),
        () => log({ level: 'WARN', ...where, afterMs: Date.now() - started, message: 'the handler the gateway gave up on has now failed' }),
      );
    }
    if (outcome === 'integration-timeout') {
      log({ level: 'WARN', ...where, message: `integration timeout after ${integrationTimeoutMs} ms: 503; the handler keeps running in this process` });
      return answer(response, ANSWERS.unavailable);
    }
    if (!outcome.ok) {
      // As Lambda's runtime logs an "Invoke Error" in the function's log.
      const timedOut = outcome.error instanceof FunctionTimeoutError;
      log({
        level: timedOut ? 'WARN' : 'ERROR',
        ...where,
        awsRequestId: outcome.awsRequestId,
        errorType: errorType(outcome.error),
        errorMessage: outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
        message: timedOut ? `the function ran past its ${timeoutMs} ms timeout: 500; the handler keeps running in this process` : 'function error: 500',
      });
      return answer(response, ANSWERS.internalError);
    }

    const resultBytes = Buffer.byteLength(JSON.stringify(outcome.result ?? null));
    if (resultBytes > HTTP_API_LIMITS.invokeResponseBytes) {
      log({ level: 'ERROR', ...where, resultBytes, message: `the result is over Lambda's ${HTTP_API_LIMITS.invokeResponseBytes}-byte response payload: 500` });
      return answer(response, ANSWERS.internalError);
    }
    const result = toResponse(outcome.result);
    if (!result) {
      log({ level: 'ERROR', ...where, message: 'the result is not a payload 2.0 response (statusCode): 500' });
      return answer(response, ANSWERS.internalError);
    }
    try {
      write(response, result);
    } catch (error) {
      // Node refused a header or status of the result: API Gateway would not send it either.
      log({ level: 'ERROR', ...where, errorType: errorType(error), message: 'the result has a header API Gateway cannot send: 500' });
      if (!response.headersSent) answer(response, ANSWERS.internalError);
      else response.destroy();
    }
  }

  const server = createServer((request, response) => {
    if (options.ready && !options.ready()) {
      request.resume(); // The body is not read, but must be drained for the connection to be reused.
      return write(response, startingAnswer((request.url ?? '/').split('?')[0]!));
    }
    serve(request, response).catch((error: unknown) => {
      if (response.destroyed || request.destroyed) return; // the client went away
      log({ level: 'ERROR', source: 'local-gateway', errorType: errorType(error), message: 'the local gateway itself failed: 500' });
      if (!response.headersSent) answer(response, ANSWERS.internalError);
      else response.destroy();
    });
  });
  // Idle keep-alive connections are closed by the client, as with API Gateway (which keeps them far
  // longer than Node's 5 s default): a server closing one just as a client reuses it fails that
  // request ("fetch failed"), which a loaded machine makes likely.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
