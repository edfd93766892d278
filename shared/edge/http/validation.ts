import type middy from '@middy/core';
import type * as z from 'zod/mini';
import '../../kernel/schemas/zod-messages';
import { BadRequestError, ValidationError, type FieldIssue } from '../../kernel/errors';
import type { HttpEvent, HttpResult, RequestContext } from './types';

export interface RouteSchemas {
  body?: z.ZodMiniType;
  query?: z.ZodMiniType;
  path?: z.ZodMiniType;
}

type Infer<T> = T extends z.ZodMiniType ? z.infer<T> : undefined;

/** A request's path, query and body once the route's schemas accepted them (`undefined` where a route has none). */
export interface ValidInput<S extends RouteSchemas> {
  body: Infer<S['body']>;
  query: Infer<S['query']>;
  path: Infer<S['path']>;
}

/** Turns zod issues into the 422 `details` of the API's error body (docs/api/README.md#choices-that-apply-everywhere), one entry per bad field. */
export function toFieldIssues(error: z.core.$ZodError, prefix?: string): FieldIssue[] {
  const name = (path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.') || '(body)';
  return error.issues.flatMap((issue): FieldIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        fieldName: name([...issue.path, key]),
        message: 'This field is not allowed',
        errorCode: 'FIELD_UNKNOWN',
      }));
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [
      {
        fieldName: name(issue.path),
        message: missing ? 'This field is required' : issue.message,
        errorCode: missing ? 'FIELD_REQUIRED' : 'FIELD_INVALID',
      },
    ];
  });
}

/** The most field issues a 422 lists: a body with a million unknown keys must not answer more than Lambda may return. */
export const MAX_FIELD_ISSUES = 100;

/** The first `MAX_FIELD_ISSUES` issues, and one saying how many more there are. */
function firstIssues(issues: FieldIssue[]): FieldIssue[] {
  if (issues.length <= MAX_FIELD_ISSUES) return issues;
  const more = issues.length - MAX_FIELD_ISSUES;
  return [...issues.slice(0, MAX_FIELD_ISSUES), { fieldName: '(body)', message: `${more} more fields have problems: correct these first`, errorCode: 'FIELD_INVALID' }];
}

/** Keys no field of any body is called, which a library assigning them would take for an object's prototype. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The answer to a body with such a key, whichever check finds it (this one, or middy's JSON parser's own). */
export const unsafeKeyMessage = (key: string) => `The body has a key "${key}", which no field is called: remove it`;

/**
 * 400 `UNSAFE_KEY` when a parsed body has a key `__proto__`, `constructor` or `prototype` at any
 * depth. JSON.parse and the YAML reader keep such a key as an own property, harmlessly, but a schema
 * or library that copies the body by assignment would set an object's prototype from it; no field of
 * this API has such a name, so the body is refused before anything walks it. Iterative, so a deeply
 * nested body cannot exhaust the stack.
 */
export function refuseUnsafeKeys(body: unknown): void {
  const pending: object[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'object' && value !== null) pending.push(value);
  };
  visit(body);
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      continue;
    }
    for (const key of Object.keys(value)) {
      if (UNSAFE_KEYS.has(key)) throw new BadRequestError({ code: 'UNSAFE_KEY', message: unsafeKeyMessage(key) });
      visit((value as Record<string, unknown>)[key]);
    }
  }
}

/**
 * The route's path as the route's schema read it: its value, or the 422's details of every bad
 * segment. Parsed once, at the head of a route's chain (`routePath`), and put on the context: the
 * token's batch reads the items it names, the access check authorizes it, validation hands it to the
 * handler, and none of them parses it again.
 */
export type ParsedPath = { valid: true; value: unknown } | { valid: false; issues: FieldIssue[] };

export interface PathContext {
  routePath: ParsedPath;
}

/** The one parse of a request's path parameters (a route without a path schema takes them as they come). */
export function parsePath(schema: z.ZodMiniType | undefined, event: HttpEvent): ParsedPath {
  const parameters = event.pathParameters ?? {};
  if (!schema) return { valid: true, value: parameters };
  // reportInput: zod 4 leaves `input` off its issues otherwise, and missing-vs-wrong needs it.
  const result = schema.safeParse(parameters, { reportInput: true });
  return result.success ? { valid: true, value: result.data } : { valid: false, issues: toFieldIssues(result.error) };
}

/** Heads a route's chain: parses the path and puts the outcome on `context.routePath` (it throws nothing: each step decides what a bad path means to it). */
export function routePath(schema: z.ZodMiniType | undefined): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & Partial<PathContext>> {
  return {
    before: (request) => {
      request.context.routePath = parsePath(schema, request.event);
    },
  };
}

/** The path the chain's head parsed; a chain without `routePath()` at its head is a mistake of its builder. */
export function parsedPath(context: Partial<PathContext>): ParsedPath {
  if (!context.routePath) throw new Error('The route chain must start with routePath(): the path is parsed there, once');
  return context.routePath;
}

/**
 * Validates query and body against the route's schemas, with the path the chain's head parsed, every
 * problem reported at once, and puts what they accept on `context.input`. A body with a key no field
 * may be called is refused first.
 */
export function validate<S extends RouteSchemas>(
  schemas: S = {} as S,
): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & Partial<PathContext> & { input: ValidInput<S> }> {
  return {
    before: (request) => {
      const { event } = request;
      refuseUnsafeKeys(event.body);
      const issues: FieldIssue[] = [];
      const parse = (schema: z.ZodMiniType | undefined, value: unknown, prefix?: string) => {
        if (!schema) return value;
        // reportInput: zod 4 leaves `input` off its issues otherwise, and missing-vs-wrong needs it.
        const result = schema.safeParse(value, { reportInput: true });
        if (result.success) return result.data;
        issues.push(...toFieldIssues(result.error, prefix));
        return undefined;
      };
      const routed = parsedPath(request.context);
      if (!routed.valid) issues.push(...routed.issues);
      const path = routed.valid ? routed.value : undefined;
      const query = parse(schemas.query, event.queryStringParameters ?? {});
      const body = parse(schemas.body, event.body);
      if (issues.length > 0) throw new ValidationError({ details: firstIssues(issues) });
      // zod produced each part from the matching schema, which is what ValidInput<S> says.
      request.context.input = { body, query, path } as ValidInput<S>;
    },
  };
}
