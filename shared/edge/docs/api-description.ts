import { openApiDocument } from '../openapi/document';
import type { Subpaths } from '../../kernel/config';

/**
 * The OpenAPI document as `/openapi.json` serves it: for the function's subpaths, the address the
 * request reached and the organization (realm) the reader signs in to, built once per container,
 * address and realm.
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
 * Several addresses reach one API (its execute-api name, a custom domain), each read for a few
 * organizations; more than that means Host headers or realms are being made up, so past that the
 * cache starts over rather than grow.
 */
const MAX_DOCUMENTS = 32;
const documents = new Map<string, string>();

/** The document, serialised, for this server URL and realm (none: the bearer token only). */
export function apiDescription(subpaths: Subpaths, serverUrl: string, realm?: string): string {
  const key = `${serverUrl} ${realm ?? ''}`;
  let text = documents.get(key);
  if (text === undefined) {
    if (documents.size >= MAX_DOCUMENTS) documents.clear();
    text = JSON.stringify(openApiDocument(subpaths, serverUrl, { realm }));
    documents.set(key, text);
  }
  return text;
}
