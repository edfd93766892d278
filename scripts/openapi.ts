import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { subpathsFromEnv } from '../shared/config';
import { openApiDocument } from '../shared/openapi/document';

/**
 * Writes the OpenAPI document for publishing: `npm run openapi -- [file] [server URL]`. The subpaths
 * are the configured ones (GENERATIVE_SUBPATH / USER_SUBPATH as the functions read them); the server
 * URL defaults to `API_URL`, else the local stack's address.
 */
const [file = 'openapi.json', serverUrl = process.env.API_URL ?? `http://localhost:${process.env.PORT ?? 3000}`] = process.argv.slice(2);
const document = openApiDocument(subpathsFromEnv(), serverUrl);
writeFileSync(resolve(file), `${JSON.stringify(document, null, 2)}\n`);
const operations = Object.values(document.paths as Record<string, object>).reduce((sum, item) => sum + Object.keys(item).length, 0);
console.log(`${file}: ${Object.keys(document.paths as object).length} paths, ${operations} operations`);
