/** API Gateway's and Lambda's limits, and what the local gateway answers in their place (and while the stack starts). */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ErrorCode } from '../../../shared/kernel/errors';

/**
 * What API Gateway HTTP API and Lambda allow, and what the client sees past each limit, from the HTTP
 * API and Lambda quotas pages and, for exact byte counts and answers, AWS's Lambda Test Tool
 * (aws/aws-lambda-dotnet, Tools/LambdaTestTool-v2) and Lambda's own error messages.
 */
export const HTTP_API_LIMITS = {
  /** "HTTP content length exceeded 10485760 bytes". */
  requestBytes: 10 * 1024 * 1024,
  /** The event as JSON, binary bodies base64-encoded ("Request must be smaller than 6291456 bytes for the InvokeFunction operation"). */
  invokeRequestBytes: 6 * 1024 * 1024,
  /** The result as JSON ("Response payload size exceeded maximum allowed payload size (6291556 bytes)"). */
  invokeResponseBytes: 6 * 1024 * 1024 + 100,
  /** HTTP API's maximum and default, which the CDK stack keeps. */
  integrationTimeoutMs: 30_000,
} as const;

/** API Gateway's own answers (HTTP API), each a JSON body with a message. */
export const ANSWERS = {
  /** A body over 10 MB, or an event Lambda refuses as over 6 MB: before any function code runs. */
  tooLarge: { statusCode: 413, message: 'Request Entity Too Large' },
  /** A function error or timeout, a result over 6 MB or not a payload 2.0 response (a REST API would answer 502). */
  internalError: { statusCode: 500, message: 'Internal Server Error' },
  /** The integration ran past 30 s: API Gateway gives up on it while the function may still run. */
  unavailable: { statusCode: 503, message: 'Service Unavailable' },
} as const;

export const answer = (response: ServerResponse, { statusCode, message }: { statusCode: number; message: string }): void =>
  write(response, { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });

/**
 * The body, or undefined once it passes `limit` bytes; the rest is still read (and dropped) so that the
 * client, still sending, receives the 413.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
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
export function toResponse(result: unknown): APIGatewayProxyStructuredResultV2 | undefined {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result ?? null) };
  }
  const structured = result as APIGatewayProxyStructuredResultV2;
  const status = structured.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return undefined;
  return structured;
}

/** Statuses whose response has no body, and so no Content-Length (RFC 9110, 8.6). */
const bodiless = (status: number) => status < 200 || status === 204 || status === 304;

export function write(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const status = result.statusCode ?? 200;
  const headers: Record<string, string | string[]> = {};
  // Like API Gateway, which serialises the result as JSON: a header set to undefined is no header; and
  // which sends the body's length itself, whatever the function said.
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined && value !== null && name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  // Text is handed to Node as a string, which it sends in one write with the head.
  const body = result.body === undefined ? undefined : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  if (!bodiless(status)) headers['content-length'] = String(body === undefined ? 0 : Buffer.byteLength(body));
  response.writeHead(status, headers);
  response.end(body);
}

const STARTING_RETRY_AFTER_S = 1;

/**
 * The answer while the stack starts: 503 with `Retry-After` and the API's standard error body. The
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

/** Answers `startingAnswer` without reading the body (drained, so that the connection can be reused). */
export function answerStarting(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  write(response, startingAnswer((request.url ?? '/').split('?')[0]!));
}

/**
 * Idle keep-alive connections are closed by the client, as with API Gateway (which keeps them far
 * longer than Node's 5 s default): a server closing one just as a client reuses it fails that request
 * ("fetch failed"), which a loaded machine makes likely.
 */
export function withGatewayTimeouts(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
