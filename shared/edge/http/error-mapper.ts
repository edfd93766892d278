import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { OAuthError } from '../../app/auth/oauth-errors';
import {
  BadRequestError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitedError,
  UnprocessableError,
  DomainError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
  errorMessage,
  isTimedOut,
  THROTTLED_RETRY_AFTER_SECONDS,
  type ErrorCode,
  type Detail,
} from '../../kernel/errors';
import { isThrottled } from '../../kernel/retry';
import { logger } from '../../kernel/logger';
import type { HttpEvent, HttpResult } from './types';
import { unsafeKeyMessage } from './validation';

/** The API's standard error body (docs/api/README.md#choices-that-apply-everywhere, the OpenAPI document's `ErrorBody`), plus `details` on 422 validation errors. */
export interface ErrorBody {
  timestamp: number;
  errorCode: ErrorCode;
  errorType: 'API_ERROR' | 'API_INFO' | 'USER_ERROR';
  message: string;
  path: string;
  details?: Detail[];
}

interface Mapped {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Detail[];
  /** Seconds the client should wait before trying again (the `Retry-After` header). */
  retryAfterSeconds?: number;
}

/** The one table from domain errors to HTTP statuses. */
const statusByKind: [new (...args: never[]) => DomainError, number][] = [
  [ValidationError, 422],
  [BadRequestError, 400],
  [UnauthenticatedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [GoneError, 410],
  [ConflictError, 409],
  [UnprocessableError, 422],
  [PayloadTooLargeError, 413],
  [RateLimitedError, 429],
];

interface HttpErrorLike {
  statusCode: number;
  message: string;
  cause?: { package?: string; data?: unknown };
  /** The media type the route reads (set by the multipart parser; JSON otherwise). */
  expected?: string;
}

/** What a 415 tells the client to send, by the media type the route reads. */
const mediaTypeAdvice: Record<string, string> = {
  'multipart/form-data': 'This operation reads a multipart/form-data body with the CSV file in a part named "file" (curl -F file=@users.csv)',
  'application/json': 'This operation reads a JSON body: send it with Content-Type: application/json',
};

const isHttpError = (error: unknown): error is HttpErrorLike =>
  typeof error === 'object' && error !== null && typeof (error as HttpErrorLike).statusCode === 'number';

/** Errors raised by middy's own middlewares (body parsers, router), in the API's error terms (docs/api/README.md#choices-that-apply-everywhere). */
function mapMiddyError(error: HttpErrorLike): Mapped {
  const source = error.cause?.package;
  if (source === '@middy/http-router') {
    return { status: 404, code: 'ROUTE_NOT_FOUND', message: errorMessage('ROUTE_NOT_FOUND') };
  }
  if (error.message === 'Unsupported Media Type') {
    return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: mediaTypeAdvice[error.expected ?? 'application/json']! };
  }
  // middy's JSON parser refuses a `__proto__` key (and a `constructor` one holding a `prototype`) itself,
  // before `refuseUnsafeKeys` sees the body: the same answer as that check's.
  if (source === '@middy/http-json-body-parser' && error.message === 'Forbidden key in JSON body') {
    return { status: 400, code: 'UNSAFE_KEY', message: unsafeKeyMessage(String(error.cause?.data)) };
  }
  if (source === '@middy/http-json-body-parser') {
    return { status: 400, code: 'MALFORMED_JSON', message: 'The request body is missing or is not valid JSON' };
  }
  if (error.statusCode < 500) {
    return { status: 400, code: 'BAD_REQUEST', message: errorMessage('BAD_REQUEST') };
  }
  return { status: 500, code: 'INTERNAL', message: errorMessage('INTERNAL') };
}

export function mapError(error: unknown): Mapped {
  if (error instanceof DomainError) {
    const status = statusByKind.find(([kind]) => error instanceof kind)?.[1] ?? 500;
    const details = error instanceof ValidationError ? error.details : undefined;
    const retryAfterSeconds = error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
    return { status, code: error.code, message: error.message, details, retryAfterSeconds };
  }
  if (isThrottled(error)) {
    return { status: 503, code: 'SERVICE_BUSY', message: errorMessage('SERVICE_BUSY'), retryAfterSeconds: THROTTLED_RETRY_AFTER_SECONDS };
  }
  if (isHttpError(error)) return mapMiddyError(error);
  if (isTimedOut(error)) {
    return { status: 503, code: 'TIMEOUT', message: errorMessage('TIMEOUT'), retryAfterSeconds: THROTTLED_RETRY_AFTER_SECONDS };
  }
  return { status: 500, code: 'INTERNAL', message: errorMessage('INTERNAL') };
}

export function errorBody(mapped: Mapped, path: string): ErrorBody {
  return {
    timestamp: Date.now(),
    errorCode: mapped.code,
    errorType: mapped.status >= 500 ? 'API_ERROR' : 'USER_ERROR',
    message: mapped.message,
    path,
    ...(mapped.details ? { details: mapped.details } : {}),
  };
}

/** A text as an RFC 7230 quoted-string holds it: without the quote and backslash it cannot carry unescaped. */
const quotable = (text: string) => text.replace(/["\\]/g, "'");

/**
 * RFC 6750's challenge: a request without a token gets `Bearer` alone; a token that was refused
 * (malformed, expired, its session ended) gets `error="invalid_token"` and the same description as the body.
 */
function bearerChallenge(error: unknown, message: string): string {
  return error instanceof UnauthenticatedError && error.tokenRefused ? `Bearer error="invalid_token", error_description="${quotable(message)}"` : 'Bearer';
}

/**
 * The log line of an error answered with a 5xx, in the management and SCIM shapes alike: an AWS
 * service's refusal for its rate (a warning), a request that ran out of the function's time, or
 * anything unexpected, whole (the answer itself stays generic).
 */
export function logServerFailure(error: unknown): void {
  if (isThrottled(error)) logger.warn('an AWS service refused for its request rate after the SDK retries', { reason: (error as Error).name });
  else if (isTimedOut(error)) logger.error("the request ran out of the function's time: it answered 503 and may have been partly applied");
  else logger.error('unhandled error', error as Error);
}

/**
 * Last in the chain, so its onError runs first: every error becomes the API's standard error body
 * (docs/api/README.md, "Choices that apply everywhere"). A 5xx body is generic; the error itself (stack included) goes only to the
 * log, under the request id.
 */
export function errorMapper(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, Context> {
  return {
    onError: (request) => {
      if (request.response !== undefined) return;
      const { error } = request;
      if (error instanceof OAuthError) {
        const challenge: Record<string, string> =
          error.error === 'invalid_token' ? { 'www-authenticate': `Bearer error="invalid_token", error_description="${quotable(error.description)}"` } : {};
        request.response = {
          statusCode: error.status,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...challenge },
          body: JSON.stringify({ error: error.error, error_description: error.description }),
        };
        return;
      }
      const mapped = mapError(error);
      if (mapped.status >= 500) logServerFailure(error);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (mapped.status === 401) headers['www-authenticate'] = bearerChallenge(error, mapped.message);
      if (mapped.retryAfterSeconds !== undefined) headers['retry-after'] = String(mapped.retryAfterSeconds);
      request.response = {
        statusCode: mapped.status,
        headers,
        body: JSON.stringify(errorBody(mapped, request.event.rawPath ?? '')),
      };
    },
  };
}
