import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** What a route handler returns; the chain turns it into the API Gateway result. */
export interface Reply {
  status: number;
  /** Serialised as JSON unless `contentType` says otherwise (then it must be a string). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** Set-Cookie values (payload 2.0 answers them apart from the headers). */
  cookies?: string[];
}

export type HttpEvent = APIGatewayProxyEventV2 & { body?: unknown };
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** The Lambda context plus the request id the chain gives every request (route middlewares add more). */
export interface RequestContext extends Context {
  requestId: string;
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });

/**
 * A route's own middy chain gives up this long before the function's time limit (middy's
 * `timeoutEarlyInMillis`), earlier than the function's outer chain (5 ms): so the route's error
 * handling answers a timeout (SCIM's error schema on SCIM routes), and other routes pass it to the
 * outer error mapper, which answers 503 `TIMEOUT`.
 */
export const routeChainOptions = { timeoutEarlyInMillis: 10 };
