/**
 * The local stack a benchmark runs against: a child process (`infra/local/main.ts`, its own process
 * group) or this very process; and requests to it. Everything started here, and every temporary
 * directory, is removed on exit, failure and Ctrl-C.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { StackInfo } from '../../infra/local/stack';
import { spawnLocalStack, type Launcher } from '../../infra/local/stack-child';
import { awaitLocalStack, NoStackError, passwordGrant } from '../../infra/stack-target';
import { createGateway } from '../../infra/local/gateway';
import { resolveRoutes, type ResourceGroup } from '../../shared/edge/api/routes';
import { envNames, subpathsFromEnv } from '../../shared/kernel/config';
import { check } from './series';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [START_TIMEOUT_MS, STOP_TIMEOUT_MS] = [60_000, 10_000];
/** How often a starting stack is asked whether it serves. */
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

/** Runs `step` at the end of the run, on failure and on Ctrl-C too. */
export const onCleanUp = (step: () => unknown) => void cleanups.add(step);

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanUp(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Harmless values for the configuration the product modules require, for a benchmark that runs them without a stack. */
export const placeholderConfig = {
  AWS_REGION: 'us-east-1',
  ...Object.fromEntries([envNames.tableName, envNames.bulkBucket, envNames.userPoolId, envNames.userPoolClientId].map((name) => [name, 'unused'])),
  [envNames.signingKey]: 'file:/unused',
  [envNames.tokenIssuer]: 'http://unused',
};

export interface RunningStack {
  info: StackInfo;
  dataDir: string;
  /** Milliseconds from spawn until a real API call answered 200 (a child), or until started (in this process). */
  readyMs: number;
  stop(options?: { strict?: boolean }): Promise<void>;
}

type Admin = { name: string; admin: { email: string; password: string } };
const grant = async (info: StackInfo, org: Admin) => {
  const response = await passwordGrant(info, org.name, org.admin.email, org.admin.password);
  return { status: response.status, ...((await response.json()) as { access_token?: string; expires_in?: number }) };
};

/** `GET /{user_subpath}/org/{org}/users/identity-provider`: the current user. */
export const currentUserUrl = (info: StackInfo, orgUuid: string) => `${info.apiUrl}/${info.userSubpath}/org/${orgUuid}/users/identity-provider`;

/** Whether the stack serves a real API call: the first organization's ADMIN signs in and reads itself. */
async function servesApiCall(info: StackInfo): Promise<boolean> {
  try {
    const { access_token: token } = await grant(info, info.orgs[0]!);
    if (!token) return false;
    await apiGet(currentUserUrl(info, info.orgs[0]!.uuid), `Bearer ${token}`);
    return true;
  } catch {
    return false; // Not listening yet.
  }
}

const stackErrorLines: string[] = [];
/** The last error and warning lines of the stacks this bench started: what a failed request met. */
export const stackErrors = (): string[] => [...stackErrorLines];

/** Starts the local stack as a child (PORT=0, `--fresh` unless told) and waits until it serves a real API call. */
export async function startStack({ dataDir = tempDir('bench-stack-'), fresh = true, launcher = 'node' as Launcher } = {}): Promise<RunningStack> {
  const [wallStart, started] = [Date.now(), performance.now()];
  // Its error lines are kept for the report of a failed run (`stackErrors`); the rest of its output is dropped.
  const child = spawnLocalStack([...(fresh ? ['--fresh'] : []), '--data-dir', dataDir], {
    env: { ...process.env, PORT: '0' },
    launcher,
    tail: 4000,
    onLine: (line) => {
      if (/"level":"(ERROR|WARN)"/.test(line)) stackErrorLines.push(line.slice(0, 2000));
      stackErrorLines.splice(0, Math.max(0, stackErrorLines.length - 20));
      return false;
    },
  });
  const kill = () => void child.stop('SIGKILL', 0);
  cleanups.add(kill);
  const stop = async ({ strict = false } = {}) => {
    const stopped = await child.stop('SIGTERM', STOP_TIMEOUT_MS);
    cleanups.delete(kill);
    check(stopped || !strict, `The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`);
  };
  // Only a stack.json written after this start counts (a killed stack leaves its own behind).
  const alive = () => child.child.exitCode === null;
  const outcome = await awaitLocalStack(dataDir, { alive, since: wallStart, timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS, serves: servesApiCall });
  if ('info' in outcome) return { info: outcome.info, dataDir, readyMs: performance.now() - started, stop };
  kill();
  const why = outcome.failed === 'exited' ? `it exited with code ${child.child.exitCode}` : `it was not serving after ${START_TIMEOUT_MS / 1000} s`;
  throw new NoStackError(`The local stack (${launcher}) did not start: ${why}\n${child.output().trim().split('\n').slice(-15).join('\n')}`);
}

/**
 * Starts the local stack in this process (its handlers, worker and emulators share this process's
 * memory and event loop). The JSON INFO lines its handlers print are dropped once formatted.
 */
export async function startInProcess(): Promise<RunningStack> {
  Object.assign(process.env, { AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  const write = process.stdout.write.bind(process.stdout) as (...parts: unknown[]) => boolean;
  const info = (chunk: unknown) => typeof chunk === 'string' && chunk.startsWith('{') && chunk.includes('"level":"INFO"');
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => info(chunk) || write(chunk, ...rest)) as typeof process.stdout.write;
  // Removed at exit, after the listeners the stack registers (cognito-local's store folds its journal
  // into the data directory on exit), rather than with the other clean-ups.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stack-'));
  const started = performance.now();
  const { startLocalStack } = await import('../../infra/local/stack');
  const stack = await startLocalStack({ dataDir, port: 0, fresh: true });
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const stop = () => stack.stop().catch(() => undefined);
  cleanups.add(stop);
  return { info: stack.info, dataDir, readyMs: performance.now() - started, stop };
}

/** An ADMIN's access token, renewed by `refresh()` a minute before it expires (call it outside timings). */
export async function accessToken(info: StackInfo, org: Admin) {
  let renewAt = 0;
  const token = {
    bearer: '',
    refresh: async () => {
      if (Date.now() < renewAt) return;
      const body = await grant(info, org);
      check(body.access_token, `The token endpoint answered ${body.status}: ${JSON.stringify(body).slice(0, 200)}`);
      [token.bearer, renewAt] = [`Bearer ${body.access_token}`, Date.now() + ((body.expires_in ?? 300) - 60) * 1000];
    },
  };
  await token.refresh();
  return token;
}

/**
 * The bench's HTTP client: `node:http` with a keep-alive agent, the kind of client the AWS SDK's raw
 * reads use, so that an API ÷ raw ratio compares the same client costs on both sides (`fetch` costs
 * about 1.8 ms more a request on this machine).
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** A GET through the gateway (keep-alive), the body read; anything but 2xx is an error. */
export const apiGet = (url: string, authorization: string): Promise<string> => apiCall('GET', url, authorization);

/** A request through the gateway, a JSON body sent (a string as it is) and the answer's text returned; anything but 2xx is an error. */
export function apiCall(method: string, url: string, authorization: string, body?: unknown, headers: Record<string, string> = {}): Promise<string> {
  const sent = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const sentHeaders = sent ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(sent)) } : {};
  return new Promise((resolveText, reject) => {
    const req = request(url, { method, agent, headers: { authorization, ...sentHeaders, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const [text, status] = [Buffer.concat(chunks).toString('utf8'), response.statusCode ?? 0];
        if (status >= 200 && status < 300) resolveText(text);
        else reject(new Error(`${method} ${url} answered ${status}: ${text.slice(0, 200)}`));
      });
    });
    req.on('error', reject);
    // As undici's default: a request that hears nothing for 5 minutes fails rather than hang the bench.
    req.setTimeout(300_000, () => req.destroy(new Error(`${method} ${url}: no answer within 300 s`)));
    req.end(sent);
  });
}

/**
 * The product's handler of `group` behind the local gateway in this process (its environment the
 * stack's): a request sent to `url` runs the very handler the stack runs, so `recordCalls` sees every
 * AWS call it makes.
 */
export async function inProcessGateway(group: string): Promise<{ url: string; close: () => Promise<void> }> {
  type Handlers = Parameters<typeof createGateway>[1];
  const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: Handlers[ResourceGroup] };
  const server = createGateway(resolveRoutes(subpathsFromEnv()), { [group]: handler } as Handlers, { log: () => undefined });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const close = () => new Promise<void>((done) => server.close(() => done()));
  cleanups.add(close);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close };
}
