import type { components } from './generated/api-types';

/** The API's error body (docs/api/README.md#choices-that-apply-everywhere); a 422's also has `details`. */
export type ErrorBody = components['schemas']['ErrorBody'] & Partial<Pick<components['schemas']['ValidationErrorBody'], 'details'>>;

/** An RFC 6749 §5.2 error of a realm's token, device or revocation endpoint. */
export type OAuthErrorBody = components['schemas']['OAuthError'];

/**
 * An answer of the API that is not a 2xx, as a value: the status, the API's error body when it sent one
 * (or `undefined` for an answer that is not JSON, such as a gateway's own), and the request id to quote.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly requestId: string | undefined,
    readonly method: string,
    readonly path: string,
  ) {
    super(body?.message ?? `${method ? `${method} ` : ''}${path} answered ${status}`);
  }

  /** The API's error code (`VALIDATION_FAILED`, `VERSION_CONFLICT`…), when the body carried one. */
  get code(): ErrorBody['errorCode'] | undefined {
    return this.body?.errorCode;
  }
}

/** A realm's OAuth endpoint refused: `error` is RFC 6749's code (`invalid_grant`, `authorization_pending`…). */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(description ? `${error}: ${description}` : error);
  }
}

/** The API could not be reached at all after the retries (refused connection, DNS, a reset). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';

  constructor(
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`Could not reach ${new URL(url).origin}: check the API address and your network`, options);
  }
}

/** An ApiError of an answer whose body was already read (`body`: its parsed JSON, or its text). */
export function apiErrorFrom(response: Response, body: unknown, method = ''): ApiError {
  const errorBody = body && typeof body === 'object' && 'errorCode' in body ? (body as ErrorBody) : undefined;
  const path = response.url ? new URL(response.url).pathname : '';
  return new ApiError(response.status, errorBody, response.headers.get('x-request-id') ?? undefined, method, path);
}

/** Reads an answer that is not a 2xx into an ApiError. */
export async function apiErrorOf(response: Response, method = ''): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return apiErrorFrom(response, body, method);
}
