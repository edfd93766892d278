/** The local stack in a child process (`infra/local/start.mjs`, its own process group) and requests to it; all started here is removed on exit, failure and Ctrl-C. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGateway } from '../../infra/local/gateway';
import { functionTimeoutMs, lambdaContext } from '../../infra/local/invoke';
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
  await Promise.race([steps.reduce<Promise<unknown>>((done, step) => done.then(step).catch(() => undefined), Promise.resolve()), sleep(STOP_TIMEOUT_MS)]);
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

/** `readyMs`: from spawn until a real API call answered 200. */
export type RunningStack = { info: StackInfo; dataDir: string; readyMs: number; stop(options?: { strict?: boolean }): Promise<void> };
/** The users API of an organization: `…/{user_subpath}/org/{org}`. */
export const orgUrl = (info: StackInfo, orgUuid: string) => `${info.apiUrl}/${info.userSubpath}/org/${orgUuid}`;
/** The first organization's ADMIN signs in and reads itself: the stack serves a real API call. */
const servesApiCall = (info: StackInfo) =>
  accessToken(info, info.orgs[0]!).then((token) => apiGet(`${orgUrl(info, info.orgs[0]!.uuid)}/users/identity-provider`, token.bearer)).then(Boolean, () => false);

const errorLines: string[] = [];
/** The last error and warning lines of the stacks this bench started: what a failed request met. */
export const stackErrors = (): string[] => [...errorLines];

/** Starts the local stack as a child (PORT=0, `--fresh` unless told) and waits until it serves a real API call. */
export async function startStack({ dataDir = tempDir('bench-stack-'), fresh = true, launcher = 'node' as Launcher } = {}): Promise<RunningStack> {
  const [wallStart, started] = [Date.now(), performance.now()];
  const onLine = (line: string) => {
    if (/"level":"(ERROR|WARN)"/.test(line)) errorLines.push(line.slice(0, 2000));
    errorLines.splice(0, Math.max(0, errorLines.length - 20));
    return false;
  };
  const child = spawnLocalStack([...(fresh ? ['--fresh'] : []), '--data-dir', dataDir], { env: { ...process.env, PORT: '0' }, launcher, tail: 4000, onLine });
  const kill = () => void child.stop('SIGKILL', 0);
  cleanups.add(kill);
  const stop = async ({ strict = false } = {}) => {
    const stopped = await child.stop('SIGTERM', STOP_TIMEOUT_MS);
    cleanups.delete(kill);
    check(stopped || !strict, `The local stack did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM: look for a process left in its group before the next run`);
  };
  // Only a stack.json written after this start counts (a killed stack leaves its own behind).
  const outcome = await awaitLocalStack(dataDir, { alive: () => child.child.exitCode === null, since: wallStart, timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS, serves: servesApiCall });
  if ('info' in outcome) return { info: outcome.info, dataDir, readyMs: performance.now() - started, stop };
  kill();
  const why = outcome.failed === 'exited' ? `it exited with code ${child.child.exitCode}` : `it was not serving after ${START_TIMEOUT_MS / 1000} s`;
  throw new NoStackError(`The local stack (${launcher}) did not start: ${why}; its last lines say why (\`npm start\` shows the same)\n${child.output().trim().split('\n').slice(-15).join('\n')}`);
}

/** Starts of each kind alternating on one data directory, each timed to serving (`samples`), then `then` timed on it (`thenMs`), then stopped. */
export async function timeStarts(kinds: { label: string; fresh: boolean; runs: number; launcher?: Launcher }[], progress: (message: string) => void, then: (stack: RunningStack) => Promise<unknown>) {
  const [dataDir, rows] = [tempDir('bench-starts-'), kinds.map((kind) => ({ ...kind, samples: [] as number[], thenMs: [] as number[] }))];
  for (let i = 0; i < Math.max(...kinds.map((kind) => kind.runs)); i++) {
    for (const row of rows.filter((r) => i < r.runs)) {
      progress(`${row.label}: ${i + 1} of ${row.runs}`);
      const stack = await startStack({ dataDir, fresh: row.fresh, launcher: row.launcher });
      row.samples.push(stack.readyMs);
      row.thenMs.push((await timed(() => then(stack)))[0]);
      await stack.stop({ strict: true });
    }
  }
  return rows;
}

/**
 * An ADMIN's access token, renewed by `refresh()` a minute before it expires, and by `renew()` at once
 * (after other sign-ins of the same user, which may have ended its session: a user keeps at most 100);
 * call both outside timings.
 */
export async function accessToken(info: StackInfo, org: { name: string; admin: { email: string; password: string } }) {
  let renewAt = 0;
  const token = {
    bearer: '',
    renew: () => ((renewAt = 0), token.refresh()),
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

// The kind of client the SDK's raw reads use, so that API ÷ raw compares like with like (`fetch` costs about 1.8 ms more a request on 2 CPUs).
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
/** A GET through the gateway, the body read; anything but 2xx is an error. */
export const apiGet = (url: string, authorization: string): Promise<string> => apiCall('GET', url, authorization);

/** A request through the gateway, a JSON body sent (a string as it is) and the answer's text returned; anything but 2xx is an error. */
export function apiCall(method: string, url: string, authorization: string, body?: unknown, headers: Record<string, string> = {}): Promise<string> {
  const sent = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const sentHeaders = sent ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(sent)) } : {};
  return new Promise((resolveText, reject) => {
    const req = request(url, { method, agent, headers: { authorization, ...sentHeaders, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
      response.on('end', () => {
        const [text, status] = [Buffer.concat(chunks).toString('utf8'), response.statusCode ?? 0];
        if (status >= 200 && status < 300) resolveText(text);
        else reject(new Error(`${method} ${url} answered ${status}: ${text.slice(0, 200)}; the stack's errors below say why`));
      });
    });
    // As undici's default: a request that hears nothing for 5 minutes fails rather than hang the bench.
    req.on('error', reject).setTimeout(300_000, () => req.destroy(new Error(`${method} ${url}: no answer within 300 s; the stack's errors below say why`)));
    req.end(sent);
  });
}

/** The status of a GET without credentials, its body read: what the gateway and the chain cost up to a refusal. */
export function statusOfGet(url: string): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(url, { agent }, (response) => {
      response.resume().on('end', () => resolveStatus(response.statusCode ?? 0)).on('error', reject);
    });
    req.on('error', reject).setTimeout(300_000, () => req.destroy(new Error(`GET ${url}: no answer within 300 s; the stack's errors below say why`)));
    req.end();
  });
}

type Handlers = Parameters<typeof createGateway>[1];

/** The product's handler of `group` behind the local gateway in this process, with the stack's environment, so that `recordCalls` sees every AWS call it makes. */
export async function inProcessGateway(group: string): Promise<{ url: string; close: () => Promise<void> }> {
  const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: Handlers[ResourceGroup] };
  const server = createGateway(resolveRoutes(subpathsFromEnv()), { [group]: handler } as Handlers, { log: () => undefined });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const close = () => new Promise<void>((done) => server.close(() => done()));
  cleanups.add(close);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close };
}

/**
 * The product's handler of `group` called in this process, without HTTP or the local gateway: with the
 * event the local gateway makes of a GET of `path` (made once, through a gateway whose function only
 * keeps it), a request id and authorization of its own at each call, and a Lambda context. What the
 * function's chain and use case cost beside their DynamoDB calls, apart from the HTTP hop and the stack's
 * process.
 */
export async function directHandler(group: ResourceGroup, path: string): Promise<(authorization: string) => Promise<{ statusCode: number; body?: string }>> {
  const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: Handlers[ResourceGroup] };
  let made: Parameters<Handlers[ResourceGroup]>[0] | undefined;
  const keep: Handlers[ResourceGroup] = async (event) => ((made = event), { statusCode: 204 });
  const server = createGateway(resolveRoutes(subpathsFromEnv()), { [group]: keep } as Handlers, { log: () => undefined });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  await apiGet(`http://127.0.0.1:${(server.address() as { port: number }).port}${path}`, '').finally(() => server.close());
  const event = made;
  check(event, `The local gateway did not route GET ${path} to the ${group} function: check the path against the route table`);
  return async (authorization) => {
    const result = await handler(
      { ...event, headers: { ...event.headers, authorization }, pathParameters: { ...event.pathParameters }, requestContext: { ...event.requestContext, requestId: randomUUID() } },
      lambdaContext(group, functionTimeoutMs(group)),
    );
    return result as { statusCode: number; body?: string };
  };
}
