import { randomUUID } from 'node:crypto';
import { groupAccess } from '../cloud/group-access';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { defaultRouteGroup, type ResourceGroup, type Route } from '../../shared/routes';

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

/** Matches a request like API Gateway does: method and path against the compiled routes, else `$default`. */
export function matchRoute(routes: CompiledRoute[], method: string, path: string) {
  for (const { route, pattern, names } of routes) {
    if (route.method !== method) continue;
    const match = path.match(pattern);
    if (match) {
      const pathParameters = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
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

/** The function's timeout as the CDK stack sets it (`infra/cloud/group-access.ts`), 10 s by default. */
function lambdaContext(group: ResourceGroup): Context {
  const deadline = Date.now() + (groupAccess[group]?.timeoutSeconds ?? 10) * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:local-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
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

/**
 * The local stand-in for API Gateway: each request becomes a v2 event for the same handler module the
 * group's Lambda runs. An unmatched request goes to the `$default` route's group, as in the cloud.
 */
export function createGateway(routes: Route[], handlers: Record<ResourceGroup, LambdaHandler>): Server {
  const compiled = compileRoutes(routes);
  return createServer((request, response) => {
    void (async () => {
      try {
        const event = toEvent(request, await readBody(request), compiled);
        const group = routes.find((route) => route.routeKey === event.routeKey)?.group ?? defaultRouteGroup;
        write(response, await handlers[group](event, lambdaContext(group)));
      } catch {
        // What API Gateway answers when the integration itself fails.
        write(response, { statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"message":"Internal Server Error"}' });
      }
    })();
  });
}
