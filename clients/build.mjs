// Builds the client and the command-line tool to plain JavaScript that Node runs without tsx: run by the
// root's `prepare` (so `npm ci` leaves `npx apctl` ready) and by each package's `prepack`.
//   node clients/build.mjs [client|cli]...   (both when none is named)
// Each package's dist is one ES module: its own dependencies stay imports, so `npm pack` of either
// installs with only what its package.json lists. The tool carries the client inside its bundle.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const dependenciesOf = (dir) => Object.keys(JSON.parse(readFileSync(join(here, dir, 'package.json'), 'utf8')).dependencies ?? {});

async function bundle(dir, entry, outfile) {
  await build({
    entryPoints: [join(here, dir, entry)],
    outfile: join(here, dir, outfile),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: dependenciesOf(dir),
    logLevel: 'warning',
    legalComments: 'none',
  });
}

/**
 * The sources import each other without extensions (bundler resolution); a Node ESM project reads the
 * declarations with Node's own resolution (`nodenext`), which needs `./errors.js`: add it.
 */
function withExtensions(dir) {
  for (const entry of readdirSync(dir, { recursive: true })) {
    if (!entry.endsWith('.d.ts')) continue;
    const file = join(dir, entry);
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+?)(?<!\.js)\2/g, '$1$2$3.js$2');
    if (fixed !== text) writeFileSync(file, fixed);
  }
}

const targets = {
  async client() {
    rmSync(join(here, 'typescript/dist'), { recursive: true, force: true });
    await bundle('typescript', 'src/index.ts', 'dist/index.js');
    // The declarations, so an integrator's editor and compiler see the typed paths.
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'typescript/tsconfig.build.json')], { stdio: 'inherit' });
    withExtensions(join(here, 'typescript/dist'));
  },
  async cli() {
    rmSync(join(here, 'cli/dist'), { recursive: true, force: true });
    await bundle('cli', 'src/main.ts', 'dist/apctl.js');
  },
};

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(targets)) {
  if (!targets[name]) throw new Error(`Unknown target ${name}: name client or cli`);
  await targets[name]();
}
