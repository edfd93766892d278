import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type * as Idempotency from '@aws-lambda-powertools/idempotency';
import type * as IdempotencyStores from '@aws-lambda-powertools/idempotency/dynamodb';
import type { JSONValue } from '@aws-lambda-powertools/commons/types';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { readKeyedChange, type KeyedChange } from '../../domain/audit/audit-event.repository';
import type { KeyedRequest } from '../../domain/audit/audit-context';
import { ConflictError, UnprocessableError, ValidationError } from '../../kernel/errors';
import { userIdempotencyStore } from '../../domain/requests/idempotency.repository';
import type { HttpEvent, HttpResult, RequestContext } from './types';
import { lazy, requireLazily } from '../../kernel/lazy';

/**
 * `Idempotency-Key` on the routes that create: the same key with the same request, within
 * 24 hours, answers the first answer again with `Idempotent-Replayed: true` and does nothing more.
 * Powertools' idempotency utility does the work: one record per user and key in the table, written
 * `INPROGRESS` before the handler runs (a conditional PutItem, so two racing requests cannot both
 * run), completed with the answer after, deleted when the handler throws (an error answer is not
 * kept: a retry runs again). What it needed from us: the record's key in the user's partition
 * (`shared/domain/requests/idempotency.repository.ts`), the request's fingerprint (method, path and query, body), and its
 * errors in the API's terms.
 */

/** The request header, as the header normaliser leaves it (lower case). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Added to a replayed answer. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a key is remembered: the record's `ttl`, and Powertools' own expiry check before TTL deletes it. */
export const IDEMPOTENCY_SECONDS = 24 * 60 * 60;

/** 1 to 255 printable ASCII characters (space to tilde). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * Powertools' key prefix: the version of the fingerprint below. Changing what the fingerprint holds
 * means a new prefix, so that a record of the old kind is never taken for a different request.
 */
const RECORD_VERSION = 'v1';

/** A stored answer larger than this (after compression) is not kept; see `NotKept`. */
const MAX_STORED_BODY_BYTES = 300 * 1024;
/** Bodies above this are stored gzipped (bulk error lists): a record is one item of at most 400 KB. */
const GZIP_ABOVE_BYTES = 16 * 1024;

/** The validated header, or undefined without one; a malformed one is a 422 naming `Idempotency-Key`. */
export function idempotencyKeyOf(headers: Record<string, string | undefined> | undefined): string | undefined {
  const value = headers?.[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (!KEY_PATTERN.test(value)) {
    throw new ValidationError({ details: [
      { fieldName: 'Idempotency-Key', message: 'Must be 1 to 255 printable ASCII characters', errorCode: 'FIELD_INVALID' },
    ] });
  }
  return value;
}

/** Checks the header before the body is read, and puts the key (or undefined) on the context. */
export function idempotencyKeyCheck(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext & { idempotencyKey?: string }> {
  return {
    before: (request) => {
      request.context.idempotencyKey = idempotencyKeyOf(request.event.headers);
    },
  };
}

/** What identifies the request a key was first sent with. */
interface Fingerprint {
  method: string;
  /** The path and the query string: `?dryRun=true` is another request. */
  target: string;
  /** The parsed body (JSON: key order and spacing do not matter; a form: its fields and files' digests). */
  body: JSONValue;
}

/** The answer as the record keeps it: a gzipped body travels as base64 in `gzippedBody`. */
interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body?: string;
  gzippedBody?: string;
}

/** The user's request under a key, run by `answer` at most once in 24 hours. */
export interface IdempotentRequest {
  keyed: KeyedRequest & { key: string };
  event: HttpEvent;
  context: Context;
}

type IdempotencyLibrary = typeof Idempotency & typeof IdempotencyStores;
/**
 * Powertools' idempotency utility and its DynamoDB store, loaded by the first request with an
 * `Idempotency-Key`: a request without one needs none of it, and it would be a sixth of each creating
 * function's code at every cold start. A package left out of the functions' bundles, its own file in
 * the functions that load it, which holds the store too, so that both share one copy of its classes
 * (docs/decisions/lighter-functions.md).
 */
const idempotencyLibrary = /* @__PURE__ */ lazy((): IdempotencyLibrary => ({
  ...requireLazily<typeof Idempotency>('@aws-lambda-powertools/idempotency', () => require('@aws-lambda-powertools/idempotency'))(), // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
  ...requireLazily<typeof IdempotencyStores>('@aws-lambda-powertools/idempotency/dynamodb', () => require('@aws-lambda-powertools/idempotency/dynamodb'))(), // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
}));

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The keyed request as its change records it (`auditWrites`): where the record of what it changed
 * lives, and the request's digest, so that the key sent with another request is not taken for it.
 */
export function keyedRequestOf(userUuid: string, key: string, event: HttpEvent): KeyedRequest & { key: string } {
  return { userUuid, key, recordId: `${RECORD_VERSION}#${sha256(key)}`, fingerprint: sha256(JSON.stringify(fingerprintOf(event))) };
}

/** Answers a request whose change committed before its answer was kept, from the resource it changed. */
export type ReplayChange = (resource: KeyedChange['resource']) => Promise<HttpResult>;

/**
 * Runs `answer` once per user, key and request: a replay answers the stored result with
 * `Idempotent-Replayed: true`; the key with another request is a 422 `IDEMPOTENCY_KEY_REUSED`; the
 * key while its first request runs is a 409 `IDEMPOTENCY_IN_PROGRESS`.
 */
export async function idempotently(request: IdempotentRequest, answer: () => Promise<HttpResult>, replayChange?: ReplayChange): Promise<HttpResult> {
  const { keyed } = request;
  const { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyValidationError, makeIdempotent } = idempotencyLibrary();
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'request',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_SECONDS,
    hashFunction: 'sha256',
    // The in-progress record blocks the key until the function's time is up, not 24 hours, if it crashes.
    lambdaContext: request.context,
    // Powertools types a record's answer as any JSON; ours are StoredAnswers, written by `toStored`.
    responseHook: (stored) => replayed(stored as unknown as StoredAnswer) as unknown as JSONValue,
  });
  // One store per request: Powertools' store keeps per-call state, and on the local stack every
  // function shares one process, so a shared one would mix up concurrent requests.
  // Powertools runs this when it holds no answer for the key: the first request, or a retry of one
  // whose process stopped before its answer was kept. In the second case the change may have
  // committed all the same; its own transaction recorded what it changed, and that is answered again.
  const firstOrRecovered = async (): Promise<HttpResult> => {
    const committed = replayChange ? await readKeyedChange(keyed.userUuid, keyed.recordId) : undefined;
    if (!committed || !replayChange) return answer();
    if (committed.fingerprint !== keyed.fingerprint) throw new UnprocessableError({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const again = await replayChange(committed.resource);
    return { ...again, headers: { ...again.headers, [REPLAYED_HEADER]: 'true' } };
  };
  const run = makeIdempotent(async (_payload: JSONValue) => toStored(await firstOrRecovered()), {
    persistenceStore: userIdempotencyStore(idempotencyLibrary().DynamoDBPersistenceLayer, keyed.userUuid),
    config: idempotencyConfig,
    keyPrefix: RECORD_VERSION,
  });
  const payload = { key: keyed.key, request: fingerprintOf(request.event) as unknown as JSONValue };
  try {
    return fromStored((await run(payload)) as unknown as StoredAnswer);
  } catch (error) {
    if (error instanceof NotKept) return error.answer;
    if (error instanceof IdempotencyValidationError) throw new UnprocessableError({ code: 'IDEMPOTENCY_KEY_REUSED', cause: error });
    if (error instanceof IdempotencyAlreadyInProgressError) throw new ConflictError({ code: 'IDEMPOTENCY_IN_PROGRESS', cause: error });
    throw error;
  }
}

/**
 * An answer too large for a record even compressed (an error list of thousands of distinct rows):
 * thrown out of the idempotent function so that Powertools deletes the record, and caught to answer
 * it all the same. A retry with the key then runs again, which the creating routes survive (the
 * e-mails are taken by then).
 */
class NotKept extends Error {
  constructor(readonly answer: HttpResult) {
    super('The answer is too large to keep for Idempotency-Key replays');
  }
}

const replayed = (stored: StoredAnswer): StoredAnswer => ({ ...stored, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } });

function toStored(result: HttpResult): StoredAnswer {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]));
  const stored: StoredAnswer = { statusCode: result.statusCode ?? 200, headers, ...(result.cookies?.length ? { cookies: result.cookies } : {}) };
  if (result.body === undefined) return stored;
  const body = String(result.body);
  if (Buffer.byteLength(body) <= GZIP_ABOVE_BYTES) return { ...stored, body };
  const gzippedBody = gzipSync(body).toString('base64');
  if (gzippedBody.length > MAX_STORED_BODY_BYTES) throw new NotKept(result);
  return { ...stored, gzippedBody };
}

function fromStored(stored: StoredAnswer): HttpResult {
  const { gzippedBody, body, ...rest } = stored;
  if (gzippedBody !== undefined) return { ...rest, body: gunzipSync(Buffer.from(gzippedBody, 'base64')).toString('utf8') };
  return body === undefined ? rest : { ...rest, body };
}

function fingerprintOf(event: HttpEvent): Fingerprint {
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  return { method: event.requestContext.http.method, target: `${event.rawPath}${query}`, body: digested(event.body) };
}

/** The parsed body as JSON, each file's bytes replaced by their SHA-256 (a form's parts hold Buffers). */
function digested(value: unknown): JSONValue {
  if (value === undefined || value === null) return null;
  if (Buffer.isBuffer(value)) return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(digested);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, part]) => [name, digested(part)]));
  return value as JSONValue;
}
