import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StackInfo } from '../../infra/local/stack';
import { spawnLocalStack, type Launcher, type StackChild } from '../../infra/local/stack-child';
import { awaitLocalStack, runningLocalStack, useStackEnvironment } from '../../infra/stack-target';

export { passwordGrant } from '../../infra/stack-target';

/** Starting and stopping local stacks of a test's own, as `npm start` runs them (not the run's shared stack). */

export const projectRoot = join(__dirname, '..', '..');
const READY_TIMEOUT_MS = 90_000;

/** A temporary directory removed when `cleanUp` runs. */
export function tempDir(prefix: string, made: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeAll(dirs: string[]): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** The environment of a stack child: quiet handlers, and no npm setting inherited from a parent `npm test`. */
export function stackEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value;
  return { ...env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...extra };
}

export type StackProcess = StackChild;

/**
 * Spawns the local stack (`infra/local/start.mjs`, or `npm start` the way a user types it) in a process group of its
 * own, so that a signal can reach the whole group as a terminal's Ctrl-C does.
 */
export function spawnStack(args: string[], env: NodeJS.ProcessEnv, launcher: Launcher = 'node'): StackProcess {
  return spawnLocalStack(args, { env, launcher });
}

/**
 * Runs a command that should end by itself (a refusal, `--help`) to its end: exit code, stdout and
 * stderr. One that is still running after `timeoutMs` (a stack that started where it should have
 * refused) is killed with its whole process group and answers the code `'timeout'`.
 */
export async function runToEnd(
  argv: string[],
  env: NodeJS.ProcessEnv,
  command = process.execPath,
  timeoutMs = 60_000,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(command, argv, { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }, timeoutMs);
  const code = await new Promise<number | string>((resolve) => child.once('close', (exit, signal) => resolve(exit ?? signal ?? 'unknown')));
  clearTimeout(timer);
  return { code: timedOut ? 'timeout' : code, stdout, stderr };
}

/** Waits for the stack's `stack.json` (written once it answers); fails with its output if it ends first. */
export async function whenReady(stack: StackProcess, dataDir: string): Promise<StackInfo> {
  const started = await awaitLocalStack(dataDir, { alive: () => stack.child.exitCode === null, timeoutMs: READY_TIMEOUT_MS });
  if ('info' in started) return started.info;
  throw new Error(started.failed === 'exited' ? `The stack exited early:\n${stack.output()}` : `The stack was not ready within ${READY_TIMEOUT_MS} ms:\n${stack.output()}`);
}

/** Sends `signal` to the stack's whole process group and waits for it to end; SIGKILL after 15 s. */
export async function stopStack(stack: StackProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  await stack.stop(signal, 15_000);
  return stack.exited;
}

/** A test file's own stacks and data directories: each stack killed and each directory removed after its tests. */
export function ownStacks(): { dirs: string[]; running: StackProcess[] } {
  const own = { dirs: [] as string[], running: [] as StackProcess[] };
  afterAll(async () => {
    await Promise.all(own.running.map((stack) => stopStack(stack, 'SIGKILL')));
    removeAll(own.dirs);
  });
  return own;
}

/**
 * A fresh stack of the file's own, started with `env` beside the usual: once it is ready, the test
 * helpers and this process's product modules target it (its stack.json and its functions' environment).
 */
export async function targetOwnStack(prefix: string, env: NodeJS.ProcessEnv, own: { dirs: string[]; running: StackProcess[] }): Promise<StackInfo> {
  const dataDir = tempDir(prefix, own.dirs);
  const stack = spawnStack(['--fresh', '--data-dir', dataDir], stackEnv({ PORT: '0', ...env }));
  own.running.push(stack);
  const info = await whenReady(stack, dataDir);
  process.env.TEST_STACK_JSON = join(dataDir, 'stack.json');
  useStackEnvironment(runningLocalStack(dataDir));
  return info;
}
