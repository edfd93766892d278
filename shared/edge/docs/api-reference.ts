import { createRequire } from 'node:module';
import { config, subpathsFromEnv } from '../../kernel/config';
import { NotFoundError } from '../../kernel/errors';
import { lazy } from '../../kernel/lazy';
import type * as ApiDescription from './api-description';
import { referenceFile, referencePage } from './reference-page';

/** What the docs function answers: the API's description and its interactive reference, for the request that asks. */

/**
 * The description's builder (every operation of the catalogue and the JSON Schema of its bodies), loaded
 * by the first request for the document, from a file of its own beside the bundle
 * (infra/cloud/service-function.ts, lazyProjectFiles): the reference's page and files load without it.
 * Under tsx, an ES module without `require`, the file is required by the same relative path.
 */
const description = lazy(
  () =>
    (typeof require === 'function'
      ? require('./lazy/api-description.cjs') // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose
      : createRequire(import.meta.url)('./lazy/api-description.cjs')) as typeof ApiDescription,
);

/** The OpenAPI 3.1 document, with the address the request reached as its server and, if named, the realm to sign in to. */
export function describeApi(headers: Record<string, string | undefined>, realm?: string): string {
  return description().apiDescription(subpathsFromEnv(), description().serverUrlOf(headers), realm);
}

/** The interactive reference (Swagger UI), for the realm named if any; Authorize signs in as the console's client. */
export function referencePageFor(realm?: string): string {
  return referencePage({ realm, clientId: config().userPoolClientId });
}

/** One of the reference's files, from a fixed list; any other name is the standard 404. */
export function requireReferenceFile(name: string): { text: string; contentType: string } {
  const file = referenceFile(name);
  if (!file) throw new NotFoundError('The reference has no such file');
  return file;
}
