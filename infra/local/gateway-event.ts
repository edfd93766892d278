/** The event API Gateway HTTP API hands a function (payload format 2.0), built from a Node request. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { matchRoute, type CompiledRoute } from './route-match';
import { LOCAL_ACCOUNT_ID } from './kernel/local-account';

const TEXTUAL = /^(text\/|application\/(json|[^;]+\+json|x-www-form-urlencoded|xml))/i;

export function toEvent(request: IncomingMessage, body: Buffer, routes: CompiledRoute[]): APIGatewayProxyEventV2 {
  // Appended, not resolved: a path beginning `//` is a path to API Gateway, not a protocol-relative URL.
  const url = new URL(`http://localhost${request.url ?? '/'}`);
  const method = request.method ?? 'GET';
  const matched = matchRoute(routes, method, url.pathname);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'cookie' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // How the client reached the gateway, as API Gateway tells it: the docs function names the API's address from these.
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
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: { method, path: url.pathname, protocol: `HTTP/${request.httpVersion}`, sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
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
