import { pathToFileURL } from 'node:url';

/**
 * Injected into every function's CommonJS bundle (`service-function.ts`), where esbuild would leave
 * `import.meta.url` empty: the bundle's own file URL, what it is in an ES module. Code that finds its
 * files under either module system (`shared/edge/docs/swagger-ui-files.ts`) reads it.
 */
export const bundleImportMetaUrl = pathToFileURL(__filename).href;
