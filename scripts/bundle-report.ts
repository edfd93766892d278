/** What the bundler reports of each function's bundle (`scripts/build-bundles.ts`). */
import type { Metafile } from 'esbuild';

export type BundleMode = 'sdk-external' | 'self-contained';

export interface InputSize {
  path: string;
  bytes: number;
}

/** A lazy package's file: `node_modules/<package>/index.js` beside the bundle. */
export interface LazyFile {
  packageName: string;
  file: string;
  bytes: number;
  /** esbuild's metafile of the file (written beside the function's directory: `<function>.<package>.meta.json`, `/` as `+`). */
  metafile: Metafile;
}

export interface BundleReport {
  group: string;
  mode: BundleMode;
  /** Absolute path of the built `index.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  limitBytes: number;
  /** The five largest input files, by bytes they contribute to the minified output. */
  topInputs: InputSize[];
  /** The five largest packages (node_modules) or source folders, summed over their files. */
  topPackages: InputSize[];
  /** esbuild's metafile of `index.js`. */
  metafile: Metafile;
  lazy: LazyFile[];
  /** The lazy project files beside it (`lazy/<name>.cjs`). */
  lazyFiles: LazyProjectFile[];
}

/** A lazy project file: its entry in the sources, the built file, its size and esbuild's metafile of it (`<function>.lazy+<name>.meta.json`). */
export interface LazyProjectFile {
  entry: string;
  file: string;
  bytes: number;
  metafile: Metafile;
}
