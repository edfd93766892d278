/**
 * `npm run build:bundles [-- --self-contained]`: bundles every function the way the CDK stack does and
 * reports its size against the 250 kB target (docs/benchmarks.md).
 *
 * The esbuild options mirror what aws-cdk-lib's NodejsFunction (aws-lambda-nodejs/lib/bundling.js) runs
 * for the bundling props in infra/cloud/service-function.ts:
 *   esbuild --bundle <entry> --target=node24 --platform=node --format=cjs --outfile=<dir>/index.js
 *           --minify --sourcemap [--external:<module> ...]
 * Two modes, because they differ by the whole AWS SDK:
 *   sdk-external    CDK's default for a NODEJS_24_X runtime: `@aws-sdk/*` left to the runtime's copy
 *                   (plus `@smithy/*` when cdk.json enables @aws-cdk/aws-lambda-nodejs:sdkV3ExcludeSmithyPackages).
 *   self-contained  nothing external (`externalModules: []` or `bundleAwsSDK: true`).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { resourceGroups } from '../shared/edge/api/routes';

export type BundleMode = 'sdk-external' | 'self-contained';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle-size target "250 KB", read strictly as 250,000 bytes. */
export const TARGET_BYTES = 250_000;
/** Groups the size target does not apply to (`bulk-worker`, the CSV worker, carries the parsers). */
const UNLIMITED_GROUPS = new Set(['bulk-worker']);

const KIB = 1024;
export const kib = (bytes: number) => (bytes / KIB).toFixed(1);

export interface InputSize {
  path: string;
  bytes: number;
}

export interface BundleReport {
  group: string;
  mode: BundleMode;
  /** Absolute path of the built `index.js`. */
  file: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  /** Undefined where the target does not apply. */
  limitBytes: number | undefined;
  /** The five largest input files, by bytes they contribute to the minified output. */
  topInputs: InputSize[];
  /** The five largest packages (node_modules) or source folders, summed over their files. */
  topPackages: InputSize[];
}

export function bundleDir(mode: BundleMode): string {
  return join(projectRoot, 'dist', mode === 'sdk-external' ? 'bundles' : 'bundles-self-contained');
}

/** The externals NodejsFunction would use for this mode, given cdk.json's feature flags. */
export function externalsFor(mode: BundleMode): string[] {
  if (mode === 'self-contained') return [];
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const smithyToo = cdkJson.context?.['@aws-cdk/aws-lambda-nodejs:sdkV3ExcludeSmithyPackages'] === true;
  return smithyToo ? ['@aws-sdk/*', '@smithy/*'] : ['@aws-sdk/*'];
}

/**
 * Which mode the CDK stack deploys, read from service-function.ts's bundling props. A text check, not
 * an evaluation: it answers 'unknown' rather than guess when the props take another shape.
 */
export function deployedMode(): BundleMode | 'unknown' {
  let source: string;
  try {
    source = readFileSync(join(projectRoot, 'infra/cloud/service-function.ts'), 'utf8');
  } catch {
    return 'unknown';
  }
  if (/externalModules:\s*\[\s*\]/.test(source) || /bundleAwsSDK:\s*true/.test(source)) return 'self-contained';
  if (!/externalModules|bundleAwsSDK/.test(source)) return 'sdk-external';
  return 'unknown';
}

const packageOf = (input: string) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, 2).join('/');

function largest(entries: Iterable<[string, number]>): InputSize[] {
  return [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([path, bytes]) => ({ path, bytes }));
}

export interface BuildOptions {
  mode?: BundleMode;
  groups?: readonly string[];
}

/** Bundles each group's `functions/<group>/handler.ts` into `<bundleDir>/<group>/index.js`. */
export async function buildBundles(options: BuildOptions = {}): Promise<BundleReport[]> {
  const mode = options.mode ?? 'sdk-external';
  const groups = options.groups ?? resourceGroups;
  const external = externalsFor(mode);
  const reports: BundleReport[] = [];
  for (const group of groups) {
    const outDir = join(bundleDir(mode), group);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    const outfile = join(outDir, 'index.js');
    const result = await build({
      absWorkingDir: projectRoot,
      entryPoints: [join('functions', group, 'handler.ts')],
      bundle: true,
      outfile,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      minify: true,
      sourcemap: true,
      // As service-function.ts bundles: import.meta.url from an injected export (see bundle-import-meta.ts).
      inject: [join(projectRoot, 'infra', 'cloud', 'bundle-import-meta.ts')],
      define: { 'import.meta.url': 'bundleImportMetaUrl' },
      external,
      metafile: true,
      logLevel: 'warning',
    });
    const metafile = result.metafile;
    const output = metafile.outputs[relative(projectRoot, outfile)];
    if (!output) throw new Error(`esbuild's metafile does not describe ${outfile}`);
    const code = readFileSync(outfile);
    const byPackage = new Map<string, number>();
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOf(path), (byPackage.get(packageOf(path)) ?? 0) + bytesInOutput);
    }
    // Same name as NodejsFunction's `metafile: true`; esbuild's analyzer (esbuild.github.io/analyze) reads it.
    writeFileSync(join(outDir, 'index.meta.json'), JSON.stringify(metafile));
    reports.push({
      group,
      mode,
      file: outfile,
      bytes: code.length,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      mapBytes: readFileSync(`${outfile}.map`).length,
      limitBytes: UNLIMITED_GROUPS.has(group) ? undefined : TARGET_BYTES,
      topInputs: largest(Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput])),
      topPackages: largest(byPackage),
    });
  }
  return reports;
}

export const overTarget = (report: BundleReport) => report.limitBytes !== undefined && report.bytes > report.limitBytes;

const sizeList = (items: InputSize[]) =>
  items.map(({ path, bytes }) => `${path.replace(/^node_modules\//, '')} ${kib(bytes)}`).join('<br>');

/** A markdown table: readable in a terminal and pasteable into a Markdown document. */
export function formatBundleTable(reports: BundleReport[]): string {
  const rows = reports.map((r) => {
    const check =
      r.limitBytes === undefined ? 'no target' : overTarget(r) ? `**over** by ${kib(r.bytes - r.limitBytes)}` : 'ok';
    return `| ${r.group} | ${kib(r.bytes)} | ${kib(r.gzipBytes)} | ${kib(r.mapBytes)} | ${check} | ${sizeList(r.topPackages)} | ${sizeList(r.topInputs)} |`;
  });
  return [
    '| function | minified KiB | gzip -9 KiB | source map KiB | target ≤ 250 kB | largest packages (KiB) | largest input files (KiB) |',
    '|---|---:|---:|---:|---|---|---|',
    ...rows,
  ].join('\n');
}

export function modeDescription(mode: BundleMode): string {
  const deployed = deployedMode();
  const external = externalsFor(mode);
  const what =
    mode === 'sdk-external'
      ? `SDK external (${external.join(', ')}): CDK's NodejsFunction default for NODEJS_24_X`
      : 'self-contained (AWS SDK bundled, nothing external)';
  const note =
    deployed === 'unknown'
      ? 'could not tell whether the stack deploys this mode'
      : deployed === mode
        ? 'what the CDK stack deploys today'
        : 'not what the CDK stack deploys today';
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
  console.log('1 KiB = 1024 bytes; the target is 250,000 bytes (244.1 KiB) per function except bulk-worker.\n');
  console.log(formatBundleTable(reports));
  const over = reports.filter(overTarget);
  if (over.length > 0) {
    const list = over.map((r) => `${r.group} ${kib(r.bytes)} KiB`).join(', ');
    console.error(`\nOver the 250 kB (244.1 KiB) bundle target: ${list}.`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`Bundling failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
