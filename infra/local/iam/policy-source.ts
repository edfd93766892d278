import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { projectRoot } from '../../cloud/project-root';
import type { TemplatePolicies } from './template-policies';

/**
 * Where the roles' policies come from: the CDK app synthesized without bundling (`synth-policies.ts`)
 * in a child process, so it runs beside the emulators' start, and cached in node_modules' cache (not
 * the data directory, which `--fresh` and every test run discard) under a hash of what the template
 * is made of. A start on an unchanged stack reads one small JSON file.
 */

const CACHE_DIR = join(projectRoot, 'node_modules', '.cache', 'local-iam');
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)]))
    .filter((file) => file.endsWith('.ts'))
    .sort();
}

/** A hash of every input of the roles' policies: the CDK app's sources, the route catalogue (shared/api), cdk.json, the CDK version, this extractor. */
export function policySourceHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...sourceFiles(join(projectRoot, 'infra', 'cloud')),
    ...sourceFiles(join(projectRoot, 'shared', 'api')),
    join(projectRoot, 'cdk.json'),
    join(projectRoot, 'infra', 'local', 'iam', 'template-policies.ts'),
    join(projectRoot, 'infra', 'local', 'iam', 'synth-policies.ts'),
  ];
  for (const file of files) hash.update(relative(projectRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  const cdk = createRequire(join(projectRoot, 'package.json'))('aws-cdk-lib/package.json') as { version: string };
  return hash.update(cdk.version).digest('hex').slice(0, 20);
}

export interface PolicySource {
  policies: TemplatePolicies;
  /** Whether the template had to be synthesized (no cached policies for these sources). */
  synthesized: boolean;
  ms: number;
}

/** The template's role policies: from the cache, or synthesized now (a few seconds) and cached. */
export async function loadTemplatePolicies(): Promise<PolicySource> {
  const started = performance.now();
  const file = join(CACHE_DIR, `${policySourceHash()}.json`);
  if (existsSync(file)) {
    return { policies: JSON.parse(readFileSync(file, 'utf8')) as TemplatePolicies, synthesized: false, ms: performance.now() - started };
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  await synthesizeTo(file);
  const policies = JSON.parse(readFileSync(file, 'utf8')) as TemplatePolicies;
  // Older sources' entries go after a day (not at once: another checkout's run may be reading its own).
  for (const name of readdirSync(CACHE_DIR)) {
    const entry = join(CACHE_DIR, name);
    if (entry !== file && Date.now() - statSync(entry).mtimeMs > STALE_AFTER_MS) rmSync(entry, { force: true });
  }
  return { policies, synthesized: true, ms: performance.now() - started };
}

function synthesizeTo(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'infra', 'local', 'iam', 'synth-policies.ts'), file], {
      cwd: projectRoot,
      // The built-in CloudFormation validation (WebAssembly) takes most of a synth and changes nothing in it.
      env: { ...process.env, CDK_VALIDATION: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && existsSync(file)) resolve();
      else reject(new Error(`Local IAM could not synthesize the CDK app to read the functions' roles (exit ${code}):\n${errors.trim()}`));
    });
  });
}
