import { assertContract } from './contract';
import { adminToken } from './stack';

/** The project's HTTP test client: requests as a client sends them, responses as a client sees them. */

/** A uuid as the API writes one (ids, request ids). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a client sees of a response. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  contentType: string | null;
  /** Parsed JSON when the response is JSON, else undefined. */
  body: T;
  text: string;
  /** The request path, as the error body's `path` carries it. */
  path: string;
}

/** A bearer token, none, or a function that fetches one when the request is sent. */
export type TokenSource = string | undefined | (() => Promise<string>);

/**
 * Sends a request and reads the response as a client sees it (JSON parsed when it is JSON). Every
 * response of the API is checked against the OpenAPI document (`contract.ts`): one that breaks it
 * fails the test.
 */
export async function send<T>(url: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const body = (contentType?.startsWith('application/json') && text ? JSON.parse(text) : undefined) as T;
  assertContract({ method: init.method ?? 'GET', url, status: response.status, contentType, body, text });
  return { status: response.status, headers: response.headers, contentType, body, text, path: new URL(url).pathname };
}

/** A request with a bearer token (or none) and a JSON body; a string body is sent as is. */
export async function call<T>(
  source: TokenSource,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const token = typeof source === 'function' ? await source() : source;
  return send<T>(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/**
 * A client with a bearer token; a string body is sent as is (for malformed JSON). `Body` is the body
 * type a call expects unless it names another (each area's client names its resource).
 */
export function httpClient<Body>(token: TokenSource) {
  return {
    get: <T = Body>(url: string, headers?: Record<string, string>) => call<T>(token, 'GET', url, undefined, headers),
    post: <T = Body>(url: string, body: unknown, headers?: Record<string, string>) => call<T>(token, 'POST', url, body, headers),
    put: <T = Body>(url: string, body: unknown, headers?: Record<string, string>) => call<T>(token, 'PUT', url, body, headers),
    delete: <T = undefined>(url: string, headers?: Record<string, string>) => call<T>(token, 'DELETE', url, undefined, headers),
  };
}

const TOKEN_REUSE_MS = 200_000;
const adminTokens = new Map<number, { token: string; at: number }>();

/** A seeded organization's ADMIN token, fetched once per file and renewed before it expires. */
export function seededAdminToken(orgIndex = 0): () => Promise<string> {
  return async () => {
    let cached = adminTokens.get(orgIndex);
    if (!cached || Date.now() - cached.at > TOKEN_REUSE_MS) {
      cached = { token: (await adminToken(orgIndex)).accessToken, at: Date.now() };
      adminTokens.set(orgIndex, cached);
    }
    return cached.token;
  };
}
