import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { defaultSubpaths, type Subpaths } from '../../shared/edge/api/routes';
import { assertContract } from './contract';
import type { paths } from '../../clients/typescript/src/generated/api-types';
import type { ApiResponse } from './http-client';
import { stack } from './stack';

/**
 * A typed client of the API made by openapi-fetch from the types openapi-typescript generates from the
 * OpenAPI document (the typed client's `clients/typescript/src/generated/api-types.ts`): paths, parameters, bodies and answers are the document's.
 */

export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /** The API's address (scheme, host, port), without a subpath. */
  baseUrl: string;
  /** The bearer token sent on every request, or a function asked for one on every request. */
  token?: string | (() => Promise<string>);
  /** An `x-request-id` for every request, so the call can be found in the logs. */
  requestId?: string;
  /** The subpaths the API is served under, when not the defaults the types were generated for. */
  subpaths?: Subpaths;
  /** Also check every answer against the OpenAPI document (status, content type, body schema). */
  checkContract?: boolean;
}

/** A client of the API at `baseUrl` with a bearer token. */
export function apiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, '') });
  client.use(authorization(options), keepAnswer);
  if (options.subpaths) client.use(subpathRewrite(options.subpaths));
  if (options.checkContract) client.use(contractCheck);
  return client;
}

/** A client of the local stack this test run started, with a bearer token; every answer is checked against the document. */
export function stackApiClient(token: ApiClientOptions['token'], options: Pick<ApiClientOptions, 'requestId'> = {}): ApiClient {
  const { apiUrl, generativeSubpath, userSubpath } = stack();
  return apiClient({ baseUrl: apiUrl, token, subpaths: { generative: generativeSubpath, user: userSubpath }, checkContract: true, ...options });
}

function authorization({ token, requestId }: ApiClientOptions): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof token === 'function' ? await token() : token;
      if (value) request.headers.set('authorization', `Bearer ${value}`);
      if (requestId && !request.headers.has('x-request-id')) request.headers.set('x-request-id', requestId);
      return request;
    },
  };
}

/** The types carry the default subpaths; a stack configured with others serves the same paths under its own. */
function subpathRewrite(subpaths: Subpaths): Middleware {
  const prefixes = (['generative', 'user'] as const)
    .filter((area) => subpaths[area] !== defaultSubpaths[area])
    .map((area) => [`/${defaultSubpaths[area]}/`, `/${subpaths[area]}/`] as const);
  return {
    async onRequest({ request }) {
      const url = new URL(request.url);
      const prefix = prefixes.find(([from]) => url.pathname.startsWith(from));
      if (!prefix) return undefined;
      url.pathname = prefix[1] + url.pathname.slice(prefix[0].length);
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      return new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal });
    },
  };
}

const contractCheck: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    const contentType = response.headers.get('content-type');
    const body: unknown = contentType?.startsWith('application/json') && text ? JSON.parse(text) : undefined;
    assertContract({ method: request.method, url: request.url, status: response.status, contentType, body, text });
    return undefined;
  },
};

/** What openapi-fetch answers a call: the data of a 2xx, or the error body, and the response. */
type CallResult = { data?: unknown; error?: unknown; response: Response };
type DataOf<R> = R extends { data: infer D } ? D : never;

/** The method and the text of each answer, which openapi-fetch reads once and does not keep. */
const answers = new WeakMap<Response, { method: string; text: string }>();

const keepAnswer: Middleware = {
  async onResponse({ request, response }) {
    answers.set(response, { method: request.method, text: await response.clone().text() });
    return undefined;
  },
};

/**
 * A call of the typed client read as `http-client.ts` reads an answer (status, headers, content type,
 * body, text, path), so the same assertions (`expectError`, `expectFieldErrors`) apply. The body is the
 * data of a 2xx and the error body otherwise.
 */
export async function answer<R extends CallResult>(call: Promise<R>): Promise<ApiResponse<DataOf<R>>> {
  return read(await call);
}

/** The answer of a call that must have this status; any other throws, naming the request, the status and the body. */
export async function expectStatus<R extends CallResult>(status: number, call: Promise<R>): Promise<ApiResponse<DataOf<R>>> {
  const result = await call;
  const response = read(result);
  if (response.status !== status) {
    const method = answers.get(result.response)?.method ?? '';
    throw new Error(`${method} ${response.path} answered ${response.status}, not ${status}: ${response.text.slice(0, 500)}`);
  }
  return response;
}

function read<R extends CallResult>({ data, error, response }: R): ApiResponse<DataOf<R>> {
  return {
    status: response.status,
    headers: response.headers,
    contentType: response.headers.get('content-type'),
    body: (data ?? error) as DataOf<R>,
    text: answers.get(response)?.text ?? '',
    path: new URL(response.url).pathname,
  };
}
