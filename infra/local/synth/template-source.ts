import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { projectRoot } from '../../cloud/project-root';
import type { TemplateDeployment } from '../template/template-deployment';
import type { TemplatePolicies } from '../template/template-policies';

/**
 * The CDK app synthesized without bundling in a child process (so it runs beside the emulators' start), and
 * cached in node_modules' cache (the data directory goes with `--fresh` and every test run) by a hash of its sources.
 */

const CACHE_DIR = join(projectRoot, 'node_modules', '.cache', 'local-template');
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** What the local stack keeps of the synthesized template: the roles' policies (local IAM) and the deployment. */
export interface TemplateExtract { policies: TemplatePolicies; deployment: TemplateDeployment }

export interface TemplateSource extends TemplateExtract {
  /** Whether the template had to be synthesized (nothing cached for these sources). */
  synthesized: boolean;
  ms: number;
}

const sourceFiles = (...path: string[]) => {
  const dir = join(projectRoot, ...path);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file))
    .sort();
};

/** A hash of every input of the extract: the CDK app's sources, the route catalogue, cdk.json, the CDK version, the extractors. */
export function templateSourceHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...sourceFiles('infra', 'cloud'),
    ...sourceFiles('shared', 'edge', 'api'),
    join(projectRoot, 'cdk.json'),
    ...sourceFiles('infra', 'local', 'template'),
    ...sourceFiles('infra', 'local', 'synth'),
  ];
  for (const file of files) hash.update(relative(projectRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  const cdk = createRequire(join(projectRoot, 'package.json'))('aws-cdk-lib/package.json') as { version: string };
  return hash.update(cdk.version).digest('hex').slice(0, 20);
}

let loading: Promise<TemplateSource> | undefined;

/** The template's extract: from the cache, or synthesized now (a few seconds) and cached; once per process. */
export const loadTemplate = (): Promise<TemplateSource> => (loading ??= load());

async function load(): Promise<TemplateSource> {
  const started = performance.now();
  const file = join(CACHE_DIR, `${templateSourceHash()}.json`);
  const read = (synthesized: boolean): TemplateSource => ({ ...(JSON.parse(readFileSync(file, 'utf8')) as TemplateExtract), synthesized, ms: performance.now() - started });
  if (existsSync(file)) return read(false);
  mkdirSync(CACHE_DIR, { recursive: true });
  await synthesizeTo(file);
  // Older sources' entries go after a day (not at once: another checkout's run may be reading its own).
  for (const name of readdirSync(CACHE_DIR)) {
    const entry = join(CACHE_DIR, name);
    if (entry !== file && Date.now() - statSync(entry).mtimeMs > STALE_AFTER_MS) rmSync(entry, { force: true });
  }
  return read(true);
}

function synthesizeTo(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'infra', 'local', 'synth', 'synth-template.ts'), file], {
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
      else reject(new Error(`The local stack could not synthesize the CDK app to read the functions' roles and settings (exit ${code}):\n${errors.trim()}`));
    });
  });
}
