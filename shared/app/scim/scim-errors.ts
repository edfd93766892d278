import { DomainError, errorMessage, isTimedOut, RateLimitedError, THROTTLED_RETRY_AFTER_SECONDS, ValidationError, type ErrorCode } from '../../kernel/errors';
import { isThrottled } from '../../kernel/retry';
import { ERROR_SCHEMA, isScimmyError } from './scim-schema';

/**
 * Errors on the SCIM endpoints in SCIM's error schema (RFC 7644 §3.12), each with a `scimType`: the
 * domain errors of the users area by their code, scimmy's own errors as it raised them, anything else
 * a generic 500. The status a domain error gets is the one the users area gives it, except that
 * validation is SCIM's 400 and a version mismatch (If-Match) its 412. An AWS service still refusing
 * for its request rate after the SDK's retries (Cognito's quotas under a provisioning burst) is a 503
 * with Retry-After, as in the users area: Okta and Entra ID retry it. So is a request that ran out of the
 * function's time, which may have been partly applied.
 */

export interface ScimErrorReply {
  status: number;
  body: { schemas: string[]; status: string; scimType?: string; detail: string };
  headers: Record<string, string>;
}

/** The status and `scimType` of each domain error a SCIM request can meet. */
const byCode: Partial<Record<ErrorCode, [number, string]>> = {
  INVALID_FILTER: [400, 'invalidFilter'],
  FILTER_TOO_BROAD: [400, 'tooMany'],
  INVALID_PATCH: [400, 'invalidSyntax'],
  INVALID_PATH: [400, 'invalidPath'],
  UNSAFE_KEY: [400, 'invalidSyntax'],
  INVALID_VALUE: [400, 'invalidValue'],
  VALIDATION_FAILED: [400, 'invalidValue'],
  MALFORMED_JSON: [400, 'invalidSyntax'],
  BAD_REQUEST: [400, 'invalidSyntax'],
  UNAUTHENTICATED: [401, 'invalidValue'],
  FORBIDDEN: [403, 'mutability'],
  NOT_FOUND: [404, 'noTarget'],
  ROUTE_NOT_FOUND: [404, 'noTarget'],
  EMAIL_TAKEN: [409, 'uniqueness'],
  LAST_ADMIN: [409, 'mutability'],
  USER_DELETED: [409, 'mutability'],
  USER_ACTIVE: [409, 'mutability'],
  SELF_DELETE: [409, 'mutability'],
  VERSION_CONFLICT: [412, 'invalidVers'],
  RATE_LIMITED: [429, 'tooMany'],
};

const reply = (status: number, scimType: string | undefined, detail: string, headers: Record<string, string> = {}): ScimErrorReply => ({
  status,
  body: { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail },
  headers,
});

/**
 * A SCIM operation can be several identity-provider calls (create, then deactivate): a refusal on a
 * later one leaves the earlier done, so this says nothing about what changed; the client's retry reads
 * the resource as it is.
 */
const SCIM_BUSY = 'The identity provider is taking more requests than it can right now: retry after the number of seconds in Retry-After, and read the user back if the request was a change';

/** The SCIM error answer of `error`; `undefined` when it is not one a client may see (a 500). */
export function scimErrorOf(error: unknown): ScimErrorReply | undefined {
  if (isScimmyError(error)) return reply(error.status, error.scimType ?? 'invalidValue', error.message);
  // RFC 7644 §3.12 defines scimType for 400 errors only.
  if (isThrottled(error)) return reply(503, undefined, SCIM_BUSY, { 'retry-after': String(THROTTLED_RETRY_AFTER_SECONDS) });
  if (isTimedOut(error)) return reply(503, undefined, errorMessage('TIMEOUT'), { 'retry-after': String(THROTTLED_RETRY_AFTER_SECONDS) });
  if (!(error instanceof DomainError)) return undefined;
  const [status, scimType] = byCode[error.code] ?? [400, 'invalidValue'];
  const details = error instanceof ValidationError && error.details.length > 0 ? `: ${error.details.map((d) => `${d.fieldName}: ${d.message}`).join('; ')}` : '';
  const headers: Record<string, string> = error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : {};
  return reply(status, scimType, `${error.message}${details}`, headers);
}

/** The answer of an error no rule covers: generic, nothing of the error itself. */
export const internalScimError = (): ScimErrorReply => reply(500, 'invalidValue', 'An unexpected error occurred; try again');
