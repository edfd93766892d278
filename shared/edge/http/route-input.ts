import type middy from '@middy/core';
import type { Operation } from '../api/operation';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { BadRequestError } from '../../kernel/errors';
import { multipartBodyParser } from './multipart';
import { textBodyParser, type BodyReader } from './text-body';
import { denyingPermissions, PAGE_DENIED_FEATURES, STRICT_PAGE_POLICY } from './page-policy';
import type { HttpEvent, HttpResult, Reply, RequestContext } from './types';
import type { RouteSchemas, ValidInput } from './validation';

/** What every route's chain shares: its input, its spec, its body parser and how a reply becomes a result. */

/** What a route's handler receives: the validated path, query and body, and the request's plain facts. */
export type RouteInput<S extends RouteSchemas> = ValidInput<S> & {
  headers: Record<string, string | undefined>;
  /** The body as text, for routes that read it themselves (the OAuth form). */
  rawBody: string | undefined;
  /** The request's cookies (`name=value` each), which payload 2.0 carries apart from the headers. */
  cookies: string[];
  /** The request's query string parameters, for routes that read them without a schema. */
  rawQuery: Record<string, string | undefined>;
  /** The query string as sent, for routes that must see a repeated parameter (the parameters above join repeats with commas). */
  queryString: string;
  /** The address the request was sent to, without its query: what a `Link` header names the next page by. */
  url: string;
  /** The client's address, as the gateway saw it (what a per-address limit counts by). */
  sourceIp: string;
  requestId: string;
};

export interface RouteSpec<S extends RouteSchemas, I> {
  schemas?: S;
  /**
   * The body is `multipart/form-data` (parsed by `multipart.ts` into fields and files) rather than
   * JSON; a file part longer than `maxFileBytes` arrives with `truncated: true`.
   */
  multipart?: { maxFileBytes: number };
  /** The body is read by `reader` from text of its media types (`text-body.ts`) rather than as JSON. */
  readBody?: BodyReader;
  handle: (input: I) => Promise<Reply>;
}

/**
 * One route's chain, as the router calls it. Its context is `any`, as in the router's own route type:
 * the chain's middlewares add to the context (caller, input) what no caller supplies.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteChain = middy.MiddyfiedHandler<HttpEvent, HttpResult, Error, any>;

export interface RouteHandler {
  authenticated: boolean;
  build: () => RouteChain;
  /** The catalogue operation it serves (bound by `tokenOperation` or `publicOperation`). */
  readonly operationId?: string;
  readonly operation?: Operation;
}

/** The route's body parser: multipart, its own reader, JSON when it has a body schema, else none (an empty list). */
export function bodyParser(spec: {
  schemas?: RouteSchemas;
  multipart?: { maxFileBytes: number };
  readBody?: BodyReader;
}): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext>[] {
  if (spec.multipart) return [multipartBodyParser(spec.multipart)];
  if (spec.readBody) return [textBodyParser(spec.readBody)];
  return spec.schemas?.body ? [jsonDepthBound(), httpJsonBodyParser<HttpEvent>()] : [];
}

/** The deepest a JSON body may nest objects and arrays: no field of the API nests more than a few levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * 400 `MALFORMED_JSON` for a body nested deeper than `MAX_JSON_DEPTH`, read once without parsing, before
 * middy's parser walks it: its key check runs JSON.parse with a reviver, which recurses once per level
 * and runs out of stack some thousands of levels down.
 */
function jsonDepthBound(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  return {
    before: ({ event }) => {
      const text = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      if (text && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
        throw new BadRequestError({
          code: 'MALFORMED_JSON',
          message: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep, which no field of this API does: send the fields the operation documents`,
        });
      }
    },
  };
}

/** Whether JSON text opens more than `limit` objects and arrays inside one another (brackets in strings do not count). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export function requestFacts(event: HttpEvent, context: RequestContext) {
  return {
    headers: event.headers ?? {},
    rawBody: rawBodyOf(event),
    cookies: event.cookies ?? [],
    rawQuery: event.queryStringParameters ?? {},
    queryString: event.rawQueryString ?? '',
    url: `${event.headers?.['x-forwarded-proto'] ?? 'https'}://${event.headers?.host ?? event.requestContext?.domainName}${event.rawPath}`,
    sourceIp: event.requestContext?.http?.sourceIp ?? '',
    requestId: context.requestId,
  };
}

function rawBodyOf(event: HttpEvent): string | undefined {
  if (typeof event.body !== 'string') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);

export function toResult(reply: Reply): HttpResult {
  const headers = { ...reply.headers };
  const cookies = reply.cookies?.length ? { cookies: reply.cookies } : {};
  if (reply.body === undefined) return { statusCode: reply.status, headers, ...cookies };
  const contentType = reply.contentType ?? 'application/json';
  if (/^text\/html\b/i.test(contentType)) {
    if (!hasHeader(headers, 'content-security-policy')) headers['content-security-policy'] = STRICT_PAGE_POLICY;
    if (!hasHeader(headers, 'permissions-policy')) headers['permissions-policy'] = denyingPermissions(PAGE_DENIED_FEATURES);
  }
  // Text (a page, a CSV, a YAML bundle) goes as it is; anything else as JSON, under whichever JSON media type the reply names.
  const body = typeof reply.body === 'string' && reply.contentType ? reply.body : JSON.stringify(reply.body);
  return { statusCode: reply.status, headers: { ...headers, 'content-type': contentType }, body, ...cookies };
}
