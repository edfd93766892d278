/**
 * `npm run bench:bulk`: issue 5, "Speed". CSV files of 100, 1,000 and 10,000 valid rows imported through
 * the local stack's `POST …/users/bulk-create` (the last with `Prefer: respond-async`, polling the job),
 * next to the ceiling: the same users written directly with the calls the worker makes per user
 * (`registerUser`, the welcome e-mail, the welcomed mark), at the worker's concurrency, in the same run.
 * Rows per second, the process's peak memory during each import, and where a user's time goes.
 * Printed as markdown and written to bench/bulk-figures.md. A benchmark, not a test: it asserts nothing
 * about the figures.
 *
 * The local stack runs in this process (startLocalStack), so the bulk worker that the upload's S3 event
 * starts runs here too and `process.memoryUsage()` sees it; so do the emulators, which share the process.
 *
 * Options: `--large N` (rows of the asynchronous file; 10000 unless told), `--cap-min M` (minutes after
 * which a running import is abandoned and its partial progress reported; 25 unless told),
 * `--reduced N` (users of each reduced ceiling run next to the large file; 500 unless told).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobView } from '../shared/bulk/bulk.service';
import type { Bot, Environment } from '../shared/org/org.entities';
import { hardware, loadAverage, passwordGrant, projectRoot, runBenchmark, tempDir, type StackJson } from './support';

const REPORT = join(projectRoot, 'bench', 'bulk-figures.md');

/** The worker's default concurrency (runBulkCreateJob), used for the ceiling as well. */
const CONCURRENCY = 8;
/** How long `POST …/bulk-create` waits for the worker before answering 202 (functions/bulk/handler.ts). */
const SYNC_WAIT_S = 25;
const SMALL_SIZES = [100, 1000] as const;
/** Rows of each import and ceiling run before the measured ones (unreported): JIT, sockets, first items. */
const WARM_UP_ROWS = 20;
/** Users written one at a time, each call timed, to split a user's cost (at three pool sizes). */
const PROFILE_USERS = 20;
const MEMORY_SAMPLE_MS = 50;
const POLL_MS = 1000;

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a positive integer`);
  return value;
}
const LARGE = option('--large', 10_000);
const CAP_MS = option('--cap-min', 25) * 60_000;
const REDUCED = option('--reduced', 500);

const gc = (globalThis as { gc?: () => void }).gc;
const load = () => loadAverage(3);
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mins = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
const int = (value: number) => Math.round(value).toLocaleString('en');
const clock = () => new Date().toISOString().slice(11, 19);
const progress = (message: string) => console.log(`[${clock()}] ${message}`);

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

// ---------------------------------------------------------------------------------------------------
// Quiet INFO logs: the stack's handlers and the worker log a JSON line per request and per e-mail sent
// (the same in both paths). They are dropped here, after being formatted, so that the bench's output
// stays readable; WARN and ERROR lines are kept.

let droppedInfoLines = 0;
function dropInfoLogs(): void {
  const write = process.stdout.write.bind(process.stdout) as (...parts: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('{') && chunk.includes('"level":"INFO"')) {
      droppedInfoLines++;
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
}

// ---------------------------------------------------------------------------------------------------
// Product modules: imported only once the stack has put the functions' environment in process.env

async function loadProduct() {
  const [orgAdmin, userService, userAdmin, repository, configuration, storeKeys, table, cognito, dynamodb, ses, s3] = await Promise.all([
    import('../shared/org/org-admin.service'),
    import('../shared/users/user.service'),
    import('../shared/users/user-admin.service'),
    import('../shared/users/user.repository'),
    import('../shared/config'),
    import('../shared/store/keys'),
    import('../shared/store/table'),
    import('../shared/clients/cognito'),
    import('../shared/clients/dynamodb'),
    import('../shared/clients/ses'),
    import('../shared/clients/s3'),
  ]);
  return {
    createOrganization: orgAdmin.createOrganization,
    addEnvironment: orgAdmin.addEnvironment,
    addBot: orgAdmin.addBot,
    registerUser: userService.registerUser,
    mailUser: userAdmin.mailUser,
    userPorts: userAdmin.userPorts,
    getEmailClaim: repository.getEmailClaim,
    markWelcomed: repository.markWelcomed,
    config: configuration.config,
    keys: storeKeys.keys,
    updateItem: table.updateItem,
    clients: { cognito: cognito.cognitoClient(), dynamodb: dynamodb.documentClient(), ses: ses.sesClient(), s3: s3.s3Client() },
  };
}
type Product = Awaited<ReturnType<typeof loadProduct>>;

// ---------------------------------------------------------------------------------------------------
// Every AWS call of this process (the handlers', the worker's and the ceiling's share the clients),
// counted and timed per command by a middleware on each client.

interface CallFigure {
  calls: number;
  ms: number;
}

class CallLog {
  readonly byCommand = new Map<string, CallFigure>();
  /** performance.now() of the first call of each command since the last reset. */
  readonly firstAt = new Map<string, number>();

  record(command: string, started: number, elapsed: number): void {
    const figure = this.byCommand.get(command) ?? { calls: 0, ms: 0 };
    figure.calls += 1;
    figure.ms += elapsed;
    this.byCommand.set(command, figure);
    if (!this.firstAt.has(command)) this.firstAt.set(command, started);
  }

  reset(): void {
    this.byCommand.clear();
    this.firstAt.clear();
  }

  snapshot(): Map<string, CallFigure> {
    return new Map([...this.byCommand].map(([command, figure]) => [command, { ...figure }]));
  }
}

const calls = new CallLog();
const callCount = (callMap: Map<string, CallFigure>, command: string) => callMap.get(command)?.calls ?? 0;

function instrument(product: Product): void {
  for (const [service, client] of Object.entries(product.clients)) {
    type Next = (input: unknown) => Promise<unknown>;
    const stack = client.middlewareStack as unknown as {
      add(middleware: (next: Next, context: { commandName?: string }) => Next, options: { step: string; name: string }): void;
    };
    stack.add(
      (next, context) => async (input) => {
        const started = performance.now();
        try {
          return await next(input);
        } finally {
          calls.record(`${service} ${(context.commandName ?? 'unknown').replace(/Command$/, '')}`, started, performance.now() - started);
        }
      },
      { step: 'initialize', name: `bench-bulk-timing-${service}` },
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Organizations and users

interface BenchOrg {
  uuid: string;
  name: string;
  admin: { email: string; password: string };
  environment: Environment;
  bot: Bot;
}

async function newOrg(product: Product, name: string): Promise<BenchOrg> {
  const admin = { email: `admin@${name}.example.com`, password: 'Bench-Admin-1' };
  const { organization } = await product.createOrganization({ name, adminEmail: admin.email, adminName: `Admin of ${name}`, adminPassword: admin.password });
  const environment = await product.addEnvironment(organization.uuid, 'Bulk');
  const bot = await product.addBot(organization.uuid, environment.uuid, 'Bulk bot');
  return { uuid: organization.uuid, name, admin, environment, bot };
}

interface BenchUser {
  email: string;
  name: string;
  company: string;
  password: string;
}

/** User `i` of a set: the API file and the ceiling of the same size write the same users (in different organizations). */
const benchUser = (set: string, i: number): BenchUser => ({
  email: `user${String(i).padStart(5, '0')}.${set}@bulk-bench.example.com`,
  name: `Bench User ${i} ${set}`,
  company: `Company ${i % 40}`,
  password: `Bench-${i}-pw`,
});

/** A CSV of `rows` valid VIEWER rows with the organization's bot and given passwords. */
function csvFor(org: BenchOrg, set: string, rows: number): string {
  const lines = ['Email,Name,Company,Password,Role,EnvironmentUuid,EnvironmentName,Bot'];
  for (let i = 0; i < rows; i++) {
    const user = benchUser(set, i);
    lines.push([user.email, user.name, user.company, user.password, 'VIEWER', org.environment.uuid, org.environment.name, org.bot.uuid].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

// ---------------------------------------------------------------------------------------------------
// Measuring a phase: wall time, CPU of the process, memory samples, event-loop blocking, AWS calls

interface PhaseFigures {
  wallMs: number;
  cpuMs: number;
  baseline: NodeJS.MemoryUsage;
  peak: { heapUsed: number; rss: number };
  /** The peak heapUsed sampled before the phase's first AdminCreateUser (an import's upload, parsing and rules). */
  peakHeapBeforeFirstUser: number;
  /** Heap after the phase and a full GC, before the mailbox is cleared. */
  retainedHeap: number;
  /** The same after the SES emulator's mailbox is cleared. */
  retainedHeapWithoutMail: number;
  eventLoopMaxMs: number;
  eventLoopP99Ms: number;
  calls: Map<string, CallFigure>;
  /** Milliseconds from the phase's start to its first AdminCreateUser call. */
  firstUserMs: number | undefined;
  poolUsersBefore: number;
  poolFileBytesBefore: number;
  mails: number | undefined;
  load: string;
}

interface Measured<T> {
  result: T;
  figures: PhaseFigures;
}

interface Context {
  product: Product;
  info: StackJson & { mailboxUrl: string };
  poolFile: string;
}

const fullGc = () => {
  gc?.();
  gc?.();
};

function poolState(ctx: Context): { users: number; bytes: number } {
  if (!existsSync(ctx.poolFile)) return { users: 0, bytes: 0 };
  const text = readFileSync(ctx.poolFile, 'utf8');
  const users = Object.keys((JSON.parse(text) as { Users?: Record<string, unknown> }).Users ?? {}).length;
  return { users, bytes: statSync(ctx.poolFile).size };
}

async function clearMailbox(ctx: Context): Promise<void> {
  const base = ctx.info.mailboxUrl.replace(/\/store$/, '');
  const response = await fetch(`${base}/clear-store`, { method: 'POST' });
  await response.arrayBuffer();
  check(response.ok, `Clearing the SES emulator's mailbox answered ${response.status}`);
}

async function mailCount(ctx: Context): Promise<number> {
  const response = await fetch(ctx.info.mailboxUrl);
  const body = (await response.json()) as { emails?: unknown[] };
  return body.emails?.length ?? 0;
}

/** Runs `work` as one phase; the wall time ends when `work` calls `end` (or returns). */
async function measure<T>(ctx: Context, rows: number, work: (end: () => void) => Promise<T>): Promise<Measured<T>> {
  const pool = poolState(ctx);
  await clearMailbox(ctx);
  fullGc();
  const baseline = process.memoryUsage();
  const peak = { heapUsed: baseline.heapUsed, rss: baseline.rss };
  let peakHeapBeforeFirstUser = baseline.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
    peak.rss = Math.max(peak.rss, now.rss);
    if (!calls.firstAt.has('cognito AdminCreateUser')) peakHeapBeforeFirstUser = Math.max(peakHeapBeforeFirstUser, now.heapUsed);
  };
  const sampler = setInterval(sample, MEMORY_SAMPLE_MS);
  const eventLoop = monitorEventLoopDelay({ resolution: 10 });
  eventLoop.enable();
  calls.reset();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  let endedAt: number | undefined;
  let result: T;
  try {
    result = await work(() => (endedAt ??= performance.now()));
  } finally {
    clearInterval(sampler);
    eventLoop.disable();
  }
  const wallMs = (endedAt ?? performance.now()) - started;
  const cpu = process.cpuUsage(cpuStart);
  sample();
  const firstUser = calls.firstAt.get('cognito AdminCreateUser');
  const snapshot = calls.snapshot();
  const mails = rows <= 1000 ? await mailCount(ctx) : undefined;
  fullGc();
  const retainedHeap = process.memoryUsage().heapUsed;
  await clearMailbox(ctx);
  fullGc();
  return {
    result,
    figures: {
      wallMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      baseline,
      peak,
      peakHeapBeforeFirstUser,
      retainedHeap,
      retainedHeapWithoutMail: process.memoryUsage().heapUsed,
      eventLoopMaxMs: eventLoop.max / 1e6,
      eventLoopP99Ms: eventLoop.percentile(99) / 1e6,
      calls: snapshot,
      firstUserMs: firstUser === undefined ? undefined : firstUser - started,
      poolUsersBefore: pool.users,
      poolFileBytesBefore: pool.bytes,
      mails,
      load: loadAverage(1),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The API import

interface ImportResult {
  mode: 'sync' | 'async';
  csvBytes: number;
  /** The POST's answer: status and milliseconds. */
  answer: { status: number; ms: number };
  job: JobView | undefined;
  /** The job's own time: createdAt (before the upload is stored) to its last update (finishJob). */
  jobMs: number | undefined;
  aborted: boolean;
  dryRun: boolean;
  /** When abandoned at the cap: how long the worker took to stop once its lease was taken, and the users it created meanwhile. */
  drain?: { ms: number; users: number };
}

/**
 * Stops a job's worker the way the product lets one run stop another: the job's lease is given to
 * another run id, so the worker's next heartbeat (every LEASE_MS / 3) finds it lost and its lanes stop
 * before their next user. Waits until no Cognito call has been made for 5 s.
 */
async function abandonJob(ctx: Context, orgUuid: string, jobId: string): Promise<{ ms: number; users: number }> {
  const started = performance.now();
  const usersAtStart = callCount(calls.byCommand, 'cognito AdminCreateUser');
  await ctx.product.updateItem({
    Key: ctx.product.keys.bulkJob(orgUuid, jobId),
    UpdateExpression: 'SET lease = :lease',
    ExpressionAttributeValues: { ':lease': { runId: 'bench-abandoned', until: Date.now() + 3_600_000 } },
  });
  let seen = -1;
  let quietSince = performance.now();
  while (performance.now() - quietSince < 5000 && performance.now() - started < 180_000) {
    const now = callCount(calls.byCommand, 'cognito AdminCreateUser') + callCount(calls.byCommand, 'cognito AdminSetUserPassword');
    if (now !== seen) {
      seen = now;
      quietSince = performance.now();
    }
    await sleep(250);
  }
  return { ms: performance.now() - started, users: callCount(calls.byCommand, 'cognito AdminCreateUser') - usersAtStart };
}

function tokenSource(ctx: Context, org: BenchOrg): () => Promise<string> {
  const grant = passwordGrant(ctx.info, { uuid: org.uuid, name: org.name, admin: org.admin });
  let token = { value: '', renewAt: 0 };
  return async () => {
    if (Date.now() >= token.renewAt) {
      const response = await grant();
      const body = (await response.json()) as { access_token?: string; expires_in?: number };
      check(response.status === 200 && Boolean(body.access_token), `The token endpoint answered ${response.status}`);
      token = { value: body.access_token!, renewAt: Date.now() + ((body.expires_in ?? 300) - 60) * 1000 };
    }
    return token.value;
  };
}

async function apiImport(ctx: Context, org: BenchOrg, set: string, rows: number, mode: 'sync' | 'async', dryRun = false): Promise<Measured<ImportResult>> {
  const csv = csvFor(org, set, rows);
  const bearer = tokenSource(ctx, org);
  await bearer();
  const base = `${ctx.info.apiUrl}/${ctx.info.userSubpath}/org/${org.uuid}`;
  return measure(ctx, rows, async (end) => {
    const started = performance.now();
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), `users-${rows}.csv`);
    const response = await fetch(`${base}/users/bulk-create${dryRun ? '?dryRun=true' : ''}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await bearer()}`, ...(mode === 'async' ? { prefer: 'respond-async' } : {}) },
      body: form,
    });
    const text = await response.text();
    const answer = { status: response.status, ms: performance.now() - started };
    const location = response.headers.get('location');
    check((response.status === 200 || response.status === 202) && location !== null, `bulk-create answered ${response.status}: ${text.slice(0, 300)}`);
    const jobUrl = new URL(location!, ctx.info.apiUrl).toString();
    const readJob = async () => {
      const jobResponse = await fetch(jobUrl, { headers: { authorization: `Bearer ${await bearer()}` } });
      const body = await jobResponse.text();
      check(jobResponse.status === 200, `The job answered ${jobResponse.status}: ${body.slice(0, 300)}`);
      return JSON.parse(body) as JobView;
    };
    let job: JobView | undefined;
    let aborted = false;
    if (response.status === 202) {
      let lastReport = performance.now();
      for (;;) {
        job = await readJob();
        if (job.status === 'done' || job.status === 'failed') break;
        if (performance.now() - started > CAP_MS) {
          aborted = true;
          break;
        }
        if (performance.now() - lastReport > 60_000) {
          lastReport = performance.now();
          progress(`  ${rows} rows: ${job.progress.processed} of ${job.progress.total} processed after ${secs(performance.now() - started)}`);
        }
        await sleep(POLL_MS);
      }
    }
    end();
    // The job's timestamps and counts (a 200 answers with the error list only): not in the wall time.
    if (!aborted) job = await readJob();
    const jobMs = job && !aborted ? Date.parse(job.updatedAt) - Date.parse(job.createdAt) : undefined;
    const drain = aborted ? await abandonJob(ctx, org.uuid, jobUrl.split('/').at(-1)!) : undefined;
    return { mode, csvBytes: Buffer.byteLength(csv), answer, job, jobMs, aborted, dryRun, ...(drain ? { drain } : {}) };
  });
}

// ---------------------------------------------------------------------------------------------------
// The ceiling: what the worker does for each user (createOne), without the worker: no CSV, no rules,
// no job, no rule-1 lookups, no claim pre-check, same concurrency.

interface CeilingResult {
  users: number;
}

async function eachLimited(count: number, limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function writeDirectly(product: Product, org: BenchOrg, user: BenchUser): Promise<void> {
  const ports = product.userPorts();
  const template = product.config().signInUrl ?? '';
  const mail = { language: 'en' as const, signInUrl: (realm: string) => template.replaceAll('{realm}', encodeURIComponent(realm)) };
  const created = await product.registerUser(
    {
      orgUuid: org.uuid,
      name: user.name,
      email: user.email,
      password: user.password,
      role: 'VIEWER',
      permissions: [{ environmentUuid: org.environment.uuid, botUuid: org.bot.uuid }],
      company: user.company,
    },
    ports.identityProvider,
  );
  await product.mailUser('welcome', created, mail, ports.mailer, user.password);
  await product.markWelcomed(org.uuid, created.uuid);
}

function ceiling(ctx: Context, org: BenchOrg, set: string, users: number): Promise<Measured<CeilingResult>> {
  return measure(ctx, users, async () => {
    await eachLimited(users, CONCURRENCY, (i) => writeDirectly(ctx.product, org, benchUser(set, i)));
    return { users };
  });
}

// ---------------------------------------------------------------------------------------------------
// Where a user's time goes: users written one at a time (the worker's claim pre-check, then what the
// ceiling does), every AWS call timed by the middleware; nothing else runs meanwhile.

interface Profile {
  label: string;
  poolUsers: number;
  poolFileBytes: number;
  users: number;
  wallMsPerUser: number;
  calls: Map<string, CallFigure>;
}

async function profile(ctx: Context, label: string, orgName: string): Promise<Profile> {
  const org = await newOrg(ctx.product, orgName);
  const pool = poolState(ctx);
  calls.reset();
  const started = performance.now();
  for (let i = 0; i < PROFILE_USERS; i++) {
    const user = benchUser(orgName, i);
    await ctx.product.getEmailClaim(org.uuid, user.email);
    await writeDirectly(ctx.product, org, user);
  }
  const wallMsPerUser = (performance.now() - started) / PROFILE_USERS;
  await clearMailbox(ctx);
  return { label, poolUsers: pool.users, poolFileBytes: pool.bytes, users: PROFILE_USERS, wallMsPerUser, calls: calls.snapshot() };
}

// ---------------------------------------------------------------------------------------------------
// The run

interface SizeFigures {
  rows: number;
  api: Measured<ImportResult>;
  /** The ceiling at the same size, or reduced runs before and after the import. */
  ceilings: { label: string; run: Measured<CeilingResult> }[];
  /** Per-user milliseconds of the ceiling for this size (measured, or extrapolated from reduced runs). */
  ceilingMsPerUser: number;
  ceilingExtrapolated: boolean;
}

interface RunFigures {
  /** `?dryRun=true` imports of each file: the upload, parsing and rules 1-7 (rule 1's lookups included), no user created. */
  dryRuns: Measured<ImportResult>[];
  sizes: SizeFigures[];
  profiles: Profile[];
  readyMs: number;
  load: { start: string; end: string };
}

async function run(ctx: Context, readyMs: number, loadAtStart: string): Promise<RunFigures> {
  const { product } = ctx;
  const sizes: SizeFigures[] = [];
  const profiles: Profile[] = [];
  const dryRuns: Measured<ImportResult>[] = [];

  progress('warm-up (unreported)');
  const warmApi = await newOrg(product, 'bulk-warm-api');
  const warmCeiling = await newOrg(product, 'bulk-warm-ceiling');
  await apiImport(ctx, warmApi, 'warm', WARM_UP_ROWS, 'sync');
  await ceiling(ctx, warmCeiling, 'warm', WARM_UP_ROWS);

  for (const rows of [...SMALL_SIZES, LARGE]) {
    progress(`dry run ${rows}`);
    const dry = await apiImport(ctx, await newOrg(product, `bulk-dry-${rows}`), `s${rows}`, rows, rows === LARGE ? 'async' : 'sync', true);
    progress(`  ${secs(dry.figures.wallMs)}`);
    dryRuns.push(dry);
  }

  profiles.push(await profile(ctx, 'before the 100-row runs', 'bulk-profile-a'));

  // Each size: the ceiling first, then the API import, so the import meets the larger pool.
  for (const rows of SMALL_SIZES) {
    const set = `s${rows}`;
    const ceilingOrg = await newOrg(product, `bulk-ceiling-${rows}`);
    progress(`ceiling ${rows}`);
    const ceilingRun = await ceiling(ctx, ceilingOrg, set, rows);
    progress(`  ${secs(ceilingRun.figures.wallMs)}`);
    const apiOrg = await newOrg(product, `bulk-api-${rows}`);
    progress(`API import ${rows} (synchronous)`);
    const api = await apiImport(ctx, apiOrg, set, rows, 'sync');
    progress(`  ${secs(api.figures.wallMs)}, answered ${api.result.answer.status}`);
    sizes.push({ rows, api, ceilings: [{ label: 'same size', run: ceilingRun }], ceilingMsPerUser: ceilingRun.figures.wallMs / rows, ceilingExtrapolated: false });
  }

  profiles.push(await profile(ctx, 'after the 1,000-row runs', 'bulk-profile-b'));

  // The large file: reduced ceilings before and after it, extrapolated (cognito-local's cost per user
  // grows with the pool, so the two bracket the pool sizes the import meets).
  const set = `s${LARGE}`;
  progress(`ceiling ${REDUCED} (reduced, before the ${LARGE}-row import)`);
  const before = await ceiling(ctx, await newOrg(product, `bulk-ceiling-${LARGE}-before`), set, REDUCED);
  progress(`  ${secs(before.figures.wallMs)}`);
  const apiOrg = await newOrg(product, `bulk-api-${LARGE}`);
  progress(`API import ${LARGE} (Prefer: respond-async), cap ${CAP_MS / 60_000} min`);
  const api = await apiImport(ctx, apiOrg, set, LARGE, 'async');
  const { drain } = api.result;
  progress(`  ${secs(api.figures.wallMs)}${drain ? ` (abandoned at the cap; the worker stopped ${secs(drain.ms)} later, after ${drain.users} more users)` : ''}`);
  const ceilings = [{ label: `${REDUCED} users before the import`, run: before }];
  progress(`ceiling ${REDUCED} (reduced, after the ${LARGE}-row import)`);
  const after = await ceiling(ctx, await newOrg(product, `bulk-ceiling-${LARGE}-after`), set, REDUCED);
  progress(`  ${secs(after.figures.wallMs)}`);
  ceilings.push({ label: `${REDUCED} users after the import`, run: after });
  profiles.push(await profile(ctx, `after the ${LARGE.toLocaleString('en')}-row runs`, 'bulk-profile-c'));
  const perUser = ceilings.map((c) => c.run.figures.wallMs / REDUCED);
  sizes.push({ rows: LARGE, api, ceilings, ceilingMsPerUser: perUser.reduce((a, b) => a + b, 0) / perUser.length, ceilingExtrapolated: true });

  return { dryRuns, sizes, profiles, readyMs, load: { start: loadAtStart, end: load() } };
}

// ---------------------------------------------------------------------------------------------------
// The report

function productVersion(): string {
  const git = (...gitArgs: string[]) => spawnSync('git', gitArgs, { cwd: projectRoot, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = git('status', '--porcelain', '--', 'shared', 'functions', 'infra');
  return `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${changed ? ` with uncommitted changes to ${changed.split('\n').length} file(s) of shared/, functions/ or infra/` : ''}`;
}

const SERVICES = ['cognito', 'dynamodb', 'ses', 's3'] as const;

function callsPerUser(callMap: Map<string, CallFigure>, users: number): string {
  return SERVICES.map((service) => {
    const total = [...callMap].filter(([command]) => command.startsWith(`${service} `)).reduce((sum, [, figure]) => sum + figure.calls, 0);
    return `${service} ${(total / Math.max(1, users)).toFixed(2)}`;
  }).join(', ');
}

function dynamoDetail(callMap: Map<string, CallFigure>, users: number): string {
  return [...callMap]
    .filter(([command]) => command.startsWith('dynamodb '))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([command, figure]) => `${command.replace('dynamodb ', '')} ${(figure.calls / Math.max(1, users)).toFixed(2)}`)
    .join(', ');
}

function formatReport(run: RunFigures, totalMs: number, version: { start: string; end: string }): string {
  const heapDelta = (f: PhaseFigures) => f.peak.heapUsed - f.baseline.heapUsed;
  const rssDelta = (f: PhaseFigures) => f.peak.rss - f.baseline.rss;
  const cpuCell = (f: PhaseFigures) => `${secs(f.cpuMs)} (${((100 * f.cpuMs) / f.wallMs).toFixed(0)} %)`;
  /** Rows an import got through: all, or what the job reported processed when it was abandoned. */
  const rowsOf = (size: SizeFigures) => (size.api.result.aborted ? (size.api.result.job?.progress.processed ?? 0) : size.rows);
  /** Users an import's phase created (every AdminCreateUser the process made, the drain after a cap included). */
  const usersIn = (f: PhaseFigures) => callCount(f.calls, 'cognito AdminCreateUser');
  const apiRate = (size: SizeFigures) => rowsOf(size) / (size.api.figures.wallMs / 1000);
  const ceilingRate = (size: SizeFigures) => 1000 / size.ceilingMsPerUser;
  const ratioOf = (size: SizeFigures) => apiRate(size) / ceilingRate(size);
  const large = run.sizes.find((size) => size.rows === LARGE)!;
  const thousand = run.sizes.find((size) => size.rows === 1000);

  const mainRows: string[] = [];
  for (const size of run.sizes) {
    const { result: r, figures: f } = size.api;
    const counts = r.aborted
      ? `${int(rowsOf(size))} processed of ${int(size.rows)} at the cap`
      : r.job
        ? `${int(r.job.counts.created)} / ${int(r.job.counts.rows)}${r.job.counts.failed ? `, ${r.job.counts.failed} failed` : ''}`
        : '–';
    const how =
      r.mode === 'sync'
        ? `API, synchronous (answered ${r.answer.status} after ${secs(r.answer.ms)})`
        : `API, \`Prefer: respond-async\` (202 after ${secs(r.answer.ms)}), polled every ${POLL_MS / 1000} s${r.aborted ? `, **abandoned after ${mins(CAP_MS)}**` : ''}`;
    const rate = r.aborted ? `${apiRate(size).toFixed(1)} (partial)` : apiRate(size).toFixed(1);
    mainRows.push(
      `| ${int(size.rows)} | ${how} | ${counts} | ${int(f.poolUsersBefore)} | ${secs(f.wallMs)} | **${rate}** | ${r.jobMs === undefined ? '–' : secs(r.jobMs)} | ${f.firstUserMs === undefined ? '–' : secs(f.firstUserMs)} | ${cpuCell(f)} | ${mib(heapDelta(f))} | ${f.eventLoopMaxMs.toFixed(0)} | ${f.load} |`,
    );
    for (const c of size.ceilings) {
      const cf = c.run.figures;
      mainRows.push(
        `| ${int(size.rows)} | ceiling (${c.label}) | ${int(c.run.result.users)} | ${int(cf.poolUsersBefore)} | ${secs(cf.wallMs)} | ${(c.run.result.users / (cf.wallMs / 1000)).toFixed(1)} | – | – | ${cpuCell(cf)} | ${mib(heapDelta(cf))} | ${cf.eventLoopMaxMs.toFixed(0)} | ${cf.load} |`,
      );
    }
  }

  const ratioRows = run.sizes.map((size) => {
    const ceilingCell = size.ceilingExtrapolated
      ? `${ceilingRate(size).toFixed(1)} rows/s, **extrapolated, not measured**: the mean per-user time of the reduced runs before and after the import (${size.ceilings.map((c) => `${(c.run.figures.wallMs / c.run.result.users).toFixed(1)} ms`).join(' and ')})`
      : `${ceilingRate(size).toFixed(1)} rows/s, measured (${secs(size.ceilingMsPerUser * size.rows)})`;
    const apiCell = size.api.result.aborted ? `${apiRate(size).toFixed(1)} rows/s over the ${int(rowsOf(size))} rows done by the cap` : `${apiRate(size).toFixed(1)} rows/s`;
    const verdict = ratioOf(size) >= 0.5 ? 'met' : 'not met';
    return `| ${int(size.rows)} | ${apiCell} | ${ceilingCell} | **${ratioOf(size).toFixed(2)}** | ${verdict}${size.api.result.aborted ? ' (on the part done)' : ''} |`;
  });

  const syncVerdict = thousand
    ? thousand.api.result.answer.status === 200
      ? `**met**: the synchronous call answered 200 with the outcome after ${secs(thousand.api.result.answer.ms)} (limit ${SYNC_WAIT_S} s)`
      : `**not met**: the synchronous call answered ${thousand.api.result.answer.status} (the job still running) after ${secs(thousand.api.result.answer.ms)}; the job finished ${secs(thousand.api.figures.wallMs)} after the POST, ${(thousand.api.figures.wallMs / 1000 / SYNC_WAIT_S).toFixed(1)}× the limit`
    : 'not measured';

  const largeExtrapolation = large.api.result.aborted
    ? `The ${int(LARGE)}-row import did not finish within the ${mins(CAP_MS)} cap: ${int(rowsOf(large))} rows were processed by then (job progress, reported every 25 users), at ${apiRate(large).toFixed(2)} rows/s. ` +
      `The bench then took the job's lease away (as a second run taking over would); the worker noticed at its next heartbeat and stopped ${secs(large.api.result.drain!.ms)} later, after ${int(large.api.result.drain!.users)} more users. ` +
      `At the ceiling's pace the whole file would take about ${mins(LARGE * large.ceilingMsPerUser)} (${int(LARGE)} × the reduced runs' mean ms per user; **extrapolated**, and optimistic, since the pool keeps growing past the last reduced run)`
    : `The ${int(LARGE)}-row import finished in ${mins(large.api.figures.wallMs)}; the ceiling for it is **extrapolated**: ${int(LARGE)} × the reduced runs' mean ms per user = ${mins(LARGE * large.ceilingMsPerUser)}`;

  const dryRows = run.dryRuns.map(({ result: r, figures: f }) => {
    const rows = r.job?.counts.rows ?? 0;
    return `| ${int(rows)} | ${kib(r.csvBytes)} | ${r.mode === 'sync' ? `synchronous, answered ${r.answer.status}` : '`Prefer: respond-async`, polled'} | ${secs(f.wallMs)} | ${r.jobMs === undefined ? '–' : secs(r.jobMs)} | ${(rows / (f.wallMs / 1000)).toFixed(0)} | ${cpuCell(f)} | ${mib(heapDelta(f))} | ${mib(rssDelta(f))} | ${f.eventLoopMaxMs.toFixed(0)} | ${dynamoDetail(f.calls, rows)} |`;
  });

  const memoryRows = run.sizes
    .flatMap((size) => [
      { label: `${int(size.rows)} rows, API${size.api.result.aborted ? ' (abandoned at the cap)' : ''}`, f: size.api.figures, csv: size.api.result.csvBytes },
      ...size.ceilings.map((c) => ({ label: `${int(c.run.result.users)} users, ceiling (${c.label})`, f: c.run.figures, csv: undefined })),
    ])
    .map(
      ({ label, f, csv }) =>
        `| ${label} | ${csv === undefined ? '–' : kib(csv)} | ${mib(f.baseline.heapUsed)} | ${mib(heapDelta(f))} | ${csv === undefined ? '–' : mib(f.peakHeapBeforeFirstUser - f.baseline.heapUsed)} | ${mib(f.baseline.rss)} | ${mib(rssDelta(f))} | ${mib(f.retainedHeap - f.baseline.heapUsed)} | ${mib(f.retainedHeapWithoutMail - f.baseline.heapUsed)} | ${mib(f.peak.heapUsed - f.retainedHeap)} | ${mib(f.poolFileBytesBefore)} | ${f.mails === undefined ? 'not counted' : int(f.mails)} |`,
    );

  // Per-user split from the profiles: mean latency per call, summed per service.
  const commands = [...new Set(run.profiles.flatMap((p) => [...p.calls.keys()]))].sort();
  const profileHeader = `| call | ${run.profiles.map((p) => `${p.label} (pool ${int(p.poolUsers)} users, file ${mib(p.poolFileBytes)}): calls/user · ms/call`).join(' | ')} |`;
  const profileRows = commands.map((command) => {
    const cells = run.profiles.map((p) => {
      const figure = p.calls.get(command);
      return figure ? `${(figure.calls / p.users).toFixed(1)} · ${(figure.ms / figure.calls).toFixed(2)}` : '–';
    });
    return `| ${command} | ${cells.join(' | ')} |`;
  });
  const serviceMs = (p: Profile, service: string) => [...p.calls].filter(([command]) => command.startsWith(`${service} `)).reduce((sum, [, figure]) => sum + figure.ms, 0) / p.users;
  const serviceRows = SERVICES.filter((service) => service !== 's3').map((service) => {
    const cells = run.profiles.map((p) => `**${serviceMs(p, service).toFixed(1)} ms** (${((100 * serviceMs(p, service)) / p.wallMsPerUser).toFixed(0)} %)`);
    return `| ${service}, per user | ${cells.join(' | ')} |`;
  });
  const restRow = `| the rest (in-process code between calls), per user | ${run.profiles
    .map((p) => `${(p.wallMsPerUser - [...p.calls.values()].reduce((sum, figure) => sum + figure.ms, 0) / p.users).toFixed(1)} ms`)
    .join(' | ')} |`;
  const wallRow = `| **one user, one at a time** | ${run.profiles.map((p) => `**${p.wallMsPerUser.toFixed(1)} ms**`).join(' | ')} |`;

  const callRows = run.sizes.flatMap((size) => [
    `| ${int(size.rows)} rows, API | ${callsPerUser(size.api.figures.calls, usersIn(size.api.figures))} | ${dynamoDetail(size.api.figures.calls, usersIn(size.api.figures))} |`,
    ...size.ceilings.map(
      (c) => `| ${int(c.run.result.users)} users, ceiling (${c.label}) | ${callsPerUser(c.run.figures.calls, c.run.result.users)} | ${dynamoDetail(c.run.figures.calls, c.run.result.users)} |`,
    ),
  ]);

  // Reading the figures: derived from the measurements above.
  const [firstProfile, , lastProfile] = [run.profiles[0]!, run.profiles[1], run.profiles.at(-1)!];
  const middleProfile = run.profiles[1] ?? lastProfile;
  /** Cognito ms per user added by each user already in the pool (first and last profile). */
  const cognitoSlope = (serviceMs(lastProfile, 'cognito') - serviceMs(firstProfile, 'cognito')) / Math.max(1, lastProfile.poolUsers - firstProfile.poolUsers);
  const beforeRun = large.ceilings[0]!.run;
  const getItemsPerUser = (f: PhaseFigures, users: number) => callCount(f.calls, 'dynamodb GetItem') / Math.max(1, users);
  const extraGets = run.sizes.map(
    (size) => `${(getItemsPerUser(size.api.figures, usersIn(size.api.figures)) - getItemsPerUser(size.ceilings[0]!.run.figures, size.ceilings[0]!.run.result.users)).toFixed(1)} at ${int(size.rows)} rows`,
  );
  const orderBias = run.sizes
    .filter((size) => !size.ceilingExtrapolated)
    .map((size) => {
      const handicap = cognitoSlope * (size.api.figures.poolUsersBefore - size.ceilings[0]!.run.figures.poolUsersBefore);
      const apiMs = size.api.figures.wallMs / rowsOf(size);
      return `${int(size.rows)} rows: about ${handicap.toFixed(1)} ms of the API's ${apiMs.toFixed(1)} ms per row, which would make the ratio about ${(size.ceilingMsPerUser / (apiMs - handicap)).toFixed(2)}`;
    });
  const dry = (rows: number) => run.dryRuns.find((d) => d.result.job?.counts.rows === rows);
  const dryLarge = dry(LARGE);
  const dryThousand = dry(1000);
  const perRowKiB = dryLarge && dryThousand ? (heapDelta(dryLarge.figures) - heapDelta(dryThousand.figures)) / (LARGE - 1000) / 1024 : undefined;
  const thousandCeilingS = thousand ? (thousand.ceilingMsPerUser * 1000) / 1000 : undefined;
  const concurrentMs = beforeRun.figures.wallMs / beforeRun.result.users;
  const transient = (f: PhaseFigures) => f.peak.heapUsed - f.retainedHeap;
  const largeTransient = transient(large.api.figures);
  const thousandTransient = thousand ? transient(thousand.api.figures) : largeTransient;
  const planGrows = dryLarge && dryThousand ? heapDelta(dryLarge.figures) > 1.5 * heapDelta(dryThousand.figures) : false;
  const reading = [
    `- **Locally the whole process is bound to one thread.** The process used ${run.sizes.map((size) => `${((100 * size.api.figures.cpuMs) / size.api.figures.wallMs).toFixed(0)} %`).join(', ')} of a CPU during the imports and up to ${Math.max(...run.sizes.flatMap((size) => size.ceilings.map((c) => (100 * c.run.figures.cpuMs) / c.run.figures.wallMs))).toFixed(0)} % during the ceilings, and ${CONCURRENCY} users at a time are ${concurrentMs >= 0.8 * middleProfile.wallMsPerUser ? 'no faster than one' : 'only somewhat faster than one'}: the ceiling's ${(beforeRun.figures.wallMs / beforeRun.result.users).toFixed(1)} ms per user (${CONCURRENCY} at a time, pool ${int(beforeRun.figures.poolUsersBefore)} to ${int(beforeRun.figures.poolUsersBefore + beforeRun.result.users)}) against ${middleProfile.wallMsPerUser.toFixed(1)} ms one at a time (pool ${int(middleProfile.poolUsers)}). ` +
      "The emulators do their work on the same event loop as the worker, so a rate here is the inverse of the CPU a user costs, and the worker's concurrency only overlaps waiting, of which there is little.",
    `- **cognito-local sets the pace, and it slows down as its pool grows**: its two calls per user cost ${serviceMs(firstProfile, 'cognito').toFixed(1)} ms with ${int(firstProfile.poolUsers)} users in the pool, ${serviceMs(middleProfile, 'cognito').toFixed(1)} ms with ${int(middleProfile.poolUsers)} and ${serviceMs(lastProfile, 'cognito').toFixed(1)} ms with ${int(lastProfile.poolUsers)} (about ${(cognitoSlope * 1000).toFixed(1)} ms more per 1,000 users), because each write serialises and rewrites the whole pool synchronously (event-loop blocks up to ${Math.max(...run.sizes.map((size) => size.api.figures.eventLoopMaxMs)).toFixed(0)} ms). ` +
      `The store's ${(serviceMs(lastProfile, 'dynamodb') / ((lastProfile.calls.get('dynamodb GetItem')?.calls ?? 0) + (lastProfile.calls.get('dynamodb PutItem')?.calls ?? 0) + (lastProfile.calls.get('dynamodb UpdateItem')?.calls ?? 0)) * lastProfile.users).toFixed(1)} ms per dynalite call stays flat (${serviceMs(middleProfile, 'dynamodb').toFixed(1)} to ${serviceMs(lastProfile, 'dynamodb').toFixed(1)} ms per user after the warm start), SES ${serviceMs(lastProfile, 'ses').toFixed(1)} ms. So the ${int(LARGE)}-row import slows as it goes, and the rows/s of different sizes are not comparable.`,
    `- Order bias: the API import of each small size ran after its ceiling, into a pool larger by that many users. From the slope above, that costs the import ${orderBias.join('; ')} (an estimate, for context; the table keeps the measured ratio).`,
    `- 1,000 rows within the ${SYNC_WAIT_S} s synchronous wait needs ${(1000 / SYNC_WAIT_S).toFixed(0)} rows/s. ${thousandCeilingS === undefined ? '' : `The ceiling itself took ${thousandCeilingS.toFixed(1)} s for 1,000 users here, and one user one at a time costs ${firstProfile.wallMsPerUser.toFixed(1)} ms even in a near-empty pool (${(1000 / firstProfile.wallMsPerUser).toFixed(0)} users/s at best), so no worker meets it on this local stack and machine; `}whether the deployed worker does depends on Cognito's latency and rate limits in AWS, which this bench does not measure.`,
    `- Memory: the part of an import before its first user ${planGrows ? 'grows with the file' : 'barely grows with the file'}. The dry runs peak at ${run.dryRuns.map((d) => `${mib(heapDelta(d.figures))} (${int(d.result.job?.counts.rows ?? 0)} rows)`).join(', ')} over their baseline${perRowKiB === undefined ? '' : `, about ${perRowKiB.toFixed(1)} KiB per row from 1,000 to ${int(LARGE)} rows against ${(run.sizes[0]!.api.result.csvBytes / run.sizes[0]!.rows).toFixed(0)} bytes of CSV per row`}; the file's 10,000-row limit bounds it. ` +
      `The part that creates users ${largeTransient <= 1.5 * thousandTransient ? 'does not grow with the file' : 'grows with the file'}: the imports' peak over their retained heap is ${run.sizes.map((size) => `${mib(size.api.figures.peak.heapUsed - size.api.figures.retainedHeap)} (${int(size.rows)})`).join(', ')}, the same order as the ceilings' (${run.sizes.map((size) => mib(size.ceilings.at(-1)!.run.figures.peak.heapUsed - size.ceilings.at(-1)!.run.figures.retainedHeap)).join(', ')}), whose peaks follow the pool size (cognito-local's serialisation), not the worker. What stays after an import is the emulators' state: the pool and the mailbox.`,
    `- What the worker adds per user over the ceiling, in calls: ${extraGets.join(', ')} more DynamoDB GetItems per user (rule 1's e-mail-claim lookup in the plan, \`createOne\`'s claim pre-check, and the HTTP side's and the polls' reads), no more writes or identity-provider calls; the job's own writes (lease, progress every 25 users, outcome) are a few in all.`,
    `- From the code (not measured separately): the worker reads the whole file and applies rules 1-7 to every row (one e-mail-claim read per row) before it creates its first user (${dryLarge ? secs(dryLarge.figures.wallMs) : '–'} for the ${int(LARGE)}-row dry run; ${large.api.figures.firstUserMs === undefined ? '–' : secs(large.api.figures.firstUserMs)} to the first user of the import), and keeps every row's user (\`BulkCreatePlan\`: candidate, grants, lines) until the job ends, which is the likely source of the plan phase's growth with the file; ` +
      "`mailUser` reads the organization again for every user's welcome e-mail (the ceiling pays this too); `registerUser` re-reads the user consistently after indexing (both paths); the synchronous wait polls the job with back-off up to 500 ms; a run that loses its lease notices at the next heartbeat (every 20 s).",
    `- Not measured: anything in AWS (Cognito latency and quotas, DynamoDB, the bulk-worker Lambda's 512 MB); the ${int(LARGE)}-row ceiling (extrapolated from two reduced runs); ${large.api.result.aborted ? `the last ${int(LARGE - rowsOf(large))} rows of the ${int(LARGE)}-row import (abandoned at the cap); ` : ''}concurrencies other than ${CONCURRENCY}; generated passwords.`,
  ];

  return [
    '# Bulk create: API import against the ceiling',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:bulk\` (bench/bulk.bench.ts) on ${hardware()}, Node ${process.version}. ` +
      `Load average (1 / 5 / 15 min): ${run.load.start} at the start, ${run.load.end} at the end: other work was running on the machine (each phase's 1-minute load is in the tables), so the process got only part of a CPU and every rate below is lower than on an idle machine. ` +
      `The whole run took ${mins(totalMs)} (the stack started in ${secs(run.readyMs)}). Product code: ${version.start}` +
      (version.end === version.start ? '.' : `; it changed during the run (${version.end} at the end), and the figures are of the code loaded at the start.`),
    '',
    '## Setup',
    '',
    `- One local stack, started **in the bench's own process** (\`startLocalStack\` from infra/local/stack.ts, a fresh temporary data directory, PORT 0): the gateway, the handler modules, the bulk worker that s3rver's object-created event starts, and the emulators (dynalite, s3rver, cognito-local, aws-ses-v2-local) share this one Node process and its event loop, on a machine of ${availableParallelism()} CPUs. ` +
      'So every memory figure is the whole process\'s, emulators included, and the worker competes with the emulators for one thread.',
    `- Every file, dry run and ceiling run writes into a fresh organization (\`createOrganization\`, \`addEnvironment\`, \`addBot\`). Rows: VIEWER, the organization's one environment and bot, a given password (no generated passwords), unique e-mails, a company; ${(run.sizes[0]!.api.result.csvBytes / run.sizes[0]!.rows).toFixed(0)} bytes per row. ` +
      'The API file and the ceiling of the same size write the same users (same e-mails, names, passwords and grant) into their own organizations.',
    `- API: \`POST /{user_subpath}/org/{orgUUID}/users/bulk-create\` (multipart, part \`file\`) with the organization ADMIN's access token (password grant at the token endpoint). ${SMALL_SIZES.map(int).join(' and ')} rows synchronously (the call waits up to ${SYNC_WAIT_S} s, then answers 202 and is polled); ${int(LARGE)} rows with \`Prefer: respond-async\`, then \`GET …/users/bulk-jobs/{jobId}\` every ${POLL_MS / 1000} s until done, abandoned after ${mins(CAP_MS)}. ` +
      'Wall time runs from the POST to the synchronous answer, or to the first poll that sees the job done; "job time" is the job\'s own `createdAt` (before the upload is stored) to its last `updatedAt` (the outcome recorded).',
    `- Ceiling: what the worker's \`createOne\` does for a new user, called directly, ${CONCURRENCY} at a time (the worker's default concurrency): \`registerUser\` (e-mail claim, Cognito AdminCreateUser + AdminSetUserPassword, user item, directory entry, consistent re-read, claim done), the welcome e-mail (\`mailUser\`: organization read + SES SendEmail) and \`markWelcomed\`. ` +
      "**Welcome e-mail included**, for parity. Left out, so charged to the worker by the ratio: the upload, the CSV parsing, rules 1-7 (an e-mail-claim read per row, the environment and bot reads), `createOne`'s claim pre-check per user, the job item's lease, progress and outcome writes, the error list, and the HTTP side.",
    `- Order: for each of ${SMALL_SIZES.map(int).join(' and ')}, **the ceiling first, then the API import**, so the import meets a pool larger by the ceiling's users (against the API). ` +
      `For ${int(LARGE)}: a reduced ceiling of ${int(REDUCED)} users, the import, a reduced ceiling of ${int(REDUCED)} users again; the ${int(LARGE)}-row ceiling is **extrapolated** from those two, not measured (a full one would have taken as long as the import).`,
    `- First, unreported: a ${WARM_UP_ROWS}-row import and a ${WARM_UP_ROWS}-user ceiling (warm-up); then \`?dryRun=true\` imports of each file size. Before each phase: the SES emulator's mailbox cleared and two full GCs (\`--expose-gc\`${gc ? '' : ': **not available in this run**, baselines are noisier'}); during it, \`process.memoryUsage()\` sampled every ${MEMORY_SAMPLE_MS} ms. ` +
      `Every AWS SDK call of the process (handlers, worker and ceiling share the clients) is counted and timed by a middleware on each client. The handlers' and the worker's INFO log lines (${int(droppedInfoLines)} in all: one per request and one per e-mail sent) were formatted, then dropped instead of printed.`,
    '',
    '## Figures',
    '',
    '| rows | path | created / rows | pool users before | wall | rows/s | job time | to 1st AdminCreateUser | process CPU (share of wall) | peak heapUsed over baseline | max event-loop block ms | load 1 min after |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...mainRows,
    '',
    '"pool users before": users in cognito-local\'s one user pool when the phase started (all organizations share it). "to 1st AdminCreateUser": from the POST to the worker\'s first user (upload, parsing, rules 1-7). "max event-loop block": the longest delay of a 10 ms timer in the phase (`monitorEventLoopDelay`), i.e. the longest stretch of synchronous work in the process.',
    '',
    '## Aims',
    '',
    '| rows | API | ceiling | API ÷ ceiling | aim ≥ 0.5 |',
    '|---:|---:|---|---:|---|',
    ...ratioRows,
    '',
    `- 1,000 rows within the synchronous limit: ${syncVerdict}.`,
    `- ${largeExtrapolation}.`,
    '- Memory: see "Memory" and "The worker before its first user" below.',
    '',
    '## The worker before its first user (`?dryRun=true`)',
    '',
    'Each file imported with `?dryRun=true` into a fresh organization before any real import: the upload, the S3 object and event, the streamed CSV, rules 1-7 with one e-mail-claim lookup per row, the error list and the job\'s outcome; no user is created, so the identity provider plays no part.',
    '',
    '| rows | CSV | call | wall | job time | rows/s | process CPU | peak heapUsed over baseline | peak RSS over baseline | max event-loop block ms | DynamoDB calls per row |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...dryRows,
    '',
    '## Memory',
    '',
    '| phase | CSV | heapUsed baseline | peak heapUsed over it | … before the first user | RSS baseline | peak RSS over it | heap retained after (GC) | … once the mailbox is cleared | peak over the retained heap | cognito-local pool file before | welcome e-mails received |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...memoryRows,
    '',
    "The emulators' state lives in this process: cognito-local keeps the whole pool in memory and on every write serialises all of it to one JSON string (pretty-printed, with a replacer function) that it writes to its file synchronously, so each write allocates a string the size of the pool file and blocks the event loop meanwhile; aws-ses-v2-local keeps every e-mail until cleared (compare the two \"retained\" columns). " +
      'Peaks are of heapUsed as sampled, garbage included; no sample runs while the event loop is blocked. Compare an import with the ceiling of the same size, which has the same emulator costs and no worker. ' +
      '"Retained" grows with the users written (the pool and the mailbox held in memory by the emulators); "peak over the retained heap" is the transient part (garbage and work in flight) above it.',
    '',
    "## Where a user's time goes",
    '',
    `${PROFILE_USERS} users written one at a time into a fresh organization at three points of the run: the worker's claim pre-check (\`getEmailClaim\`), then exactly what the ceiling does. Each call is timed by the client middleware; the emulator's work is inside the call's time, since it runs in this process and nothing else runs meanwhile.`,
    '',
    profileHeader,
    `|---|${run.profiles.map(() => '---:').join('|')}|`,
    ...profileRows,
    ...serviceRows,
    restRow,
    wallRow,
    '',
    "AWS calls per user in each phase (every call of the process, so for the API also the HTTP side's authentication reads, the synchronous wait's job reads, the job bookkeeping, rules 1-7 and the bench's polls); users = AdminCreateUser calls:",
    '',
    '| phase | calls per user | DynamoDB calls per user |',
    '|---|---|---|',
    ...callRows,
    '',
    '## Reading the figures',
    '',
    ...reading,
  ].join('\n');
}

async function main(): Promise<void> {
  const benchStarted = performance.now();
  const loadAtStart = load();
  const versionAtStart = productVersion();
  if (!gc) console.error('Note: run with --expose-gc (npm run bench:bulk does) for stable memory baselines.');

  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  dropInfoLogs();

  const dataDir = tempDir('bench-bulk-');
  const { startLocalStack } = await import('../infra/local/stack');
  const stack = await startLocalStack({ dataDir, port: 0, fresh: true });
  const readyMs = performance.now() - benchStarted;
  progress(`local stack ready in ${secs(readyMs)} (in this process), load ${loadAtStart}`);
  let figures: RunFigures;
  try {
    const product = await loadProduct();
    instrument(product);
    const poolFile = join(dataDir, 'cognito', 'db', `${product.config().userPoolId}.json`);
    figures = await run({ product, info: stack.info, poolFile }, readyMs, loadAtStart);
  } finally {
    await stack.stop().catch(() => undefined);
  }
  const report = `${formatReport(figures, performance.now() - benchStarted, { start: versionAtStart, end: productVersion() })}\n`;
  console.log(report);
  writeFileSync(REPORT, report);
  console.log(`Written to ${REPORT.replace(projectRoot + '/', '')}`);
  // An import abandoned at the cap is still running in this process: end it with the stack.
  process.exit(0);
}

runBenchmark(main, { withStack: true });
