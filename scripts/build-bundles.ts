/**
 * `npm run build:bundles [-- --self-contained]`: bundles every function as the CDK stack does, reports
 * the size of each bundle and of its lazy packages' files, and exits 1 when a bundle is over the
 * 250,000-byte target (docs/benchmarks.md#bundle-sizes).
 *
 * The options are the stack's own (`functionBundling`, `lazyPackages` and `lazyPackageFlags` of
 * infra/cloud/service-function.ts). NodejsFunction (aws-lambda-nodejs/lib/bundling.js) runs
 *   esbuild --bundle <entry> --target=node24 --platform=node --format=cjs --outfile=<dir>/index.js
 *           --minify --sourcemap --sources-content=false --external:<module> ... --define:import.meta.url=bundleImportMetaUrl
 *           --inject:<project>/infra/cloud/bundle-import-meta.ts
 * which is what `build` below runs through esbuild's API, then its afterBundling step builds each lazy
 * package of the function, which is what `buildLazyPackage` runs, with the same command line.
 * Two modes, because they differ by the whole AWS SDK:
 *   sdk-external    what the stack deploys: `@aws-sdk/*` and `@smithy/*` left to the runtime's copy.
 *   self-contained  the SDK bundled too (only the lazy packages left out), for comparison.
 * The size that counts is `index.js`, what Lambda loads at cold start; a lazy file loads on the first
 * request that needs it.
 */
import { build, type Metafile } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../infra/cloud/project-root';
import { functionBundling, lazyPackageFile, lazyPackageFlags, lazyPackages, lazyProjectFile, lazyProjectFiles, lazyProjectFlags, lazySubpathFiles } from '../infra/cloud/service-function';
import { resourceGroups } from '../shared/edge/api/routes';
import { forgetManifest, freshReports, writeManifest } from './bundle-manifest';
import { jsOutput, packageOfInput } from './bundle-metafile';
import type { BundleMode, BundleReport, InputSize, LazyFile, LazyProjectFile } from './bundle-report';

export { externalPackagesOf, jsOutput, packageOfImport, packageOfInput, packagesIn } from './bundle-metafile';
export type { BundleMode, BundleReport, InputSize, LazyFile, LazyProjectFile } from './bundle-report';

export { projectRoot };

/** The bundle-size target "250 KB", read strictly as 250,000 bytes, for every function. */
export const TARGET_BYTES = 250_000;

const KIB = 1024;
export const kib = (bytes: number) => (bytes / KIB).toFixed(1);

export function bundleDir(mode: BundleMode): string {
  return join(projectRoot, 'dist', mode === 'sdk-external' ? 'bundles' : 'bundles-self-contained');
}

const lazyExternals = () => [...new Set(Object.values(lazyPackages).flat())];

/** The externals of a bundle in this mode: the stack's (`functionBundling.externalModules`), or only the lazy packages. */
export function externalsFor(mode: BundleMode): string[] {
  return mode === 'sdk-external' ? [...functionBundling.externalModules] : lazyExternals();
}

/** Which mode the CDK stack deploys: SDK external when its externals name the SDK. */
export function deployedMode(): BundleMode {
  return (functionBundling.externalModules as readonly string[]).includes('@aws-sdk/*') ? 'sdk-external' : 'self-contained';
}

const packageOrFolder = (input: string) => packageOfInput(input) ?? input.split('/').slice(0, 2).join('/');

function largest(entries: Iterable<[string, number]>): InputSize[] {
  return [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([path, bytes]) => ({ path, bytes }));
}

/** Builds a lazy package into `<outDir>/node_modules/<package>/index.js` with the stack's command line. */
function buildLazyPackage(outDir: string, packageName: string): LazyFile {
  const file = lazyPackageFile(outDir, packageName);
  const metafilePath = `${outDir}.${packageName.replace('/', '+')}.meta.json`;
  const esbuild = join(projectRoot, 'node_modules', '.bin', 'esbuild');
  const run = spawnSync(esbuild, [...lazyPackageFlags(packageName, file, projectRoot), `--metafile=${metafilePath}`], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`esbuild could not build ${packageName}: ${run.stderr || run.error?.message}`);
  for (const subpath of lazySubpathFiles(outDir, packageName)) writeFileSync(subpath.file, subpath.text);
  return { packageName, file, bytes: statSync(file).size, metafile: JSON.parse(readFileSync(metafilePath, 'utf8')) as Metafile };
}

/** Builds a lazy project file into `<outDir>/lazy/<name>.cjs` with the stack's command line. */
function buildLazyProjectFile(outDir: string, entry: string): LazyProjectFile {
  const file = lazyProjectFile(outDir, entry);
  const metafilePath = `${outDir}.lazy+${basename(entry)}.meta.json`;
  const esbuild = join(projectRoot, 'node_modules', '.bin', 'esbuild');
  const run = spawnSync(esbuild, [...lazyProjectFlags(entry, file, projectRoot), `--metafile=${metafilePath}`], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`esbuild could not build ${entry}: ${run.stderr || run.error?.message}`);
  return { entry, file, bytes: statSync(file).size, metafile: JSON.parse(readFileSync(metafilePath, 'utf8')) as Metafile };
}

/**
 * The lazy project files a bundle requires (`require("./lazy/<name>.cjs")`) that its asset does not
 * hold: a function whose code reaches a lazy file must ship it (`lazyProjectFiles`), or it fails when
 * it first needs it.
 */
export function missingLazyFiles(report: BundleReport): string[] {
  const code = readFileSync(report.file, 'utf8');
  const required = [...code.matchAll(/require\(["'](\.\/lazy\/[^"']+)["']\)/g)].map((match) => match[1]!);
  return [...new Set(required)].filter((relative) => !existsSync(join(dirname(report.file), relative))).sort();
}

/** esbuild's options for a bundle in this mode, the stack's (`functionBundling`), without its entry and output. */
export function esbuildOptions(mode: BundleMode) {
  return {
    bundle: true,
    platform: 'node',
    target: functionBundling.target,
    format: 'cjs',
    minify: functionBundling.minify,
    sourcemap: functionBundling.sourceMap,
    sourcesContent: functionBundling.sourcesContent,
    charset: functionBundling.charset,
    inject: functionBundling.inject.map((file) => join(projectRoot, file)),
    define: { ...functionBundling.define },
    external: externalsFor(mode),
    logLevel: 'warning',
  } as const;
}

export interface BuildOptions {
  mode?: BundleMode;
  groups?: readonly string[];
  /** Where the bundles go: `bundleDir(mode)` unless given. */
  dir?: string;
}

/** Bundles each group's `functions/<group>/handler.ts` into `<bundleDir>/<group>/index.js`, with its lazy packages beside it. */
export async function buildBundles(options: BuildOptions = {}): Promise<BundleReport[]> {
  const mode = options.mode ?? 'sdk-external';
  const groups = options.groups ?? resourceGroups;
  const dir = options.dir ?? bundleDir(mode);
  mkdirSync(dir, { recursive: true });
  forgetManifest(dir);
  const reports: BundleReport[] = [];
  for (const group of groups) {
    const outDir = join(dir, group);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const outfile = join(outDir, 'index.js');
    const { metafile } = await build({ ...esbuildOptions(mode), absWorkingDir: projectRoot, entryPoints: [join('functions', group, 'handler.ts')], outfile, metafile: true });
    const output = jsOutput(metafile);
    const code = readFileSync(outfile);
    const byPackage = new Map<string, number>();
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOrFolder(path), (byPackage.get(packageOrFolder(path)) ?? 0) + bytesInOutput);
    }
    // `<function>.meta.json`, for esbuild's analyzer (esbuild.github.io/analyze): beside the function's
    // directory, not in it, which holds what the stack's asset holds and nothing more.
    writeFileSync(`${outDir}.meta.json`, JSON.stringify(metafile));
    reports.push({
      group,
      mode,
      file: outfile,
      bytes: code.length,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      mapBytes: readFileSync(`${outfile}.map`).length,
      limitBytes: TARGET_BYTES,
      topInputs: largest(Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput])),
      topPackages: largest(byPackage),
      metafile,
      lazy: (lazyPackages[group] ?? []).map((name) => buildLazyPackage(outDir, name)),
      lazyFiles: (lazyProjectFiles[group] ?? []).map((entry) => buildLazyProjectFile(outDir, entry)),
    });
  }
  const metafiles = reports.flatMap((r) => [r.metafile, ...r.lazy.map((lazy) => lazy.metafile), ...r.lazyFiles.map((lazy) => lazy.metafile)]);
  const inputs = [...metafiles.flatMap((metafile) => Object.keys(metafile.inputs)), ...BUILDER_FILES];
  writeManifest(dir, projectRoot, { inputs, settings: bundleSettings(mode, groups), reports });
  return reports;
}

/** The bundler's own files: a change to how it builds makes its bundles stale too. */
const BUILDER_FILES = ['scripts/build-bundles.ts', 'scripts/bundle-manifest.ts', 'infra/cloud/service-function.ts'];

/** Everything a build's output depends on besides its input files: the mode, the functions and each esbuild command line. */
function bundleSettings(mode: BundleMode, groups: readonly string[]) {
  const lazy = groups.map((group) => ({
    group,
    packages: (lazyPackages[group] ?? []).map((name) => [lazyPackageFlags(name, '<out>', projectRoot), lazySubpathFiles('<out>', name)]),
    files: (lazyProjectFiles[group] ?? []).map((entry) => lazyProjectFlags(entry, '<out>', projectRoot)),
  }));
  return { mode, groups, options: esbuildOptions(mode), lazy };
}

/**
 * A copy, in a new directory under `parent`, of every function's bundles as `npm run build:bundles`
 * last wrote them in this mode, with their reports, when they are still what the sources and settings
 * make now (`bundles.json`); undefined when they are missing or stale, and the copy removed.
 */
export function copyOfFreshBundles(parent: string, mode: BundleMode = 'sdk-external'): { dir: string; reports: BundleReport[] } | undefined {
  if (!existsSync(join(bundleDir(mode), 'bundles.json'))) return undefined;
  const dir = mkdtempSync(join(parent, 'bundles-'));
  cpSync(bundleDir(mode), dir, { recursive: true });
  const reports = freshReports(dir, projectRoot, bundleSettings(mode, resourceGroups)) as BundleReport[] | undefined;
  if (reports) return { dir, reports };
  rmSync(dir, { recursive: true, force: true });
  return undefined;
}

export const overTarget = (report: BundleReport) => report.bytes > report.limitBytes;

const sizeList = (items: InputSize[]) =>
  items.map(({ path, bytes }) => `${path.replace(/^node_modules\//, '')} ${kib(bytes)}`).join('<br>');

const lazyList = (report: BundleReport) =>
  [
    ...report.lazy.map((lazy) => `${lazy.packageName} ${lazy.bytes.toLocaleString('en-US')}`),
    ...report.lazyFiles.map((lazy) => `lazy/${basename(lazy.file)} ${lazy.bytes.toLocaleString('en-US')}`),
  ].join('<br>') || '–';

/** A markdown table: readable in a terminal and pasteable into a Markdown document. */
export function formatBundleTable(reports: BundleReport[]): string {
  const rows = reports.map((r) => {
    const check = overTarget(r) ? `**over** by ${(r.bytes - r.limitBytes).toLocaleString('en-US')} bytes` : 'ok';
    return `| ${r.group} | ${r.bytes.toLocaleString('en-US')} | ${kib(r.bytes)} | ${kib(r.gzipBytes)} | ${kib(r.mapBytes)} | ${check} | ${lazyList(r)} | ${sizeList(r.topPackages)} | ${sizeList(r.topInputs)} |`;
  });
  return [
    '| function | index.js bytes | KiB | gzip -9 KiB | source map KiB | target ≤ 250,000 bytes | lazy files (bytes) | largest packages (KiB) | largest input files (KiB) |',
    '|---|---:|---:|---:|---:|---|---|---|---|',
    ...rows,
  ].join('\n');
}

export function modeDescription(mode: BundleMode): string {
  const what =
    mode === 'sdk-external'
      ? `SDK external (${externalsFor(mode).join(', ')})`
      : `self-contained (AWS SDK bundled; external: ${externalsFor(mode).join(', ')})`;
  const note = deployedMode() === mode ? 'what the CDK stack deploys' : 'not what the CDK stack deploys';
  return `${what}; ${note} (infra/cloud/service-function.ts)`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--self-contained');
  if (unknown.length > 0) {
    console.error(`Unknown option ${unknown[0]}; the only option is --self-contained`);
    process.exit(2);
  }
  const mode: BundleMode = args.includes('--self-contained') ? 'self-contained' : 'sdk-external';
  const reports = await buildBundles({ mode });
  console.log(`Bundles in ${relative(process.cwd(), bundleDir(mode)) || '.'}/<function>/index.js, ${modeDescription(mode)}.`);
  console.log('1 KiB = 1024 bytes; the target is 250,000 bytes (244.1 KiB) per function, for index.js (what Lambda loads at cold start).');
  console.log('Lazy files load on the first request that needs them: node_modules/<package>/index.js and lazy/<name>.cjs beside index.js.\n');
  console.log(formatBundleTable(reports));
  const unshipped = reports.flatMap((r) => missingLazyFiles(r).map((file) => `${r.group} requires ${file}`));
  if (unshipped.length > 0) {
    console.error(`\nA bundle requires a lazy file its function does not ship: ${unshipped.join(', ')}. Add it to lazyProjectFiles (infra/cloud/service-function.ts).`);
    process.exit(1);
  }
  // The target is for what the stack deploys; the self-contained bundles are for comparison only.
  const over = mode === deployedMode() ? reports.filter(overTarget) : [];
  if (over.length > 0) {
    const list = over.map((r) => `${r.group} ${r.bytes.toLocaleString('en-US')} bytes`).join(', ');
    console.error(
      `\nOver the 250,000-byte bundle target: ${list}. See what the function pulls in with esbuild's analyzer (dist/bundles/<function>.meta.json at esbuild.github.io/analyze) ` +
        'and load what only some routes need on first use (docs/decisions/lighter-functions.md).',
    );
    process.exit(1);
  }
}

if (process.argv[1]?.endsWith('build-bundles.ts')) {
  main().catch((error: unknown) => {
    console.error(`Bundling failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
