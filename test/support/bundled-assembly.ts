import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../infra/cloud/build-app';

/** What the CDK CLI adds to the context of `cdk synth`: each asset's path in the template's metadata, which SAM reads. */
export const cliContext = { 'aws:cdk:enable-asset-metadata': true };

/** How long a file waits for the run's assembly that another file is synthesizing before it synthesizes its own. */
const WAIT_MS = 240_000;
const POLL_MS = 250;

/** Synthesizes the app with esbuild bundling, as `cdk synth` does, into `outDir`. */
function synthesizeInto(outDir: string): void {
  process.env.CDK_OUTDIR = outDir;
  try {
    buildApp(cliContext).app.synth();
  } finally {
    delete process.env.CDK_OUTDIR;
  }
}

/** The directory of the assembly another file is synthesizing, once it is written; undefined if it failed or is not written in time. */
async function synthesizedElsewhere(dir: string): Promise<string | undefined> {
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    if (existsSync(dir)) return dir;
    if (existsSync(`${dir}.failed`)) return undefined;
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
  return undefined;
}

/**
 * A cloud assembly of these sources synthesized as `cdk synth` makes it (every function bundled by
 * esbuild, asset metadata), outside the project as Lambda's /var/task is. A run with integration tests
 * synthesizes it once (in `TEST_RUN_DIR`, which their global setup makes and its teardown removes):
 * the first file to ask synthesizes it, the others wait for it and read it; a file whose wait fails
 * synthesizes its own. `shared` says whether the run removes it; the caller removes an assembly of its own.
 */
export async function bundledAssembly(): Promise<{ dir: string; shared: boolean }> {
  const runDir = process.env.TEST_RUN_DIR;
  if (runDir) {
    const dir = join(runDir, 'bundled-assembly');
    let first = true;
    try {
      mkdirSync(`${dir}.lock`);
    } catch {
      first = false;
    }
    if (!first) {
      const elsewhere = await synthesizedElsewhere(dir);
      if (elsewhere) return { dir: elsewhere, shared: true };
    } else {
      try {
        // Written whole, then renamed: a file that finds `dir` finds the complete assembly.
        const partial = mkdtempSync(join(runDir, 'bundled-assembly-'));
        synthesizeInto(partial);
        renameSync(partial, dir);
        return { dir, shared: true };
      } catch (error) {
        writeFileSync(`${dir}.failed`, String(error));
        throw error;
      }
    }
  }
  const own = mkdtempSync(join(tmpdir(), 'bundled-assembly-'));
  synthesizeInto(own);
  return { dir: own, shared: false };
}
