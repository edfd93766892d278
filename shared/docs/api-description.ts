import { openApiDocument } from '../openapi/document';
import type { Subpaths } from '../routes';

/**
 * The OpenAPI document as `/openapi.json` serves it: for the function's subpaths and the address the
 * request reached, built once per container and address.
 */

/** A host as API Gateway hands it over: a name or an IPv4 address, and a port only on the local stack. */
const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d{1,5})?$/i;

/**
 * The API's own address (scheme and host) as the client reached it. API Gateway answers only HTTPS
 * and says so in `x-forwarded-proto`; the local gateway, which answers HTTP, says the same way. A Host
 * that is not a plain host name leaves the document's server relative (`/`): the reference still works
 * against where it was loaded from.
 */
export function serverUrlOf(headers: Record<string, string | undefined>): string {
  const host = headers.host ?? '';
  if (!HOST.test(host)) return '/';
  const scheme = headers['x-forwarded-proto']?.toLowerCase() === 'http' ? 'http' : 'https';
  return `${scheme}://${host.toLowerCase()}`;
}

/**
 * Several addresses reach one API (its execute-api name, a custom domain); more than a few means Host
 * headers are being made up, so past that the cache starts over rather than grow.
 */
const MAX_ADDRESSES = 8;
const documents = new Map<string, string>();

/** The document, serialised, for this server URL. */
export function apiDescription(subpaths: Subpaths, serverUrl: string): string {
  let text = documents.get(serverUrl);
  if (text === undefined) {
    if (documents.size >= MAX_ADDRESSES) documents.clear();
    text = JSON.stringify(openApiDocument(subpaths, serverUrl));
    documents.set(serverUrl, text);
  }
  return text;
}
