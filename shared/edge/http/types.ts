import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Operation } from '../api/operation';

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

export const ok = <B>(body: B, headers?: Record<string, string>) => ({ status: 200 as const, body, headers });

/** A 204: no body. */
export const noContent = (headers?: Record<string, string>) => ({ status: 204 as const, ...(headers ? { headers } : {}) });

type Extras = Pick<Reply, 'headers' | 'cookies'>;

/**
 * The answer one declared outcome allows: its status, and a body its schema takes (JSON, or that JSON
 * already written out, with its media type), text, or none. The schema is the return type of the
 * outcome's `json`, which the handler's types read without making it.
 */
type AnswerOfOutcome<R> = R extends { status: infer S; json: () => infer J extends z.ZodMiniType; mediaTypes: readonly string[] }
  ? Extras & { status: S; body: z.input<J> | string; contentType?: string }
  : R extends { status: infer S; json: () => infer J extends z.ZodMiniType }
  ? Extras & ({ status: S; body: z.input<J>; contentType?: string } | { status: S; body: string; contentType: string })
  : R extends { status: infer S; text: object }
    ? Extras & { status: S; body: string; contentType: string }
    : R extends { status: infer S }
      ? Extras & { status: S; body?: undefined }
      : never;

/** What a handler bound to `O` may answer: one of the outcomes the catalogue declares for it. */
export type AnswerOf<O extends Pick<Operation, 'responses'>> = AnswerOfOutcome<O['responses'][number]>;

/**
 * A route's own middy chain gives up this long before the function's time limit (middy's
 * `timeoutEarlyInMillis`), earlier than the function's outer chain (5 ms): so the route's error
 * handling answers a timeout (SCIM's error schema on SCIM routes), and other routes pass it to the
 * outer error mapper, which answers 503 `TIMEOUT`.
 */
export const routeChainOptions = { timeoutEarlyInMillis: 10 };
