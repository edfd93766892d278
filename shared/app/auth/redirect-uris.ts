import { config } from '../../kernel/config';
import { realmIssuer } from './jwt';

/** Longest redirect URI taken: well past any real one, far below what a page or a log should hold. */
const MAX_REDIRECT_URI = 2000;
/** A native application's loopback hosts (RFC 8252 §7.3), as `URL` spells them. */
const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/** The API reference's OAuth 2.0 redirect page, beside `/docs` on this API. */
export function referenceRedirectUri(): string | undefined {
  const issuer = config().tokenIssuer.replace(/\/+$/, '');
  return issuer.endsWith('/auth') ? `${issuer.slice(0, -'/auth'.length)}/docs/oauth2-redirect.html` : undefined;
}

/** The URL `value` spells, when it is one within the length taken. */
function boundedUrl(value: string): URL | undefined {
  if (value.length > MAX_REDIRECT_URI) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);

/** Where the realm's device verification page comes back from the authorization flow (`device-verification.ts`). */
export const deviceCallbackUri = (realm: string) => `${realmIssuer(realm.toLowerCase())}/device/callback`;

/**
 * Whether the authorization endpoint may send a person back to `uri`: a native application's loopback
 * address on any port and path (RFC 8252 §7.3: `http://127.0.0.1`, `http://[::1]`, `http://localhost`),
 * the API reference's redirect page, one of the deployment's own addresses, exactly, or (given the
 * realm of the request) that realm's own device verification callback, exactly. Never one with a
 * fragment (RFC 6749 §3.1.2) or credentials.
 */
export function isAllowedRedirect(uri: string, realm?: string): boolean {
  const url = boundedUrl(uri);
  if (!url || url.hash || uri.includes('#') || url.username || url.password) return false;
  if (isLoopback(url)) return true;
  if (realm !== undefined && uri === deviceCallbackUri(realm)) return true;
  return uri === referenceRedirectUri() || config().authRedirectUris.includes(uri);
}

/**
 * Whether a web page of `origin` may read the realm's token, revocation and logout answers (CORS): a
 * loopback origin on any port (an application in development), or the origin of one of the deployment's
 * own redirect URIs (the console's). Nothing else: the reference's own page is on this API's origin.
 */
export function isAllowedWebOrigin(origin: string): boolean {
  const url = boundedUrl(origin);
  if (!url || url.origin !== origin) return false; // `null`, or not an origin at all
  if (isLoopback(url)) return true;
  return config().authRedirectUris.some((uri) => new URL(uri).origin === origin);
}

/** Where the answer's parameters go (OAuth 2.0 Multiple Response Type Encoding Practices): the query, or the fragment. */
export type ResponseMode = 'query' | 'fragment';

/**
 * The redirect URI with the answer's parameters added (RFC 6749 §4.1.2) to its own query, or as its
 * fragment for `response_mode=fragment` (keycloak-js's default), and `iss` (RFC 9207) so that a client
 * talking to several issuers knows which one answered.
 */
export function redirectWith(uri: string, params: Record<string, string | undefined>, mode: ResponseMode = 'query'): string {
  const url = new URL(uri);
  const target = mode === 'fragment' ? new URLSearchParams() : url.searchParams;
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.append(name, value);
  if (mode === 'fragment') url.hash = target.toString();
  return url.toString();
}
