/**
 * The local stack a benchmark runs against, a child process (`infra/local/start.mjs`, its own process
 * group), and requests to it. Everything started here, and every temporary directory, is removed on
 * exit, failure and Ctrl-C.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGateway } from '../../infra/local/gateway';
import type { StackInfo } from '../../infra/local/stack';
import { spawnLocalStack, type Launcher } from '../../infra/local/stack-child';
import { awaitLocalStack, NoStackError, passwordGrant } from '../../infra/stack-target';
import { resolveRoutes, type ResourceGroup } from '../../shared/edge/api/routes';
import { envNames, subpathsFromEnv } from '../../shared/kernel/config';
import { check, timed } from './series';

export { projectRoot } from '../../infra/cloud/project-root';
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
  /** Milliseconds from spawn until a real API call answered 200. */
  readyMs: number;
  stop(options?: { strict?: boolean }): Promise<void>;
}

/** The users API of an organization: `…/{user_subpath}/org/{org}`. */
export const orgUrl = (info: StackInfo, orgUuid: string) => `${info.apiUrl}/${info.userSubpath}/org/${orgUuid}`;

/** Whether the stack serves a real API call: the first organization's ADMIN signs in and reads itself. */
async function servesApiCall(info: StackInfo): Promise<boolean> {
  try {
    const token = await accessToken(info, info.orgs[0]!);
    return Boolean(await apiGet(`${orgUrl(info, info.orgs[0]!.uuid)}/users/identity-provider`, token.bearer));
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
    check(stopped || !strict, `The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM: look for a process left in its group before the next run`);
  };
  // Only a stack.json written after this start counts (a killed stack leaves its own behind).
  const alive = () => child.child.exitCode === null;
  const outcome = await awaitLocalStack(dataDir, { alive, since: wallStart, timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS, serves: servesApiCall });
  if ('info' in outcome) return { info: outcome.info, dataDir, readyMs: performance.now() - started, stop };
  kill();
  const why = outcome.failed === 'exited' ? `it exited with code ${child.child.exitCode}` : `it was not serving after ${START_TIMEOUT_MS / 1000} s`;
  throw new NoStackError(`The local stack (${launcher}) did not start: ${why}; its last lines say why (\`npm start\` shows the same)\n${child.output().trim().split('\n').slice(-15).join('\n')}`);
}

/**
 * Starts of each kind (`--fresh`: an emptied data directory, the demo data seeded; or on the data the
 * last start left) on one data directory, alternating so that every kind sees the same load: each timed
 * from spawn to serving (`samples`), then `then` timed on the started stack (`thenMs`), then stopped.
 */
export async function timeStarts(kinds: { label: string; fresh: boolean; runs: number; launcher?: Launcher }[], progress: (message: string) => void, then?: (stack: RunningStack) => Promise<unknown>) {
  const [dataDir, rows] = [tempDir('bench-starts-'), kinds.map((kind) => ({ ...kind, samples: [] as number[], thenMs: [] as number[] }))];
  for (let i = 0; i < Math.max(...kinds.map((kind) => kind.runs)); i++) {
    for (const row of rows.filter((r) => i < r.runs)) {
      progress(`${row.label}: ${i + 1} of ${row.runs}`);
      const stack = await startStack({ dataDir, fresh: row.fresh, launcher: row.launcher });
      row.samples.push(stack.readyMs);
      if (then) row.thenMs.push((await timed(() => then(stack)))[0]);
      await stack.stop({ strict: true });
    }
  }
  return rows;
}

/** An ADMIN's access token, renewed by `refresh()` a minute before it expires (call it outside timings). */
export async function accessToken(info: StackInfo, org: { name: string; admin: { email: string; password: string } }) {
  let renewAt = 0;
  const token = {
    bearer: '',
    refresh: async () => {
      if (Date.now() < renewAt) return;
      const response = await passwordGrant(info, org.name, org.admin.email, org.admin.password);
      const body = (await response.json()) as { access_token?: string; expires_in?: number };
      check(body.access_token, `The token endpoint answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}; check the ADMIN's realm, e-mail and password`);
      [token.bearer, renewAt] = [`Bearer ${body.access_token}`, Date.now() + ((body.expires_in ?? 300) - 60) * 1000];
    },
  };
  await token.refresh();
  return token;
}

/**
 * The bench's HTTP client: `node:http` with a keep-alive agent, the kind of client the AWS SDK's raw
 * reads use, so that an API ÷ raw ratio compares the same client costs on both sides (`fetch` costs
 * about 1.8 ms more a request on a 2-CPU machine).
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
        else reject(new Error(`${method} ${url} answered ${status}: ${text.slice(0, 200)}; the stack's errors below say why`));
      });
    });
    req.on('error', reject);
    // As undici's default: a request that hears nothing for 5 minutes fails rather than hang the bench.
    req.setTimeout(300_000, () => req.destroy(new Error(`${method} ${url}: no answer within 300 s; the stack's errors below say why`)));
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
