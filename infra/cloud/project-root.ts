import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// The CDK CLI runs the app through tsx as an ES module, jest runs it as CommonJS (esbuild transform):
// take the directory whichever module system offers.
const here = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));

/** The repository root: package.json, package-lock.json, cdk.json, functions/. */
export const projectRoot = path.resolve(here, '..', '..');
