import createClient, { type Client } from 'openapi-fetch';
import { apiErrorFrom } from './errors';
import type { paths } from './generated/api-types';
import { retryingFetch, type RetryPolicy } from './retry';
import type { RealmSession } from './tokens';

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** The API's address, e.g. `https://api.example.com` (no subpath). */
  apiUrl: string;
  /** Who calls: a signed-in session (access tokens refreshed before they expire), or a fixed bearer token. */
  auth?: RealmSession | string;
  retry?: Partial<RetryPolicy>;
  /** Told before each retry's pause. */
  onRetry?: Parameters<typeof retryingFetch>[0] extends infer O ? (O extends { onRetry?: infer R } ? R : never) : never;
  /** Sent as `User-Agent` (and so in the API's logs). */
  userAgent?: string;
  fetch?: typeof fetch;
}

/**
 * The API's typed client: openapi-fetch over the paths, parameters, bodies and answers of the OpenAPI
 * document (generated/api-types.ts), with a bearer token on every call, retries of 429 and 5xx that
 * honour `Retry-After` and keep one `Idempotency-Key` per write, and a refresh after a 401.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  return createClient<paths>({ baseUrl: options.apiUrl.replace(/\/$/, ''), fetch: authorizedFetch(options) });
}

/** The fetch the typed client sends with, for calls the document does not describe yet (a raw path). */
export function authorizedFetch(options: ApiClientOptions): (input: Request) => Promise<Response> {
  const { auth } = options;
  return retryingFetch({
    policy: options.retry,
    onRetry: options.onRetry,
    fetch: options.fetch,
    headers: async (refresh) => ({
      ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
      ...(auth === undefined ? {} : { authorization: `Bearer ${typeof auth === 'string' ? auth : await auth.accessToken({ force: refresh })}` }),
    }),
  });
}

/**
 * The data of a call, or its error thrown as an ApiError carrying the API's body:
 * `const user = await ok(api.GET('/user-management/org/{orgUUID}/users/{userId}', { params }))`.
 */
export async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (response.ok) return data as D;
  throw apiErrorFrom(response, error);
}
