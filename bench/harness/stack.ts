/**
 * The local stack a benchmark runs against: a child process (`infra/local/main.ts`, its own process
 * group) or this very process. Everything started here, and every temporary directory, is removed on
 * exit, failure and Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackInfo } from '../../infra/local/stack';
import { projectRoot } from './machine';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** How often a starting or stopping stack is checked on. */
export const POLL_MS = 20;

const cleanups = new Set<() => unknown>();

/** Runs every clean-up still registered, last first (stacks stop before their directories go). */
export async function cleanUp(): Promise<void> {
  const steps = [...cleanups].reverse();
  cleanups.clear();
  const run = async () => {
    for (const step of steps) await Promise.resolve().then(step).catch(() => undefined);
  };
  await Promise.race([run(), sleep(STOP_TIMEOUT_MS)]);
}
process.on('exit', () => void cleanUp());
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanUp().then(() => process.exit(130)));

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.add(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface RunningStack {
  info: StackInfo;
  dataDir: string;
  /**
   * Milliseconds from spawn until a real API call answered 200: the first organization's ADMIN got a
   * token (password grant) and read itself with it (`GET /{user_subpath}/org/{org}/users/identity-provider`).
   */
  readyMs: number;
  /** The handlers' own `durationMs` ("request completed" log lines), by `x-request-id` starting `bench-`. */
  handlerMs: Map<string, number>;
  stop(options?: { strict?: boolean }): Promise<void>;
}

export type Launcher = 'node --import tsx' | 'npm start';

const killGroup = (child: ChildProcess, signal: NodeJS.Signals | 0) => {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false; // The whole group is gone.
  }
};

/** Reads the child's output line by line (so the pipe never fills): handler durations, and a tail for errors. */
function watch(child: ChildProcess, handlerMs: Map<string, number>): () => string {
  let tail = '';
  let partial = '';
  const keep = (line: string) => (tail = (tail + line + '\n').slice(-4000));
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"bench-')) keep(line);
      else if (line.startsWith('{') && line.includes('request completed')) {
        const entry = JSON.parse(line) as { requestId?: string; durationMs?: number };
        if (entry.requestId && typeof entry.durationMs === 'number') handlerMs.set(entry.requestId, entry.durationMs);
      }
    }
  });
  return () => tail.trim().split('\n').slice(-15).join('\n');
}

/** Whether the stack serves a real API call: a password grant, then a read with its token, both 200. */
async function servesApiCall(info: StackInfo): Promise<boolean> {
  const org = info.orgs[0];
  if (!org) return false;
  try {
    const grant = await passwordGrant(info, org)();
    const { access_token } = (await grant.json()) as { access_token?: string };
    if (grant.status !== 200 || !access_token) return false;
    const me = await fetch(`${info.apiUrl}/${info.userSubpath}/org/${org.uuid}/users/identity-provider`, { headers: { authorization: `Bearer ${access_token}` } });
    await me.arrayBuffer();
    return me.status === 200;
  } catch {
    return false; // Not listening yet.
  }
}

function stackJson(dataDir: string, notBefore: number): StackInfo | undefined {
  const file = join(dataDir, 'stack.json');
  try {
    // Only a stack.json written after this start counts (a killed stack leaves its own behind).
    return statSync(file).mtimeMs < notBefore ? undefined : (JSON.parse(readFileSync(file, 'utf8')) as StackInfo);
  } catch {
    return undefined; // Not there yet, or caught half-written.
  }
}

/** Starts the local stack as a child (PORT=0, `--fresh` unless told) and waits until it serves. */
export async function startStack(options: { dataDir?: string; fresh?: boolean; launcher?: Launcher } = {}): Promise<RunningStack> {
  const { dataDir = tempDir('bench-stack-'), fresh = true, launcher = 'node --import tsx' } = options;
  const args = [...(fresh ? ['--fresh'] : []), '--data-dir', dataDir];
  const [command, argv] =
    launcher === 'npm start' ? ['npm', ['start', '--silent', '--', ...args]] : [process.execPath, ['--import', 'tsx', 'infra/local/main.ts', ...args]];
  const wallStart = Date.now();
  const started = performance.now();
  const child = spawn(command, argv, { cwd: projectRoot, env: { ...process.env, PORT: '0' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = () => void killGroup(child, 'SIGKILL');
  cleanups.add(kill);
  const handlerMs = new Map<string, number>();
  const output = watch(child, handlerMs);
  const stop = async ({ strict = false } = {}) => {
    killGroup(child, 'SIGTERM');
    const deadline = performance.now() + STOP_TIMEOUT_MS;
    while (killGroup(child, 0) && performance.now() < deadline) await sleep(POLL_MS);
    const stopped = !killGroup(child, 'SIGKILL');
    cleanups.delete(kill);
    if (!stopped && strict) throw new Error(`The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`);
  };
  try {
    while (performance.now() - started < START_TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`it exited with code ${child.exitCode}`);
      const info = stackJson(dataDir, wallStart);
      if (info && (await servesApiCall(info))) return { info, dataDir, readyMs: performance.now() - started, handlerMs, stop };
      await sleep(POLL_MS);
    }
    throw new Error(`it was not serving after ${START_TIMEOUT_MS / 1000} s`);
  } catch (error) {
    kill();
    throw new Error(`The local stack (${launcher}) did not start: ${error instanceof Error ? error.message : String(error)}\n${output()}`, { cause: error });
  }
}

/** Puts the stack's function environment (function-env.json) in process.env, so product modules reach its emulators. */
export function useFunctionEnv(stack: { dataDir: string }): void {
  Object.assign(process.env, JSON.parse(readFileSync(join(stack.dataDir, 'function-env.json'), 'utf8')) as Record<string, string>);
}

/**
 * Starts the local stack in this process (so its handlers, worker and emulators share this process's
 * memory and event loop). `quiet` drops the JSON INFO log lines the handlers print, once formatted.
 */
export async function startInProcess({ quiet = false } = {}): Promise<RunningStack & { dropped: () => number }> {
  Object.assign(process.env, { AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  let dropped = 0;
  if (quiet) {
    const write = process.stdout.write.bind(process.stdout) as (...parts: unknown[]) => boolean;
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
      typeof chunk === 'string' && chunk.startsWith('{') && chunk.includes('"level":"INFO"') ? (dropped++, true) : write(chunk, ...rest)) as typeof process.stdout.write;
  }
  // Removed at exit, after the listeners the stack registers (cognito-local's store folds its journal into
  // the data directory on exit), rather than with the other clean-ups.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stack-'));
  const started = performance.now();
  const { startLocalStack } = await import('../../infra/local/stack');
  const stack = await startLocalStack({ dataDir, port: 0, fresh: true });
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const stop = () => stack.stop().catch(() => undefined);
  cleanups.add(stop);
  return { info: stack.info, dataDir, readyMs: performance.now() - started, handlerMs: new Map(), stop, dropped: () => dropped };
}

type Org = StackInfo['orgs'][number] | { name: string; admin: { email: string; password: string } };

/** One password grant for an organization's admin per call. */
export function passwordGrant(info: StackInfo, org: Org): () => Promise<Response> {
  const body = new URLSearchParams({ grant_type: 'password', client_id: info.clientId, username: org.admin.email, password: org.admin.password });
  const url = `${info.authUrl}/auth/realms/${org.name}/protocol/openid-connect/token`;
  return () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
}

/** An admin's access token, renewed by `refresh()` a minute before it expires (call it outside timings). */
export async function accessToken(info: StackInfo, org: Org) {
  const grant = passwordGrant(info, org);
  let value = '';
  let renewAt = 0;
  const refresh = async () => {
    if (Date.now() < renewAt) return;
    const response = await grant();
    const body = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error(`The token endpoint answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
    [value, renewAt] = [body.access_token, Date.now() + ((body.expires_in ?? 300) - 60) * 1000];
  };
  await refresh();
  return {
    refresh,
    get value() {
      return value;
    },
    get bearer() {
      return `Bearer ${value}`;
    },
  };
}

/** A GET through the gateway (keep-alive), the body read; anything but 200 is an error. */
export async function apiGet(url: string, authorization: string, requestId?: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization, ...(requestId ? { 'x-request-id': requestId } : {}) } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

/**
 * The product's handlers of `groups` behind the local gateway, in this process (after `useFunctionEnv`):
 * a request sent to `url` runs the very handler the stack runs, so the capacity recorder sees every
 * AWS call it makes.
 */
export async function inProcessGateway(groups: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const [{ createGateway }, { resolveRoutes }, { subpathsFromEnv }] = await Promise.all([import('../../infra/local/gateway'), import('../../shared/api/routes'), import('../../shared/config')]);
  type Handlers = Parameters<typeof createGateway>[1];
  const handlers = Object.fromEntries(await Promise.all(groups.map(async (group) => [group, ((await import(`../../functions/${group}/handler`)) as { handler: unknown }).handler]))) as Handlers;
  const server = createGateway(resolveRoutes(subpathsFromEnv()), handlers, { log: () => undefined });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  cleanups.add(close);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close };
}
