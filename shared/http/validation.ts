import type middy from '@middy/core';
import type * as z from 'zod';
import { ValidationError, type FieldIssue } from '../errors';
import type { HttpEvent, HttpResult, RequestContext } from './types';

export interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  path?: z.ZodType;
}

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

/** A request's path, query and body once the route's schemas accepted them (`undefined` where a route has none). */
export interface ValidInput<S extends RouteSchemas> {
  body: Infer<S['body']>;
  query: Infer<S['query']>;
  path: Infer<S['path']>;
}

/** Turns zod issues into the spec's 422 `details`, one entry per bad field. */
export function toFieldIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
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

/**
 * Validates path, query and body against the route's schemas, every problem reported at once, and puts
 * what they accept on `context.input`.
 */
export function validate<S extends RouteSchemas>(
  schemas: S = {} as S,
): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & { input: ValidInput<S> }> {
  return {
    before: (request) => {
      const { event } = request;
      const issues: FieldIssue[] = [];
      const parse = (schema: z.ZodType | undefined, value: unknown, prefix?: string) => {
        if (!schema) return value;
        // reportInput: zod 4 leaves `input` off its issues otherwise, and missing-vs-wrong needs it.
        const result = schema.safeParse(value, { reportInput: true });
        if (result.success) return result.data;
        issues.push(...toFieldIssues(result.error, prefix));
        return undefined;
      };
      const path = parse(schemas.path, event.pathParameters ?? {});
      const query = parse(schemas.query, event.queryStringParameters ?? {});
      const body = parse(schemas.body, event.body);
      if (issues.length > 0) throw new ValidationError(issues);
      // zod produced each part from the matching schema, which is what ValidInput<S> says.
      request.context.input = { body, query, path } as ValidInput<S>;
    },
  };
}
