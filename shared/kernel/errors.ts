/**
 * Domain errors and the one catalogue of `errorCode` values. Domain code throws these and knows nothing
 * of HTTP; `shared/edge/http/error-mapper.ts` maps each kind to a status and the API's standard error body.
 */

/**
 * How a code is worded. `message` is its wording in the standard error body and wherever no other is
 * given; `row` (an entry of the bulk-create error list) and `item` (an entry of the other bulk
 * operations' lists) word the same fact for one user of a file or list, where that differs.
 */
interface Wording {
  message: string;
  row?: string;
  item?: string;
}

/** Where a message is shown: the standard error body, or an entry of a bulk error list. */
export type MessageContext = 'request' | 'row' | 'item';

/** Every `errorCode` a client can see, with the message it carries by default. */
export const errorCatalogue = {
  BAD_REQUEST: { message: 'The request could not be read' },
  MALFORMED_JSON: { message: 'The request body is not valid JSON' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'The request body has an unsupported content type' },
  VALIDATION_FAILED: { message: 'The request has invalid fields' },
  UNAUTHENTICATED: { message: 'A valid bearer token is required' },
  FORBIDDEN: { message: 'You are not allowed to do this' },
  NOT_FOUND: { message: 'The resource was not found' },
  ROUTE_NOT_FOUND: { message: 'No operation matches this method and path' },
  CONFLICT: { message: 'The request conflicts with the current state' },
  VERSION_CONFLICT: { message: 'The resource changed since you read it (If-Match no longer matches)' },
  EMAIL_TAKEN: { message: 'The e-mail is already in use in this organization', row: 'Rule 1: the e-mail is already used in the organization' },
  REALM_TAKEN: { message: 'The organization name is already in use' },
  LAST_ADMIN: { message: 'The organization must keep at least one active ADMIN' },
  SELF_DELETE: { message: 'You cannot delete your own user; another ADMIN can', item: 'You cannot delete your own user' },
  USER_DELETED: { message: 'The user is deleted; reactivate it first', item: 'The user is already deleted' },
  USER_ACTIVE: { message: 'The user is already active' },
  // A file refused whole, before any row is processed (`FileProblem`).
  EMPTY_FILE: { message: 'The file has no rows' },
  NOT_CSV: { message: 'The file is not a UTF-8 CSV file' },
  MISSING_COLUMNS: { message: 'The file lacks required columns' },
  TOO_MANY_ROWS: { message: 'The file has too many rows' },
  FILE_TOO_LARGE: { message: 'The file is too large' },
  NO_USER_CREATED: { message: 'No user of the file could be created' },
  BULK_WORKER_FAILED: { message: 'The import stopped without finishing; retry the job to run it again' },
  // An Idempotency-Key (shared/edge/http/idempotency.ts) seen before.
  IDEMPOTENCY_KEY_REUSED: { message: 'The Idempotency-Key was already used for a different request (method, path or body)' },
  IDEMPOTENCY_IN_PROGRESS: { message: 'A request with this Idempotency-Key is still running; retry once it has answered' },
  // Bundles of a bot's configuration (shared/app/bundles).
  MALFORMED_BUNDLE: { message: 'The bundle is not valid JSON or YAML' },
  BUNDLE_FORMAT_UNKNOWN: { message: 'The bundle has no formatVersion this API reads; export it again from this API' },
  BUNDLE_IN_PROGRESS: { message: 'A bundle is being applied to this bot; retry in a moment' },
  // A function that reached its time limit (middy answers just before Lambda would end it).
  TIMEOUT: { message: 'The request ran out of time and may have been partly applied: read the resource back, then retry after the number of seconds in Retry-After' },
  // The SCIM service provider (docs/api/scim.md).
  RATE_LIMITED: { message: 'Too many requests for this organization; retry after the number of seconds in Retry-After' },
  FILTER_TOO_BROAD: { message: 'The filter would read too many users; filter by userName or emails.value with eq' },
  INVALID_FILTER: { message: 'The filter is not a valid SCIM filter (RFC 7644 section 3.4.2.2)' },
  INVALID_PATCH: { message: 'The PATCH operations are not valid (RFC 7644 section 3.5.2)' },
  INVALID_VALUE: { message: 'A value of the resource is missing or invalid' },
  INVALID_PATH: { message: 'The attribute path is not one this resource has (RFC 7644 section 3.5.2)' },
  SCIM_TOKEN_LIMIT: { message: 'The organization has as many SCIM tokens as it may have: revoke one first' },
  // An AWS service (Cognito's request-rate quotas) still refusing for its rate after the SDK's retries.
  SERVICE_BUSY: { message: 'The service is taking more requests than it can right now and changed nothing; retry after the number of seconds in Retry-After' },
  // The local stack's gateway while its functions load and its demo data is written (never in AWS).
  STACK_STARTING: { message: 'The local stack is still starting: retry in a moment' },
  INTERNAL: { message: 'An unexpected error occurred' },
  // Field-level codes, used in the `details` of the 422 validation body.
  FIELD_REQUIRED: { message: 'The field is required' },
  FIELD_INVALID: { message: 'The field is invalid' },
  FIELD_UNKNOWN: { message: 'The field is not allowed' },
  // One user of a bulk file or list (docs/api/bulk.md#errors-of-a-bulk-create); the rules are bulk-create's.
  EMAIL_INVALID: { message: 'The e-mail is missing or is not an e-mail address' },
  NAME_REQUIRED: { message: 'The name is missing' },
  FIELD_TOO_LONG: { message: 'A value is too long' },
  CONFLICTING_ROWS: { message: 'Rules 1 and 2: the e-mail appears again in the file with a different role, name or password' },
  PASSWORD_POLICY: { message: 'Rule 3: the password does not follow the policy' },
  ROLE_REQUIRED: { message: 'Rule 4: the role is missing' },
  ROLE_INVALID: { message: 'Rule 4: the role must be ADMIN, SUPERVISOR, EDITOR or VIEWER' },
  ENVIRONMENT_AND_BOT_REQUIRED: { message: 'Rule 5: a VIEWER or EDITOR needs EnvironmentUuid, EnvironmentName and Bot' },
  BOT_REQUIRED: { message: 'Rule 5: a VIEWER or EDITOR is granted bots: Bot is required' },
  ENVIRONMENT_REQUIRED: {
    message: 'EnvironmentUuid and EnvironmentName are required',
    row: 'Rule 6: a SUPERVISOR needs EnvironmentUuid and EnvironmentName',
  },
  ENVIRONMENT_NOT_FOUND: { message: 'Rule 7: no active environment of the organization has this EnvironmentUuid' },
  ENVIRONMENT_NAME_MISMATCH: { message: 'Rule 7: EnvironmentName is not the name of that environment' },
  BOT_NOT_FOUND: { message: 'Rule 7: no active bot of that environment has this Bot uuid' },
  IDENTITY_PROVIDER_FAILED: { message: 'The identity provider did not register the user; try again' },
  CREATE_FAILED: { message: 'The user could not be created; try again' },
  USER_NOT_FOUND: { message: 'No user of the organization has this e-mail' },
  ADMIN_HAS_ALL: { message: 'An ADMIN reaches the whole organization: it has no permissions to change' },
  GRANT_NOT_FOUND: { message: 'The user has no such permission' },
  CHANGED_MEANWHILE: { message: 'The user changed while this ran; try again' },
  FAILED: { message: 'The user could not be changed; try again' },
  // Webhook subscriptions (docs/api/events.md).
  WEBHOOK_URL_REFUSED: { message: 'The webhook URL is not allowed' },
  WEBHOOK_LIMIT: { message: 'The organization has as many webhook subscriptions as it may have' },
  WEBHOOK_BACKLOG_FULL: { message: 'The subscription has as many pending deliveries as it may have; retry after the number of seconds in Retry-After' },
  // The change feed (docs/api/events.md#the-change-feed).
  FEED_CURSOR_INVALID: { message: 'The cursor (after) is not one this feed gave: use the next of an earlier answer, or leave after out to start at the oldest event' },
  FEED_CURSOR_EXPIRED: {
    message: 'The cursor (after) points before the oldest event kept (events are kept 30 days): start again without after, or from a fresh next',
  },
  // An organization's own OpenID providers (docs/api/identity-providers.md).
  IDENTITY_PROVIDER_EXISTS: { message: 'The organization has a provider with this alias already: choose another alias, or update that one' },
  IDENTITY_PROVIDER_DOMAIN_TAKEN: { message: 'Another provider of the organization holds this e-mail domain: remove it there first' },
  IDENTITY_PROVIDER_LIMIT: { message: 'The organization has as many identity providers as it may have: delete one first' },
  IDENTITY_PROVIDER_DISCOVERY_FAILED: { message: "The provider's discovery document could not be used" },
  IDENTITY_PROVIDER_LINK_TAKEN: { message: "The user is bound to another account of an identity provider: an ADMIN removes the link first (DELETE …/users/{userId}/identity-provider-link)" },
  // Bodies and names a caller sends that no parser may walk.
  UNSAFE_KEY: { message: 'The request names __proto__, constructor or prototype, which no field or attribute is called' },
  BODY_TOO_LARGE: { message: 'The request body is larger than this operation takes' },
} as const satisfies Record<string, Wording>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The message of `code` where it is shown. */
export function errorMessage(code: ErrorCode, where: MessageContext = 'request'): string {
  const wording: Wording = errorCatalogue[code];
  return (where !== 'request' && wording[where]) || wording.message;
}

/** Why a whole file is refused before any row is processed. */
export const fileProblems = ['EMPTY_FILE', 'NOT_CSV', 'MISSING_COLUMNS', 'TOO_MANY_ROWS', 'FILE_TOO_LARGE'] as const;
export type FileProblem = (typeof fileProblems)[number];

export interface FieldIssue {
  fieldName: string;
  message: string;
  errorCode: ErrorCode;
}

/** A `details` entry of a 422: a field issue, or an entry of a bulk error list (which adds `email`, `line`). */
export interface Detail {
  fieldName: string;
  message: string;
  errorCode: ErrorCode;
  email?: string;
  line?: number;
}

/**
 * What an error is made of, given as one object (or its message alone, as a string), whatever the class:
 * `new NotFoundError('The bot was not found')`, `new ConflictError({ code: 'REALM_TAKEN' })`,
 * `new ValidationError({ details })`. A class fixes or defaults its code; the message defaults to the
 * code's catalogue message.
 */
interface ErrorInit<C extends ErrorCode = ErrorCode> {
  code?: C;
  message?: string;
  /** The error this one wraps (kept for the log, never shown to a client). */
  cause?: unknown;
}

const initOf = <I extends ErrorInit>(init: string | I | undefined): Partial<I> => (typeof init === 'string' ? ({ message: init } as Partial<I>) : (init ?? {}));

abstract class DomainError extends Error {
  readonly code: ErrorCode;
  protected constructor(fallback: ErrorCode, init: ErrorInit) {
    const code = init.code ?? fallback;
    super(init.message ?? errorMessage(code), init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** 400 with the code given (`BAD_REQUEST` by default). */
export class BadRequestError extends DomainError {
  constructor(init?: string | ErrorInit) {
    super('BAD_REQUEST', initOf(init));
  }
}
export class UnauthenticatedError extends DomainError {
  /** Whether the request carried credentials that were refused (RFC 6750 `invalid_token`), or none. */
  readonly tokenRefused: boolean;
  constructor(init?: string | (Omit<ErrorInit, 'code'> & { tokenRefused?: boolean })) {
    const given = initOf(init);
    super('UNAUTHENTICATED', given);
    this.tokenRefused = given.tokenRefused ?? false;
  }
}
export class ForbiddenError extends DomainError {
  constructor(init?: string | Omit<ErrorInit, 'code'>) {
    super('FORBIDDEN', initOf(init));
  }
}
export class NotFoundError extends DomainError {
  constructor(init?: string | ErrorInit) {
    super('NOT_FOUND', initOf(init));
  }
}
export class ConflictError extends DomainError {
  constructor(init?: string | ErrorInit) {
    super('CONFLICT', initOf(init));
  }
}
export class ValidationError extends DomainError {
  readonly details: Detail[];
  constructor(init: ErrorInit & { details: Detail[] }) {
    super('VALIDATION_FAILED', init);
    this.details = init.details;
  }
}
/** Too many requests in a time window, or too much work waiting: retry after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(init: ErrorInit & { retryAfterSeconds: number }) {
    super('RATE_LIMITED', init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}
/** The request is well formed but cannot be processed (422 with the standard body), e.g. an unusable file. */
export class UnprocessableError extends DomainError {
  constructor(init: ErrorInit & { code: ErrorCode }) {
    super(init.code, init);
  }
}
/** 410: what the request points at is no longer kept (a change feed's cursor older than its retention). */
export class GoneError extends DomainError {
  constructor(init?: string | ErrorInit) {
    super('FEED_CURSOR_EXPIRED', initOf(init));
  }
}
/** 413: a file (`FILE_TOO_LARGE`) or a body (`BODY_TOO_LARGE`) larger than the operation takes. */
export class PayloadTooLargeError extends DomainError {
  constructor(init?: string | ErrorInit<'FILE_TOO_LARGE' | 'BODY_TOO_LARGE'>) {
    super('FILE_TOO_LARGE', initOf(init));
  }
}

/** A whole file refused: too large (`PayloadTooLargeError`), or unusable (`UnprocessableError`). */
export function fileRefused(problem: FileProblem, init?: string | Omit<ErrorInit, 'code'>): DomainError {
  const given = initOf(init);
  return problem === 'FILE_TOO_LARGE' ? new PayloadTooLargeError(given) : new UnprocessableError({ ...given, code: problem });
}

/** Whether `error` is a refusal of a whole file, and which. */
export function fileProblemOf(error: unknown): FileProblem | undefined {
  const code = error instanceof DomainError ? error.code : undefined;
  return fileProblems.find((problem) => problem === code);
}

export { DomainError };

/** middy's error for a handler still running just before the function's time limit (`timeoutEarlyInMillis`, 5 ms). */
export const isTimedOut = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TimeoutError' && (error.cause as { package?: string } | undefined)?.package === '@middy/core';

/** AWS's request-rate quotas are per second: a second later the call has its next chance. */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
