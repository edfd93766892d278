import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files of Swagger UI (npm package `swagger-ui-dist`) that the API reference serves, and where
 * they are read from. The list is the allow-list of `GET /docs/{asset}` and what the CDK stack copies
 * into the docs function's bundle (`infra/cloud/group-access.ts`), so the two cannot differ.
 */

export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/** Each served file of the package, by its name under `/docs/`, with its media type. */
export const swaggerUiFiles = {
  // About 1.7 MB: well under Lambda's 6 MB answer, so it is served as it is (no gzip needed).
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  // The script of the page the sign-in window comes back to (`oauth2-redirect.html`, the reference's own).
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
} as const satisfies Record<string, string>;

export type SwaggerUiFile = keyof typeof swaggerUiFiles;

/** What the function's bundle carries of the package: the files served, and the licences that go with them. */
export const swaggerUiBundledFiles: readonly string[] = [...Object.keys(swaggerUiFiles), 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'];

// The sources run as ES modules under tsx and as CommonJS under jest and in the Lambda bundle (where
// `import.meta.url` is the bundle's own URL too: `infra/cloud/service-function.ts`).
const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));

/**
 * The package's directory: the nearest `node_modules/swagger-ui-dist` above this file, as Node would
 * find it but without NODE_PATH. From the sources that is the project's; in Lambda, the copy the
 * stack puts beside the bundle (`/var/task/node_modules/…`) with only the files above.
 */
function packageDir(): string {
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', SWAGGER_UI_PACKAGE);
    if (existsSync(join(candidate, 'swagger-ui-bundle.js'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${SWAGGER_UI_PACKAGE} is not beside the code (${here}): the bundle lacks its files`);
  }
}

const contents = new Map<SwaggerUiFile, string>();

/** A file's text, read once per container. */
export function swaggerUiFile(name: SwaggerUiFile): string {
  let text = contents.get(name);
  if (text === undefined) {
    text = readFileSync(join(packageDir(), name), 'utf8');
    contents.set(name, text);
  }
  return text;
}

export const isSwaggerUiFile = (name: string): name is SwaggerUiFile => Object.hasOwn(swaggerUiFiles, name);
