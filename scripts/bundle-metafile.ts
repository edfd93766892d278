/** What esbuild's metafile of a bundle says: its JavaScript output, the packages it carries and those it leaves to `require`. */
import type { Metafile } from 'esbuild';
import { isBuiltin } from 'node:module';

/**
 * The npm package of a metafile input (`node_modules/<package>/…`; for a copy nested in another
 * package's `node_modules`, the nested package), undefined for the project's own files.
 */
export const packageOfInput = (input: string): string | undefined => /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];

/** The npm package a bare import names (`@scope/name/sub` → `@scope/name`), undefined for a path or a `node:` module. */
export const packageOfImport = (specifier: string): string | undefined =>
  /^[./]|^node:/.test(specifier) ? undefined : /^((?:@[^/]+\/)?[^/]+)/.exec(specifier)?.[1];

/** The one output of a metafile that is JavaScript (not its map). */
export function jsOutput(metafile: Metafile): Metafile['outputs'][string] {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.js'))?.[1];
  if (!output) throw new Error('The metafile describes no JavaScript output');
  return output;
}

/** The npm packages whose code is in the output (at least one byte), sorted. */
export function packagesIn(metafile: Metafile): string[] {
  const inputs = Object.entries(jsOutput(metafile).inputs).filter(([, input]) => input.bytesInOutput > 0);
  return [...new Set(inputs.flatMap(([path]) => packageOfInput(path) ?? []))].sort();
}

/** The npm packages the output `require`s at run time, bundled nowhere in it (the runtime's SDK, the lazy packages), sorted. */
export function externalPackagesOf(metafile: Metafile): string[] {
  const imports = jsOutput(metafile).imports.filter((entry) => entry.external && !isBuiltin(entry.path));
  return [...new Set(imports.flatMap((entry) => packageOfImport(entry.path) ?? []))].sort();
}
