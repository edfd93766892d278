import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '../auth/caller';

/** What a route handler returns; the chain turns it into the API Gateway result. */
export interface Reply {
  status: number;
  /** Serialised as JSON unless `contentType` says otherwise (then it must be a string). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export type HttpEvent = APIGatewayProxyEventV2 & { body?: unknown };
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** The Lambda context plus what the chain learns about the request. */
export interface RequestContext extends Context {
  requestId: string;
  caller?: Caller;
  input?: { body: unknown; query: unknown; path: unknown };
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });

/** A read or write answered with the resource and its ETag. */
export const withEtag = (view: { body: unknown; etag: string }, status = 200): Reply => ({
  status,
  body: view.body,
  headers: { etag: view.etag },
});
