/**
 * Domain errors and the one catalogue of `errorCode` values. Domain code throws these and knows nothing
 * of HTTP; `shared/http/error-mapper.ts` maps each kind to a status and the spec's error body.
 */

/** Every `errorCode` a client can see, with the message it carries by default. */
export const errorCatalogue = {
  BAD_REQUEST: 'The request could not be read',
  MALFORMED_JSON: 'The request body is not valid JSON',
  UNSUPPORTED_MEDIA_TYPE: 'The request body has an unsupported content type',
  VALIDATION_FAILED: 'The request has invalid fields',
  UNAUTHENTICATED: 'A valid bearer token is required',
  FORBIDDEN: 'You are not allowed to do this',
  NOT_FOUND: 'The resource was not found',
  ROUTE_NOT_FOUND: 'No operation matches this method and path',
  CONFLICT: 'The request conflicts with the current state',
  VERSION_CONFLICT: 'The resource changed since you read it (If-Match no longer matches)',
  EMAIL_TAKEN: 'The e-mail is already in use in this organization',
  REALM_TAKEN: 'The organization name is already in use',
  LAST_ADMIN: 'The organization must keep at least one active ADMIN',
  SELF_DELETE: 'You cannot delete your own user; another ADMIN can',
  USER_DELETED: 'The user is deleted; reactivate it first',
  USER_ACTIVE: 'The user is already active',
  EMPTY_FILE: 'The file has no rows',
  NOT_CSV: 'The file is not a UTF-8 CSV file',
  MISSING_COLUMNS: 'The file lacks required columns',
  TOO_MANY_ROWS: 'The file has too many rows',
  FILE_TOO_LARGE: 'The file is too large',
  NO_USER_CREATED: 'No user of the file could be created',
  TIMEOUT: 'The request took too long',
  INTERNAL: 'An unexpected error occurred',
  // Field-level codes, used in the `details` of the 422 validation body.
  FIELD_REQUIRED: 'The field is required',
  FIELD_INVALID: 'The field is invalid',
  FIELD_UNKNOWN: 'The field is not allowed',
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface FieldIssue {
  fieldName: string;
  message: string;
  errorCode: ErrorCode;
}

/** A `details` entry of a 422: a field issue, or an entry of a bulk error list (which adds `email`, `line`). */
export interface Detail {
  fieldName: string;
  message: string;
  errorCode: string;
  email?: string;
  line?: number;
}

abstract class DomainError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? errorCatalogue[code], options);
    this.code = code;
    this.name = new.target.name;
  }
}

export class BadRequestError extends DomainError {}
export class UnauthenticatedError extends DomainError {
  constructor(message?: string, options?: { cause?: unknown }) {
    super('UNAUTHENTICATED', message, options);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message?: string) {
    super('FORBIDDEN', message);
  }
}
export class NotFoundError extends DomainError {
  constructor(message?: string, code: ErrorCode = 'NOT_FOUND') {
    super(code, message);
  }
}
export class ConflictError extends DomainError {
  constructor(code: ErrorCode = 'CONFLICT', message?: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
export class ValidationError extends DomainError {
  readonly details: Detail[];
  constructor(details: Detail[], message?: string, code: ErrorCode = 'VALIDATION_FAILED') {
    super(code, message);
    this.details = details;
  }
}
/** The request is well formed but cannot be processed (422 with the standard body), e.g. an unusable file. */
export class UnprocessableError extends DomainError {}
export class PayloadTooLargeError extends DomainError {
  constructor(message?: string) {
    super('FILE_TOO_LARGE', message);
  }
}

export { DomainError };
