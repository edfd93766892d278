/** What a figure depends on besides the code: the machine, its load, and the product code measured. */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The 1 / 5 / 15 minute load averages: other work on the machine skews every figure. */
export const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

/** CPUs, model, memory, platform, Node and any other tool versions given. */
export function machine(tools: Record<string, string> = {}): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const versions = Object.entries({ Node: process.version, ...tools }).map(([name, version]) => `${name} ${version}`);
  return `${availableParallelism()} CPUs (nproc) × ${model}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${process.platform}/${process.arch}; ${versions.join(', ')}`;
}

export const cpuCount = () => availableParallelism();

/** The commit measured, and whether shared/, functions/ or infra/ differ from it (read-only git). */
export function productVersion(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = git('status', '--porcelain', '--', 'shared', 'functions', 'infra');
  const dirty = changed ? ` with uncommitted changes to ${changed.split('\n').length} file(s) of shared/, functions/ or infra/` : '';
  return `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${dirty}`;
}
