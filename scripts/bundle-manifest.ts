/**
 * The record the bundler leaves beside the bundles it wrote (`bundles.json`): every file esbuild read
 * to make them, a key over those files' contents and the settings they were made with, and a hash of
 * what it wrote. A reader that finds the key and the hash unchanged has the bundles the sources make
 * now, without building them again; any edit to a file they came from, to a setting, to the installed
 * packages or to the bundles themselves makes them stale, and a stale bundle is never reused.
 */
import { version as esbuildVersion } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST_FILE = 'bundles.json';

/** Files that decide how esbuild resolves and reads what no metafile lists: the packages installed, TypeScript's settings. */
const RESOLUTION_FILES = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json'];

interface Manifest {
  key: string;
  outputs: string;
  /** Paths relative to the project's root, as esbuild's metafiles give them. */
  inputs: string[];
  /** The bundler's reports as JSON, the bundles' directory written as `DIR`. */
  reports: string;
}

const DIR = '<bundles>';
const jsonText = (text: string) => JSON.stringify(text).slice(1, -1);

/** A key over the contents of `inputs` (a missing file counts as missing), the settings and esbuild's version. */
export function sourcesKey(root: string, inputs: readonly string[], settings: unknown): string {
  const hash = createHash('sha256').update(JSON.stringify({ esbuild: esbuildVersion, settings }));
  for (const input of [...new Set([...inputs, ...RESOLUTION_FILES])].sort()) {
    const file = join(root, input);
    hash.update(`\0${input}\0`);
    hash.update(existsSync(file) && statSync(file).isFile() ? readFileSync(file) : '\0missing');
  }
  return hash.digest('hex');
}

/** A hash of every file under `dir` (names and contents) but the manifest. */
function outputsHash(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name !== MANIFEST_FILE && statSync(join(dir, name)).isFile())
    .sort();
  for (const name of files) hash.update(`\0${name}\0`).update(readFileSync(join(dir, name)));
  return hash.digest('hex');
}

/** Removes the manifest of `dir`, before its bundles are rewritten: a build stopped halfway leaves none. */
export function forgetManifest(dir: string): void {
  rmSync(join(dir, MANIFEST_FILE), { force: true });
}

/** Writes the manifest of the bundles just written to `dir`, from the files they came from and the reports that describe them. */
export function writeManifest(dir: string, root: string, options: { inputs: readonly string[]; settings: unknown; reports: unknown }): void {
  const inputs = [...new Set(options.inputs)].sort();
  const manifest: Manifest = {
    key: sourcesKey(root, inputs, options.settings),
    outputs: outputsHash(dir),
    inputs,
    reports: JSON.stringify(options.reports).split(jsonText(dir)).join(DIR),
  };
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
}

/**
 * The reports of the bundles in `dir` (a copy of a bundler's directory, manifest included), their paths
 * pointing into `dir`, when the sources and settings are those they were made from and the files are
 * those the bundler wrote; undefined when there is no manifest or anything differs.
 */
export function freshReports(dir: string, root: string, settings: unknown): unknown {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  if (manifest.key !== sourcesKey(root, manifest.inputs, settings) || manifest.outputs !== outputsHash(dir)) return undefined;
  return JSON.parse(manifest.reports.split(DIR).join(jsonText(dir))) as unknown;
}
