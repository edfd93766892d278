import * as z from 'zod/mini';
import './zod-messages';
import { errorCatalogue, type ErrorCode } from '../errors';
import { lazy } from '../lazy';
import { schemaRegistry } from './registry';

/**
 * Response pieces every area shares: the error bodies, the Page envelope, a patch, an actor. Objects
 * are strict, so a field a mapper lets out by mistake fails the OpenAPI document's response tests (test/unit/openapi-contract.test.ts).
 */

export const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];

/**
 * The shared pieces, made on first call rather than as the module loads: only the API description
 * (and tests) ask for them, so no function pays for them at a cold start.
 */
export const sharedResponses = lazy(() => {
  const dateTime = z.iso.datetime({ offset: true });

  /** The standard error body (docs/api/README.md#choices-that-apply-everywhere). */
  const errorBodySchema = z
    .strictObject({
      timestamp: z.int().check(z.meta({ description: 'Epoch milliseconds', format: 'int64' })),
      errorCode: z.enum(errorCodes),
      errorType: z.enum(['API_ERROR', 'API_INFO', 'USER_ERROR']),
      message: z.string(),
      path: z.string().check(z.meta({ description: 'The request path' })),
    })
    .check(z.meta({ description: 'The standard error body.' }))
    .register(schemaRegistry, { id: 'ErrorBody' });

  /** A 422 `details` entry: a field issue, or an entry of a bulk error list (then with `email` and `line`). */
  const fieldIssueSchema = z
    .strictObject({
      fieldName: z.string(),
      message: z.string(),
      errorCode: z.enum(errorCodes),
      email: z.optional(z.string()),
      line: z.optional(z.int()),
    })
    .register(schemaRegistry, { id: 'FieldIssue' });

  /** The standard error body plus `details` (422; a standard 422 body has no `details`). */
  const validationErrorBodySchema = z
    .extend(errorBodySchema, { details: z.optional(z.array(fieldIssueSchema)) })
    .check(z.meta({ description: 'A 422: the standard error body, with `details` when fields were refused.' }))
    .register(schemaRegistry, { id: 'ValidationErrorBody' });

  /** What API Gateway (and the local gateway) answer when no function does: 413, 429, 500, 503. */
  const gatewayErrorSchema = z
    .strictObject({ message: z.string() })
    .check(z.meta({ description: "API Gateway's own error body (no function answered)." }))
    .register(schemaRegistry, { id: 'GatewayError' });

  /** One RFC 6902 operation, as revision diffs and audit events carry them. */
  const patchOperationSchema = z
    .looseObject({
      op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
      path: z.string(),
      value: z.optional(z.unknown()),
      from: z.optional(z.string()),
    })
    .check(z.meta({ description: 'An RFC 6902 JSON Patch operation' }))
    .register(schemaRegistry, { id: 'JsonPatchOperation' });

  /** Who made a change. */
  const actorSchema = z
    .strictObject({ uuid: z.nullable(z.uuid()), email: z.nullable(z.string()) })
    .check(z.meta({ description: 'Who made a change (both null for the operator command line)' }))
    .register(schemaRegistry, { id: 'Actor' });

  return { dateTime, errorBodySchema, fieldIssueSchema, validationErrorBodySchema, gatewayErrorSchema, patchOperationSchema, actorSchema };
});

const sortSchema = lazy(() => z.strictObject({ unsorted: z.boolean(), sorted: z.boolean(), empty: z.boolean() }));

/** The Page envelope (docs/api/README.md#pages) around `item`s, unnamed. */
const pageEnvelope = <T extends z.ZodMiniType>(item: T) =>
  z.strictObject({
    content: z.array(item),
    pageable: z.strictObject({
      unpaged: z.boolean(),
      paged: z.boolean(),
      pageNumber: z.int(),
      pageSize: z.int(),
      offset: z.int(),
      sort: sortSchema(),
    }),
    totalElements: z.int(),
    totalPages: z.int(),
    numberOfElements: z.int(),
    size: z.int(),
    number: z.int(),
    first: z.boolean(),
    last: z.boolean(),
    empty: z.boolean(),
    sort: sortSchema(),
    nextPageToken: z
      .nullable(z.string())
      .check(z.meta({ description: 'The next page, as `pageToken` (docs/api/README.md#cursor-paging); null on the last page' })),
  });

/** A Page (docs/api/README.md#pages) of `item`s, named `id` in the document. */
export const pageSchemaOf = <T extends z.ZodMiniType>(item: T, id: string, description: string) =>
  pageEnvelope(item).check(z.meta({ description })).register(schemaRegistry, { id });

/** The Page envelope (docs/api/README.md#pages) around items of type `T`. */
export type Page<T> = Omit<z.output<ReturnType<typeof pageEnvelope<z.ZodMiniUnknown>>>, 'content'> & { content: T[] };
