import { config } from '../../kernel/config';
import { ValidationError } from '../../kernel/errors';
import { AddressRefused, checkUrlShape, providerHttp, type ProviderAnswer, type Resolver } from './provider-http.port';

/**
 * An OpenID provider's discovery document (OpenID Connect Discovery 1.0), read when a provider is
 * registered or changed: under the outbound rules webhooks follow (docs/api/events.md#safe-outbound-calls:
 * https on port 443 or 8443, public addresses checked after resolution, no redirects, a bounded read,
 * a timeout), and
 * checked for what the sign-in broker needs. A refusal is a 422 on `issuer` saying what to fix.
 */

/** The endpoints the broker uses, as the provider's discovery document names them. */
export interface DiscoveredEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
}

/** How much of a discovery document is read (real ones are a few KiB), and how long it may take. */
export const MAX_DISCOVERY_BYTES = 64 * 1024;
export const DISCOVERY_TIMEOUT_MS = 5_000;

export interface DiscoveryOptions {
  resolve?: Resolver;
  timeoutMs?: number;
}

const refused = (message: string, fieldName = 'issuer') =>
  new ValidationError({ details: [{ fieldName, message, errorCode: 'IDENTITY_PROVIDER_DISCOVERY_FAILED' }] });

/** The discovery document's address: the issuer without a terminating `/`, then `/.well-known/openid-configuration` (§4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

/** The issuer as it may be registered: an https URL (loopback http on a local stack) without query, fragment or credentials. */
export function checkIssuer(issuer: string): URL {
  let url: URL;
  try {
    url = checkUrlShape(issuer, config().webhooks.allowLoopbackHttp);
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    throw refused(`${error.message.replace('The URL', 'The issuer')}: give the provider's issuer identifier, e.g. https://login.example.com`);
  }
  if (url.search || url.hash) throw refused('The issuer must have no query or fragment (OpenID Connect Discovery §3): give the issuer identifier alone');
  return url;
}

/**
 * Why the document could not be read, in the outbound rules' words: a status at most, never the
 * answer's body, a TLS, DNS or socket error's text, nor an address the host resolved to.
 */
function whyUnreachable(outcome: ProviderAnswer, address: string): string {
  const at = `${address} could not be read`;
  switch (outcome.failure) {
    case 'refused-address':
      return `${at}: ${outcome.detail}`;
    case 'timeout':
      return `${at}: ${outcome.detail ?? 'no answer in time'}. Check that the issuer is reachable from the internet`;
    case 'redirect':
      return `${at}: it answered a redirect (${outcome.status}), which is not followed. Register the issuer the provider's own discovery document names`;
    case 'http-status':
      return `${at}: it answered ${outcome.status}. Check the issuer: the document lives at {issuer}/.well-known/openid-configuration`;
    default:
      return outcome.tooLarge
        ? `${at}: it is larger than ${MAX_DISCOVERY_BYTES / 1024} KiB. Check that the issuer is an OpenID provider`
        : `${at}: no answer could be read. Check that the issuer accepts https on port 443 or 8443 from the internet, with a certificate valid for its host name`;
  }
}

/** Whether a document's `issuer` looks like an issuer identifier: an absolute http(s) URL of at most 200 characters. */
function issuerShaped(value: string): boolean {
  if (value.length > 200 || !/^https?:\/\/[^\s"<>]+$/.test(value)) return false;
  return URL.canParse(value);
}

/** An endpoint the document names, checked like the issuer. */
function endpoint(document: Record<string, unknown>, name: string, address: string): string {
  const value = document[name];
  if (typeof value !== 'string' || value.length === 0) {
    throw refused(`The discovery document at ${address} has no ${name}: the provider must publish it for sign-in with the authorization code flow`);
  }
  try {
    return checkUrlShape(value, config().webhooks.allowLoopbackHttp).toString();
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    throw refused(`The discovery document's ${name} is not usable (${error.message}): fix the provider's configuration`);
  }
}

/**
 * Reads and checks the discovery document of `issuer`: JSON, `issuer` equal to the registered one
 * (§4.3), the authorization, token and JWKS endpoints as URLs, and the `code` response type supported.
 * Throws a `ValidationError` on `issuer` naming what is wrong.
 */
export async function discoverEndpoints(issuer: string, options: DiscoveryOptions = {}): Promise<DiscoveredEndpoints> {
  checkIssuer(issuer);
  const address = discoveryUrl(issuer);
  const outcome = await providerHttp.getDocument(
    new URL(address),
    { accept: 'application/json' },
    {
      allowLoopbackHttp: config().webhooks.allowLoopbackHttp,
      maxBytes: MAX_DISCOVERY_BYTES,
      timeoutMs: options.timeoutMs ?? DISCOVERY_TIMEOUT_MS,
      resolve: options.resolve,
      rule: 'discovery documents are read from public addresses only',
    },
  );
  if (!outcome.ok) throw refused(whyUnreachable(outcome, address));
  let document: unknown;
  try {
    document = JSON.parse(outcome.body);
  } catch {
    throw refused(`${address} did not answer JSON: check the issuer (the provider's discovery document lives there)`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw refused(`${address} did not answer a JSON object: check the issuer (the provider's discovery document lives there)`);
  }
  const fields = document as Record<string, unknown>;
  if (fields.issuer !== issuer) {
    // The issuer it names is repeated only when it is an issuer identifier (an http(s) URL): that is what
    // the ADMIN must register, and nothing else of the document is ever repeated.
    const named = typeof fields.issuer !== 'string' ? 'names no issuer' : issuerShaped(fields.issuer) ? `names the issuer ${JSON.stringify(fields.issuer)}` : 'names another issuer';
    throw refused(`The discovery document ${named}, not ${JSON.stringify(issuer)}: register the issuer exactly as the document names it (OpenID Connect Discovery §4.3)`);
  }
  const endpoints = {
    authorizationEndpoint: endpoint(fields, 'authorization_endpoint', address),
    tokenEndpoint: endpoint(fields, 'token_endpoint', address),
    jwksUri: endpoint(fields, 'jwks_uri', address),
  };
  const responseTypes = fields.response_types_supported;
  if (!Array.isArray(responseTypes) || !responseTypes.includes('code')) {
    throw refused("The provider does not support the authorization code flow (its discovery document's response_types_supported lacks \"code\"): enable it for the application");
  }
  return endpoints;
}
