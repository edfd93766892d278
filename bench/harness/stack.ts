/**
 * The local stack a benchmark runs against: a child process (`infra/local/main.ts`, its own process
 * group) or this very process. Everything started here, and every temporary directory, is removed on
 * exit, failure and Ctrl-C.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackInfo } from '../../infra/local/stack';
import { spawnLocalStack, type Launcher } from '../../infra/local/stack-child';
import { awaitLocalStack, NoStackError, passwordGrant } from '../../infra/stack-target';
import { envNames } from '../../shared/config';

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

/** Harmless values for the configuration the product modules require, for a benchmark that runs them without a stack. */
export const placeholderConfig = {
  AWS_REGION: 'us-east-1',
  ...Object.fromEntries([envNames.tableName, envNames.bulkBucket, envNames.userPoolId, envNames.userPoolClientId].map((name) => [name, 'unused'])),
  [envNames.signingKey]: 'file:/unused',
  [envNames.tokenIssuer]: 'http://unused',
};

/** Runs `step` at the end of the run, on failure and on Ctrl-C too. */
export const onCleanUp = (step: () => unknown) => void cleanups.add(step);

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanUp(() => rmSync(dir, { recursive: true, force: true }));
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
  /** A stack in this process: how many of its handlers' INFO log lines were dropped. */
  dropped?: () => number;
  stop(options?: { strict?: boolean }): Promise<void>;
}

/** The handler's `durationMs` of a "request completed" line of a `bench-` request; true for any line of one (not kept). */
function handlerLine(line: string, handlerMs: Map<string, number>): boolean {
  if (!line.includes('"bench-')) return false;
  if (line.startsWith('{') && line.includes('request completed')) {
    const entry = JSON.parse(line) as { requestId?: string; durationMs?: number };
    if (entry.requestId && typeof entry.durationMs === 'number') handlerMs.set(entry.requestId, entry.durationMs);
  }
  return true;
}

/** Whether the stack serves a real API call: a password grant, then a read with its token, both 200. */
async function servesApiCall(info: StackInfo): Promise<boolean> {
  const org = info.orgs[0];
  if (!org) return false;
  try {
    const grant = await passwordGrant(info, org.name, org.admin.email, org.admin.password);
    const { access_token } = (await grant.json()) as { access_token?: string };
    if (grant.status !== 200 || !access_token) return false;
    const me = await fetch(`${info.apiUrl}/${info.userSubpath}/org/${org.uuid}/users/identity-provider`, { headers: { authorization: `Bearer ${access_token}` } });
    await me.arrayBuffer();
    return me.status === 200;
  } catch {
    return false; // Not listening yet.
  }
}

/** Starts the local stack as a child (PORT=0, `--fresh` unless told) and waits until it serves. */
export async function startStack(options: { dataDir?: string; fresh?: boolean; launcher?: Launcher } = {}): Promise<RunningStack> {
  const { dataDir = tempDir('bench-stack-'), fresh = true, launcher = 'node' } = options;
  const wallStart = Date.now();
  const started = performance.now();
  const handlerMs = new Map<string, number>();
  const onLine = (line: string) => handlerLine(line, handlerMs);
  const child = spawnLocalStack([...(fresh ? ['--fresh'] : []), '--data-dir', dataDir], { env: { ...process.env, PORT: '0' }, launcher, tail: 4000, onLine });
  const kill = () => void child.stop('SIGKILL', 0);
  cleanups.add(kill);
  const stop = async ({ strict = false } = {}) => {
    const stopped = await child.stop('SIGTERM', STOP_TIMEOUT_MS);
    cleanups.delete(kill);
    if (!stopped && strict) throw new Error(`The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`);
  };
  // Only a stack.json written after this start counts (a killed stack leaves its own behind).
  const alive = () => child.child.exitCode === null;
  const outcome = await awaitLocalStack(dataDir, { alive, since: wallStart, timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS, serves: servesApiCall });
  if ('info' in outcome) return { info: outcome.info, dataDir, readyMs: performance.now() - started, handlerMs, stop };
  kill();
  const why = outcome.failed === 'exited' ? `it exited with code ${child.child.exitCode}` : `it was not serving after ${START_TIMEOUT_MS / 1000} s`;
  const output = child.output().trim().split('\n').slice(-15).join('\n');
  throw new NoStackError(`The local stack (${launcher === 'node' ? 'node --import tsx' : launcher}) did not start: ${why}\n${output}`);
}

/**
 * Starts the local stack in this process (so its handlers, worker and emulators share this process's
 * memory and event loop). `quiet` drops the JSON INFO log lines the handlers print, once formatted.
 */
export async function startInProcess({ quiet = false } = {}): Promise<RunningStack> {
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

/** An admin's access token, renewed by `refresh()` a minute before it expires (call it outside timings). */
export async function accessToken(info: StackInfo, org: { name: string; admin: { email: string; password: string } }) {
  let renewAt = 0;
  const token = {
    value: '',
    get bearer() {
      return `Bearer ${token.value}`;
    },
    refresh: async () => {
      if (Date.now() < renewAt) return;
      const response = await passwordGrant(info, org.name, org.admin.email, org.admin.password);
      const body = (await response.json()) as { access_token?: string; expires_in?: number };
      if (!body.access_token) throw new Error(`The token endpoint answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
      [token.value, renewAt] = [body.access_token, Date.now() + ((body.expires_in ?? 300) - 60) * 1000];
    },
  };
  await token.refresh();
  return token;
}

/** A GET through the gateway (keep-alive), the body read; anything but 200 is an error. */
export async function apiGet(url: string, authorization: string, requestId?: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization, ...(requestId ? { 'x-request-id': requestId } : {}) } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 200)}`);
  return body;
}

/**
 * The product's handlers of `groups` behind the local gateway, in this process (its environment the stack's):
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
