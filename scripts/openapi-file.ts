import { openApiDocument } from '../shared/edge/openapi/document';
import { defaultSubpaths, type Subpaths } from '../shared/edge/api/routes';

/** The committed OpenAPI document: default subpaths, the local stack's default address as its server. */
export const committedOpenApi = { file: 'docs/openapi.json', serverUrl: 'http://127.0.0.1:3000' } as const;

/**
 * The OpenAPI document as the text of a file. `npm run openapi` writes it, and
 * `test/unit/openapi-file.test.ts` compares the committed `docs/openapi.json` with it, so both build
 * the document through this one function.
 */
export function openApiFileText(subpaths: Subpaths = defaultSubpaths, serverUrl: string = committedOpenApi.serverUrl): string {
  return `${JSON.stringify(openApiDocument(subpaths, serverUrl), null, 2)}\n`;
}
