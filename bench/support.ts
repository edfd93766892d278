/**
 * What the benchmark scripts share: figures and their formatting, the machine they ran on, and the local
 * stack started as a child process. Importing this module installs the clean-up: every stack it started
 * (its whole process group) and every temporary directory it made is removed on exit, failure and Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** How often a starting or stopping stack is checked on. */
export const POLL_MS = 20;

// ---------------------------------------------------------------------------------------------------
// Figures

/** Nearest-rank percentile: with 10 samples p95 is the slowest one. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const mean = (samples: number[]) => samples.reduce((sum, value) => sum + value, 0) / samples.length;

/** Milliseconds to one decimal, or to `digitsBelow10` decimals when under 10. */
export const formatMs = (value: number, digitsBelow10 = 1) => value.toFixed(value >= 10 ? 1 : digitsBelow10);

/**
 * The load average over the last 1 (or 1 / 5 / 15) minutes, to two decimals: other work on the machine
 * skews every figure, and this says how much there was.
 */
export const loadAverage = (periods: 1 | 3 = 1) =>
  loadavg()
    .slice(0, periods)
    .map((value) => value.toFixed(2))
    .join(' / ');

/** CPUs, CPU model, memory, platform and architecture, for a report's first paragraph. */
export function hardware(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${availableParallelism()} CPUs (nproc) × ${model}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${process.platform}/${process.arch}`;
}

// ---------------------------------------------------------------------------------------------------
// Child processes and temporary directories: every stack is its own process group, so nothing outlives a
// failure.

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The whole group is gone already.
  }
}

/** Whether any process of the child's group is still alive (`npm start` leaves grandchildren). */
export function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills every stack still running and removes every temporary directory. */
export function cleanUp(): void {
  for (const child of children) killGroup(child, 'SIGKILL');
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

/** A new temporary directory, removed by `cleanUp`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * Runs a benchmark's `main`; on failure prints `Benchmark failed: …` (with the stack trace when
 * `withStack`), cleans up and exits 1.
 */
export function runBenchmark(main: () => Promise<void>, { withStack = false } = {}): void {
  main().catch((error: unknown) => {
    const detail = error instanceof Error ? (withStack ? (error.stack ?? error.message) : error.message) : String(error);
    console.error(`Benchmark failed: ${detail}`);
    cleanUp();
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------------
// The local stack

/** The data directory's stack.json, as infra/local/main.ts writes it. */
export interface StackJson {
  apiUrl: string;
  authUrl: string;
  generativeSubpath: string;
  userSubpath: string;
  clientId: string;
  orgs: { uuid: string; name: string; admin: { email: string; password: string } }[];
}

export interface RunningStack {
  child: ChildProcess;
  info: StackJson;
  dataDir: string;
  /** Milliseconds from spawn until stack.json was written and the JWKS answered 200. */
  readyMs: number;
  /** The last lines the stack printed, for error messages. */
  output: () => string;
}

export type Launcher = 'node --import tsx' | 'npm start';

/** Keeps the last few KiB of a child's output: read, so the pipe never fills and blocks it. */
export function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text.trim().split('\n').slice(-15).join('\n');
}

function readStackJson(file: string, notBefore: number): StackJson | undefined {
  try {
    // A warm start finds the previous run's stack.json: only one written after this spawn counts.
    if (statSync(file).mtimeMs < notBefore) return undefined;
    return JSON.parse(readFileSync(file, 'utf8')) as StackJson;
  } catch {
    return undefined; // Not there yet, or caught half-written.
  }
}

export async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export interface StartOptions {
  dataDir: string;
  /** `--fresh`: new data, seeded. */
  fresh: boolean;
  /** `node --import tsx infra/local/main.ts` unless told; a launcher given is named in the error if the stack does not start. */
  launcher?: Launcher;
  /** Reads the child's output and returns its last lines; `tail` unless told. */
  watch?: (child: ChildProcess) => () => string;
}

/**
 * Starts the local stack (PORT=0) in a process group of its own and waits until its stack.json is
 * written and the first organization's JWKS answers 200.
 */
export async function startStack({ dataDir, fresh, launcher, watch = tail }: StartOptions): Promise<RunningStack> {
  const options = [...(fresh ? ['--fresh'] : []), '--data-dir', dataDir];
  const [command, args] =
    launcher === 'npm start'
      ? ['npm', ['start', '--silent', '--', ...options]]
      : [process.execPath, ['--import', 'tsx', 'infra/local/main.ts', ...options]];
  const stackJson = join(dataDir, 'stack.json');
  const wallStart = Date.now();
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const output = watch(child);
  try {
    while (performance.now() - started < START_TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
      const info = readStackJson(stackJson, wallStart);
      const realm = info?.orgs[0]?.name;
      if (info && realm && (await answers200(`${info.authUrl}/auth/realms/${realm}/protocol/openid-connect/certs`))) {
        return { child, info, dataDir, readyMs: performance.now() - started, output };
      }
      await sleep(POLL_MS);
    }
    throw new Error(`it was not serving after ${START_TIMEOUT_MS / 1000} s`);
  } catch (error) {
    killGroup(child, 'SIGKILL');
    const reason = error instanceof Error ? error.message : String(error);
    const name = launcher ? ` (${launcher})` : '';
    throw new Error(`The local stack${name} did not start: ${reason}\n${output()}`, { cause: error });
  }
}

/**
 * SIGTERM to the stack's process group, then SIGKILL if it is still alive after `STOP_TIMEOUT_MS`;
 * `strict` makes that an error.
 */
export async function stopStack({ child }: RunningStack, { strict = false } = {}): Promise<void> {
  killGroup(child, 'SIGTERM');
  const deadline = performance.now() + STOP_TIMEOUT_MS;
  while (groupAlive(child) && performance.now() < deadline) await sleep(POLL_MS);
  const stopped = !groupAlive(child);
  if (!stopped) killGroup(child, 'SIGKILL');
  children.delete(child);
  if (!stopped && strict) throw new Error(`The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`);
}

/** A password grant for an organization's admin (the first unless told): each call sends one. */
export function passwordGrant(info: StackJson, org = info.orgs[0]!): () => Promise<Response> {
  const tokenUrl = `${info.authUrl}/auth/realms/${org.name}/protocol/openid-connect/token`;
  const form = new URLSearchParams({
    grant_type: 'password',
    client_id: info.clientId,
    username: org.admin.email,
    password: org.admin.password,
  });
  return () => fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
}

// ---------------------------------------------------------------------------------------------------
// Series: each operation times its own critical section and checks its result outside it

export interface Series {
  key: string;
  label: string;
  /** Runs operation `i` and returns its milliseconds. */
  op: (i: number) => Promise<number>;
  samples: number[];
}

export async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

export function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/**
 * Every series in rounds after `warmUp` unmeasured operations each: a block of `block` operations
 * per series, the starting series rotating per round, until each has `samples`.
 */
export async function runInterleaved(series: Series[], { warmUp, block, samples }: { warmUp: number; block: number; samples: number }): Promise<void> {
  for (const s of series) for (let i = 0; i < warmUp; i++) await s.op(i);
  for (let round = 0; round * block < samples; round++) {
    for (let k = 0; k < series.length; k++) {
      const s = series[(round + k) % series.length]!;
      for (let j = 0; j < block && round * block + j < samples; j++) s.samples.push(await s.op(warmUp + round * block + j));
    }
  }
}

export interface CpuFigure {
  label: string;
  p50: number;
  mean: number;
}

/** Work in this process on data the run fetched: median and mean of `runs` runs after 20 warm-ups. */
export async function cpu(label: string, work: () => unknown, runs: number): Promise<CpuFigure> {
  const samples: number[] = [];
  for (let i = 0; i < 20 + runs; i++) {
    const started = performance.now();
    await work();
    if (i >= 20) samples.push(performance.now() - started);
  }
  return { label, p50: percentile(samples, 50), mean: mean(samples) };
}
