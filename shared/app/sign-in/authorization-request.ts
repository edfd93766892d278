import { unknownScopeMessage, unknownScopes } from '../auth/access-token';
import type { ResponseMode } from '../auth/redirect-uris';
import { isClientRedirect, isRealmClient } from './realm-clients';
import type { PageProblem } from './sign-in-page';

/**
 * An authorization request as the endpoint reads it: the query read once, by one reader that refuses
 * repeated and over-long parameters, then a declared list of small checks, each its own function,
 * over the one parsed request. The first two (client, redirect URI) answer a page: until they pass,
 * nothing may be sent back to the redirect URI. The others answer an error back at the application.
 */

/** Bounds on what a request carries back and forth: far above real values, far below a page's worth. */
export const MAX_PARAM = { state: 1024, nonce: 512, login_hint: 320, kc_idp_hint: 64, scope: 256, ui_locales: 64, kc_locale: 16, prompt: 64, max_age: 10 } as const;
/** Where the answer may go back (query, the default, or fragment, keycloak-js's). */
const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment'];
/** An S256 challenge: the base64url SHA-256 of the verifier, unpadded. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** OpenID Connect's `prompt` values: `consent` asks nothing here (the realm's clients are its own), `select_account` signs in again as `login` does. */
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
/** `max_age`: whole seconds. */
const MAX_AGE = /^[0-9]{1,10}$/;

/** The request's query, read once. */
export interface ParsedAuthorization {
  /** Each parameter sent exactly once, by name. */
  values: ReadonlyMap<string, string>;
  /** The first parameter sent more than once, or longer than its bound: refused once the client and redirect URI pass. */
  malformed?: string;
  realm: string;
}

/** A refusal shown as a page (the application's address is not yet trusted). */
export interface PageRefusal {
  page: PageProblem;
}

/** A refusal sent back to the application: an OAuth error and what to do about it. */
export interface ErrorRefusal {
  error: string;
  description: string;
}

/** One check of the request: a refusal, or nothing when the request passes it. */
export type Check<R> = (request: ParsedAuthorization) => R | undefined;

/** The one reader of the query: every parameter once, none over its bound; a repeated one is never read as either of its values. */
export function parseAuthorization(queryString: string, realm: string): ParsedAuthorization {
  const seen = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(queryString)) (seen.get(name) ?? seen.set(name, []).get(name)!).push(value);
  const values = new Map<string, string>();
  let malformed: string | undefined;
  for (const [name, sent] of seen) {
    if (sent.length > 1) {
      malformed ??= `Parameter ${name} is repeated: send it once`;
      continue;
    }
    const bound = MAX_PARAM[name as keyof typeof MAX_PARAM];
    if (bound !== undefined && sent[0]!.length > bound) malformed ??= `Parameter ${name} is longer than ${bound} characters`;
    values.set(name, sent[0]!);
  }
  return { values, realm, ...(malformed === undefined ? {} : { malformed }) };
}

/** The value of a parameter sent once; undefined when absent or repeated. */
export const valueOf = (request: ParsedAuthorization, name: string): string | undefined => request.values.get(name);

/** The response mode asked for (query when absent, or unknown: the refusal then goes back in the query). */
export const responseModeOf = (request: ParsedAuthorization): ResponseMode => RESPONSE_MODES.find((mode) => mode === valueOf(request, 'response_mode')) ?? 'query';

/** The `prompt` values asked for. */
export const promptsOf = (request: ParsedAuthorization): string[] => (valueOf(request, 'prompt') ?? '').split(' ').filter(Boolean);

export const checkClient: Check<PageRefusal> = (request) => {
  const clientId = valueOf(request, 'client_id');
  return clientId && isRealmClient(clientId) ? undefined : { page: 'unknown-client' };
};

export const checkRedirectUri: Check<PageRefusal> = (request) => {
  const redirectUri = valueOf(request, 'redirect_uri');
  return redirectUri && isClientRedirect(valueOf(request, 'client_id')!, request.realm, redirectUri) ? undefined : { page: 'bad-redirect' };
};

export const checkParameters: Check<ErrorRefusal> = (request) =>
  request.malformed === undefined ? undefined : { error: 'invalid_request', description: request.malformed };

export const checkResponseType: Check<ErrorRefusal> = (request) =>
  valueOf(request, 'response_type') === 'code'
    ? undefined
    : { error: 'unsupported_response_type', description: 'Only response_type=code is supported (the authorization code flow with PKCE)' };

export const checkPkce: Check<ErrorRefusal> = (request) => {
  const challenge = valueOf(request, 'code_challenge');
  if (!challenge) return { error: 'invalid_request', description: 'Missing parameter: code_challenge (PKCE is required: send the S256 challenge of a code_verifier)' };
  if (valueOf(request, 'code_challenge_method') !== 'S256') {
    return { error: 'invalid_request', description: 'code_challenge_method must be S256: plain and absent methods are not accepted' };
  }
  if (!CHALLENGE.test(challenge)) return { error: 'invalid_request', description: 'code_challenge must be the unpadded base64url SHA-256 of the code_verifier (43 characters)' };
  return undefined;
};

export const checkScope: Check<ErrorRefusal> = (request) => {
  const unknown = unknownScopes(valueOf(request, 'scope'));
  return unknown.length ? { error: 'invalid_scope', description: unknownScopeMessage(unknown) } : undefined;
};

export const checkResponseMode: Check<ErrorRefusal> = (request) =>
  request.values.has('response_mode') && !RESPONSE_MODES.some((mode) => mode === valueOf(request, 'response_mode'))
    ? { error: 'invalid_request', description: `response_mode must be ${RESPONSE_MODES.join(' or ')}: the answer comes back in the redirect URI's query or fragment` }
    : undefined;

export const checkRequestObject: Check<ErrorRefusal> = (request) =>
  valueOf(request, 'request') || valueOf(request, 'request_uri')
    ? { error: 'request_not_supported', description: 'Request objects are not supported: send the parameters in the query' }
    : undefined;

export const checkPrompt: Check<ErrorRefusal> = (request) => {
  const prompts = promptsOf(request);
  const unknown = prompts.find((prompt) => !PROMPTS.has(prompt));
  if (unknown) return { error: 'invalid_request', description: `Unknown prompt ${unknown}: send none, login, consent or select_account` };
  if (prompts.includes('none') && prompts.length > 1) return { error: 'invalid_request', description: 'prompt=none cannot be combined with another prompt value' };
  return undefined;
};

export const checkMaxAge: Check<ErrorRefusal> = (request) => {
  const maxAge = valueOf(request, 'max_age');
  return maxAge !== undefined && !MAX_AGE.test(maxAge) ? { error: 'invalid_request', description: 'max_age must be a whole number of seconds' } : undefined;
};

/** Until these pass, a refusal is a page: the client and where its answers may go. */
export const PAGE_CHECKS: readonly Check<PageRefusal>[] = [checkClient, checkRedirectUri];

/** Then, in this order, refusals go back to the application. */
export const REQUEST_CHECKS: readonly Check<ErrorRefusal>[] = [
  checkParameters,
  checkResponseType,
  checkPkce,
  checkScope,
  checkResponseMode,
  checkRequestObject,
  checkPrompt,
  checkMaxAge,
];

/** The first refusal of `checks`, in their order. */
export function firstRefusal<R>(checks: readonly Check<R>[], request: ParsedAuthorization): R | undefined {
  for (const check of checks) {
    const refusal = check(request);
    if (refusal) return refusal;
  }
  return undefined;
}
