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

