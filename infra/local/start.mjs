/**
 * `npm start`: the local stack (`infra/local/main.ts`) bundled by esbuild into one CommonJS module
 * kept in node_modules' cache, then run in this process. The same sources as `node --import tsx
 * main.ts`, with the packages left to Node's `require` (as the Lambda bundles are CommonJS): a start no
 * longer resolves and transforms a few hundred TypeScript files through tsx's loader thread, nor
 * parses each CommonJS package for an ES import, it loads one file. The bundle
 * is named by a digest of the sources' paths, sizes and modification times (and of the lockfile and
 * this file), so an edit rebuilds it on the next start (about half a second); a concurrent start
 * builds its own copy and renames it into place.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Directly in the cache directory: the bundle finds the project root two levels up, as
// `infra/cloud/project-root.ts` does from its own directory, and the packages in node_modules above it.
const cacheDir = join(root, 'node_modules', '.cache');
const OLD_BUNDLE_MS = 24 * 60 * 60 * 1000;

/** Every file the bundle may be made of, by path, size and modification time. */
function sourceDigest() {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mts|json)$/.test(entry.name)) {
        const { size, mtimeMs } = statSync(path);
        hash.update(`${relative(root, path)}\0${size}\0${mtimeMs}\n`);
      }
    }
  };
  for (const dir of ['infra', 'shared', 'functions']) visit(join(root, dir));
  for (const file of ['package-lock.json', 'tsconfig.json', relative(root, fileURLToPath(import.meta.url))]) {
    const { size, mtimeMs } = statSync(join(root, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

const moduleTypes = new Map();
/** Whether a file is an ES module: `.mjs`, or `.js` under a package.json of `"type": "module"`. */
function isEsModule(file) {
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (moduleTypes.has(dir)) return moduleTypes.get(dir);
    if (existsSync(join(dir, 'package.json'))) {
      const esm = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type === 'module';
      moduleTypes.set(dir, esm);
      return esm;
    }
  }
  return false;
}

/**
 * A package import resolves as `require` would from its importer; a CommonJS file stays Node's to
 * load, by its absolute path (the bundle lives elsewhere than its importer), and an ES module (middy's)
 * is bundled, as the Lambda bundles have it, since its default export reaches CommonJS only as its
 * namespace. What does not resolve is left to fail at run time, if it is ever reached.
 */
const packagesPlugin = {
  name: 'packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async ({ path, resolveDir, pluginData }) => {
      if (pluginData === 'resolving') return undefined;
      if (path.startsWith('node:') || builtinModules.includes(path.split('/')[0])) return { external: true };
      let resolved = await build.resolve(path, { kind: 'require-call', resolveDir, pluginData: 'resolving' });
      // A package that exports only an `import` condition (middy 7) resolves as an import, and is bundled.
      if (resolved.errors.length > 0) resolved = await build.resolve(path, { kind: 'import-statement', resolveDir, pluginData: 'resolving' });
      if (resolved.errors.length > 0) return { external: true };
      return isEsModule(resolved.path) ? { path: resolved.path } : { path: resolved.path, external: true };
    });
  },
};

async function bundle() {
  const file = join(cacheDir, `local-stack-${sourceDigest()}.cjs`);
  if (existsSync(file)) return file;
  console.log('Preparing the local stack: bundling its code (after an install or an edit of its sources)…');
  const started = Date.now();
  const ticking = setInterval(() => console.log(`  … bundling (${Math.round((Date.now() - started) / 1000)} s)`), 1_500);
  const { build } = await import('esbuild');
  mkdirSync(cacheDir, { recursive: true });
  const building = `${file}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(root, 'infra', 'local', 'main.ts')],
    outfile: building,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    plugins: [packagesPlugin],
    // As Node's `require` resolves: without esbuild's default `module` condition, which picks packages' ES builds.
    conditions: ['node'],
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'error',
  }).finally(() => clearInterval(ticking));
  renameSync(building, file);
  // Bundles of older sources go after a day (another checkout's start may be running its own).
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    if (/^local-stack-[0-9a-f]+\.cjs/.test(name) && path !== file && Date.now() - statSync(path).mtimeMs > OLD_BUNDLE_MS) rmSync(path, { force: true });
  }
  return file;
}

// Stack traces name the TypeScript sources (the bundle's inline source map).
process.setSourceMapsEnabled(true);
createRequire(import.meta.url)(await bundle());
