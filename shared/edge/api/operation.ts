import type * as z from 'zod/mini';
import type { TokenAccess } from '../../app/access/access-kinds';

export type { TokenAccess };

/**
 * What one operation of the API is, declared once in the catalogue (`catalogue.ts`): where it lives,
 * who may call it, what it takes and answers, and how the document describes it. The CDK routes, the
 * local gateway, each function's router and the OpenAPI document all read these declarations.
 */

/** One Lambda per resource group. */
export const resourceGroups = ['auth', 'docs', 'users', 'supervisors', 'agents', 'configurations', 'bulk', 'bulk-worker', 'scim', 'publisher', 'mail', 'feed'] as const;
export type ResourceGroup = (typeof resourceGroups)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which configurable prefix a route lives under (docs/api/README.md#choices-that-apply-everywhere): `auth` and `root` sit at the API's root. */
export type Area = 'auth' | 'root' | 'generative' | 'user';

/**
 * Who may call: a `TokenAccess` (every management operation: a user's access token); `public`, anyone
 * (the route checks its own credentials, OAuth's way); `bearer`, public to the chain but reading a
 * user's token itself (userinfo); `scim`, a SCIM token of the path's organization (the SCIM endpoints).
 */
export type Access = TokenAccess | 'public' | 'bearer' | 'scim';

/** Whether an operation takes a user's access token, checked by the chain. */
export const takesUserToken = (access: Access): access is TokenAccess => typeof access === 'object';

/** Response headers, each a `components.headers` entry of the document. */
export type ResponseHeader = 'ETag' | 'Location' | 'Preference-Applied' | 'Content-Disposition' | 'Cache-Control' | 'Pragma' | 'Set-Cookie' | 'Idempotent-Replayed' | 'Retry-After';
/** Request headers, each a `components.parameters` entry of the document. */
export type RequestHeader = 'Language' | 'IfMatch' | 'Prefer' | 'IdempotencyKey';

/**
 * One answer of an operation: its status, and a JSON body (a response schema) or a text body.
 * The schema of an answer is a function that makes it: only the API description (and tests) ask for
 * it, no function checks its own answers at run time, so a function's cold start builds none of them.
 */
export interface Outcome {
  status: number;
  description: string;
  /** Makes the schema of the JSON body (each module's schemas are made once, on first call). */
  json?: () => z.ZodMiniType;
  /** The media type of the `json` body when it is not `application/json` (SCIM's `application/scim+json`). */
  mediaType?: string;
  /** Other media types the `json` body is also served as, by the request's `Accept` (a bundle as YAML). */
  mediaTypes?: readonly string[];
  text?: { mediaType: string; description: string };
  headers?: ResponseHeader[];
}

/**
 * What an operation takes. The chain validates `path`, `query` and `body` (or the multipart form) before the handler runs.
 * Each schema is a function that makes it (each module's schemas are made once, on first call): the
 * route's chain calls it when it is built, on the route's first call, and the API description when it
 * is made, so a function's cold start builds none of them.
 */
export interface OperationRequest {
  path?: () => z.ZodMiniType;
  query?: () => z.ZodMiniType;
  body?: () => z.ZodMiniType;
  /** The media types the body is read from (`application/json` when absent); the handler binds a reader of them. */
  bodyMediaTypes?: readonly string[];
  /** A `multipart/form-data` body with a CSV file in the part `file`; a longer file arrives truncated. */
  multipart?: { maxFileBytes: number };
  /** A form the handler reads by OAuth's rules (its errors are OAuth's): described, not validated by the chain. */
  form?: () => z.ZodMiniType;
  headers?: RequestHeader[];
}

/** The error answers an operation documents beyond its outcomes. */
export interface ErrorStatuses {
  /** The statuses, in place of the common ones of a management operation. */
  only?: number[];
  /** Statuses beyond the common ones (413 for a file upload). */
  extra?: number[];
  /** 400 and 401 are OAuth's error body (RFC 6749 §5.2) rather than the standard one. */
  oauth?: boolean;
  /** Every error is SCIM's error schema (RFC 7644 §3.12) as `application/scim+json`: made, as an outcome's `json`, only when the description asks. */
  scim?: () => z.ZodMiniType;
  /** A `default` response for any other error (an operation with no success body to document otherwise). */
  anyOther?: boolean;
}

export interface Operation {
  /** Stable name: `events/<id>.json`, the document's `operationId`, the handler's binding. */
  id: string;
  group: ResourceGroup;
  method: HttpMethod;
  area: Area;
  /** The path after the area's subpath, in API Gateway's syntax (`{name}` parameters). */
  path: string;
  access: Access;
  request?: OperationRequest;
  responses: Outcome[];
  errors?: ErrorStatuses;
  summary: string;
  description?: string;
  /** An example request body: what "Try it out" starts from (`openapi-examples.test.ts` holds it to the schemas). */
  example?: unknown;
}

/** Declares an operation, keeping its schemas' types for the handler that binds it. */
export const operation = <const O extends Operation>(definition: O): O => definition;

/** The operations of one group in one area, their paths under a common prefix (an organization, a bot, a realm). */
export function operationsUnder<const G extends ResourceGroup, const A extends Area>(group: G, area: A, prefix: string): Declarer<G, A, object>;
/** The same, every one of them called with `shared.access`: a group whose operations all take one access states it once. */
export function operationsUnder<const G extends ResourceGroup, const A extends Area, const S extends { access: Access }>(group: G, area: A, prefix: string, shared: S): Declarer<G, A, S>;
export function operationsUnder(group: ResourceGroup, area: Area, prefix: string, shared: { access?: Access } = {}) {
  return (definition: Omit<Operation, 'group' | 'area'>) => ({ ...shared, ...definition, group, area, path: `${prefix}${definition.path}` });
}

/** Declares an operation of one group: what the group's declarer does not supply (`S`), and keeps its types for the handler that binds it. */
export type Declarer<G extends ResourceGroup, A extends Area, S extends object> = <const O extends Omit<Operation, 'group' | 'area' | keyof S>>(definition: O) => S & O & { group: G; area: A };

/** The gateway's errors, which any route may answer whatever it does: throttling (429), an internal error (500), unavailable (503). */
export const gatewayStatuses = [429, 500, 503];

/** A listing's answer: a Page of `items`, `number` counting from `base`, and what else its description says; `schema` makes the Page's schema, as an outcome's `json`. */
export interface PageAnswer<P extends z.ZodMiniType> {
  items: string;
  schema: () => P;
  base: 0 | 1;
  note?: string;
}

/**
 * A GET answering one page of a listing (docs/api/README.md#pages), by its page query: its one answer,
 * 200 with the Page schema, is described the same way for every listing.
 */
export function listing<const O extends Omit<Operation, 'group' | 'area' | 'method' | 'responses' | 'access'> & Partial<Pick<Operation, 'access'>>, const P extends z.ZodMiniType>({ page, ...definition }: O & { page: PageAnswer<P> }) {
  const description = `A page of ${page.items} (${page.base}-based)${page.note ? `; ${page.note}` : ''}`;
  return { ...definition, method: 'GET' as const, responses: [{ status: 200 as const, description, json: page.schema }] };
}
