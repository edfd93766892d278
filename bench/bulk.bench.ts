/**
 * `npm run bench:bulk`: CSV files of 100, 1,000 and 10,000 valid rows imported through
 * `POST …/users/bulk-create` (the last with `Prefer: respond-async`), each job polled to its end: the
 * time per size, the process's peak memory, and Cognito's time per user as its pool grows. The stack
 * runs in this process, so the worker that S3's event starts is measured here too. Report:
 * bench/bulk-figures.md.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadState } from '../infra/local/cognito-store';
import { bulkCreateColumns } from '../shared/bulk/bulk.limits';
import type { JobView } from '../shared/bulk/bulk.service';
import { config } from '../shared/config';
import { userPorts } from '../shared/users/user-ports';
import { registerUser } from '../shared/users/user-registration';
import { benchmark, type Context } from './harness/benchmark';
import { recordCalls } from './harness/capacity';
import { seedOrganization, type SeededOrganization as Org } from './harness/seed';
import { check } from './harness/series';
import { accessToken, apiGet } from './harness/stack';
import { fmt, sum } from './harness/stats';
import { bullets, table } from './harness/tables';

const [SYNC_WAIT_S, LARGE_AIM_MIN, PROFILED_USERS] = [25, 5, 20];
const gc = (globalThis as { gc?: () => void }).gc;

/** `work`, after two full collections (with --expose-gc); the peak heapUsed and RSS over what they left, sampled every 50 ms. */
async function measurePhase<T>(work: () => Promise<T>): Promise<{ result: T; peak: { heap: number; rss: number } }> {
  gc?.();
  gc?.();
  const [baseline, peak] = [process.memoryUsage(), { heap: 0, rss: 0 }];
  const sample = () => {
    const now = process.memoryUsage();
    [peak.heap, peak.rss] = [Math.max(peak.heap, now.heapUsed - baseline.heapUsed), Math.max(peak.rss, now.rss - baseline.rss)];
  };
  const sampler = setInterval(sample, 50);
  const result = await work().finally(() => clearInterval(sampler));
  sample();
  return { result, peak };
}

function data({ size, stack }: Context) {
  const poolFiles = ['json', 'journal'].map((ext) => join(stack.dataDir, 'cognito', 'db', `${config().userPoolId}.${ext}`)) as [string, string];
  const sizes = [size(100, 10), size(1000, 50), size(10_000, 200)];
  return Promise.resolve({ sizes, info: stack.info, poolFiles });
}
type Data = Awaited<ReturnType<typeof data>>;

const newOrg = (name: string) => seedOrganization(name);
const csv = (org: Org, rows: number) => {
  const row = (i: number) => [`user${i}.${org.name}@bulk-bench.example.com`, `Bench User ${i}`, `Company ${i % 40}`, `Bench-${i}-pw`, 'VIEWER'];
  const lines = Array.from({ length: rows }, (_, i) => [...row(i), org.environment.uuid, org.environment.name, org.bot.uuid].join(','));
  return [bulkCreateColumns.join(','), ...lines].join('\r\n') + '\r\n';
};
/** Users in cognito-local's one pool, as it would open: its snapshot with the journal replayed. */
const poolUsers = (d: Data) => Object.keys((loadState(...d.poolFiles, {}) as { Users?: object }).Users ?? {}).length;

/** The POST, then the job polled every second until it ends; the time is the answer's when it answered 200. */
async function post(d: Data, org: Org, rows: number, progress: (message: string) => void) {
  const token = await accessToken(d.info, org);
  const form = new FormData();
  form.append('file', new Blob([csv(org, rows)], { type: 'text/csv' }), `users-${rows}.csv`);
  const started = performance.now();
  const url = `${d.info.apiUrl}/${d.info.userSubpath}/org/${org.uuid}/users/bulk-create`;
  const async = rows === d.sizes.at(-1);
  const response = await fetch(url, { method: 'POST', headers: { authorization: token.bearer, ...(async && { prefer: 'respond-async' }) }, body: form });
  const answer = { status: response.status, ms: performance.now() - started, text: await response.text() };
  check([200, 202].includes(answer.status) && response.headers.has('location'), `bulk-create answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  for (let reported = started; ; await sleep(1000)) {
    await token.refresh();
    const job = JSON.parse(await apiGet(new URL(response.headers.get('location')!, url).toString(), token.bearer)) as JobView;
    const ms = performance.now() - started;
    if (job.status === 'done' || job.status === 'failed') return { async, answer, job, ms: answer.status === 200 ? answer.ms : ms };
    if (performance.now() - reported < 60_000) continue;
    reported = performance.now();
    progress(`  ${job.progress.processed} of ${rows} after ${fmt.s(ms)}`);
  }
}

/** A file imported into a fresh organization, the SES emulator's mailbox emptied first. */
async function apiImport(d: Data, rows: number, name: string, progress: (message: string) => void) {
  const org = await newOrg(name);
  const pool = poolUsers(d);
  await fetch(d.info.mailboxUrl.replace(/\/store$/, '/clear-store'), { method: 'POST' }).then((r) => r.arrayBuffer());
  const { result, peak } = await measurePhase(() => post(d, org, rows, progress));
  return { rows, pool, csvBytes: Buffer.byteLength(csv(org, rows)), ...result, peak };
}
type Import = Awaited<ReturnType<typeof apiImport>>;

/** Cognito's time per user at the pool's present size: users registered one at a time into a fresh organization, its calls timed. */
async function cognitoPerUser(d: Data, name: string) {
  const [org, pool, { identityProvider }] = [await newOrg(name), poolUsers(d), userPorts()];
  const user = (i: number) => ({ orgUuid: org.uuid, name: `Profiled ${i}`, email: `user${i}.${name}@bulk-bench.example.com`, password: `Bench-${i}-pw` });
  const calls = await recordCalls(async () => {
    for (let i = 0; i < PROFILED_USERS; i++) await registerUser({ ...user(i), role: 'VIEWER', permissions: [org.permission] }, identityProvider);
  });
  return { pool, ms: sum(calls.filter((c) => c.service === 'cognito').map((c) => c.ms)) / PROFILED_USERS };
}

/** A warm-up import, then each size, Cognito's time per user measured before the first and after each. */
async function measure(d: Data, { progress }: Context) {
  progress('warm-up (unreported)');
  await apiImport(d, 20, 'bulk-warm', progress);
  const [imports, cognito] = [[] as Import[], [await cognitoPerUser(d, 'bulk-cognito-0')]];
  for (const rows of d.sizes) {
    progress(`API import of ${rows} rows`);
    imports.push(await apiImport(d, rows, `bulk-${rows}`, progress));
    cognito.push(await cognitoPerUser(d, `bulk-cognito-${rows}`));
  }
  return { imports, cognito };
}
type Measured = Awaited<ReturnType<typeof measure>>;

const rate = (i: Import) => i.rows / (i.ms / 1000);

function aims({ imports, cognito }: Measured) {
  const [sync, large] = [imports.find((i) => !i.async && i.rows >= 1000) ?? imports[1]!, imports.at(-1)!];
  const slope = (cognito.at(-1)!.ms - cognito[0]!.ms) / Math.max(1, cognito.at(-1)!.pool - cognito[0]!.pool);
  const { status, ms } = sync.answer;
  return bullets([
    `${fmt.int(sync.rows)} rows within the synchronous limit: ${status === 200 ? `**met**: answered 200 after ${fmt.s(ms)} (limit ${SYNC_WAIT_S} s)` : `**not met**: answered ${status} after ${fmt.s(ms)}; the job finished ${fmt.s(sync.ms)} after the POST`}.`,
    `${fmt.int(large.rows)} rows within ${LARGE_AIM_MIN} minutes: ${large.ms <= LARGE_AIM_MIN * 60_000 ? '**met**' : '**not met**'} (${fmt.min(large.ms)}, ${rate(large).toFixed(1)} rows/s).`,
    `Memory flat in file size: peak heapUsed over baseline ${imports.map((i) => `${fmt.mib(i.peak.heap)} at ${fmt.int(i.rows)} rows`).join(', ')}; peak RSS over baseline ${imports.map((i) => fmt.mib(i.peak.rss)).join(', ')} (CSV ${imports.map((i) => fmt.kib(i.csvBytes)).join(', ')}).`,
    `cognito-local's time per user against its pool (its store appends each write to a journal, folded into the snapshot once the journal outgrows it: infra/local/cognito-store.ts): ${cognito.map((c) => `${c.ms.toFixed(1)} ms with ${fmt.int(c.pool)} users`).join(', ')} (${slope >= 0 ? '+' : ''}${(slope * 1000).toFixed(2)} ms per 1,000 more users in the pool).`,
  ]);
}

benchmark<Data, Measured>({
  name: 'bulk',
  script: 'bench:bulk',
  title: 'Bulk create through the API',
  stack: 'in-process',
  data,
  measure,
  report: ({ data: d, measured }, { stack }) => ({
    Setup: [
      bullets([
        `One local stack **in the bench's own process** (\`startLocalStack\`, a fresh temporary data directory, PORT 0; ready in ${fmt.s(stack.readyMs)}): gateway, handler modules, the bulk worker that s3rver's object event starts, and the Node emulators (s3rver, cognito-local, aws-ses-v2-local) share one event loop; DynamoDB Local runs in its own JVM. Memory figures are the whole Node process's, emulators included; the handlers' INFO log lines are dropped once formatted.`,
        `Each file into a fresh organization, its rows VIEWERs of its one bot with a given password, by \`POST …/users/bulk-create\` (multipart) with the ADMIN's token: ${d.sizes.slice(0, -1).map(fmt.int).join(' and ')} rows synchronously (the call waits up to ${SYNC_WAIT_S} s, then answers 202), ${fmt.int(d.sizes.at(-1)!)} with \`Prefer: respond-async\`; the job polled every second until it ends. A 20-row import first, unreported.`,
        `Before each import the SES emulator's mailbox is emptied and two full GCs run (\`--expose-gc\`${gc ? '' : ': **not available in this run**'}); memory is sampled every 50 ms. Cognito's time per user: ${PROFILED_USERS} users registered one at a time (\`registerUser\`) into a fresh organization before the first import and after each, the Cognito calls timed by a middleware on the product's clients.`,
      ]),
    ],
    Figures: [
      table(measured.imports, [
        ['rows', (i) => fmt.int(i.rows), 'right'],
        ['call', (i) => (i.async ? `\`Prefer: respond-async\`, 202 after ${fmt.s(i.answer.ms)}` : `answered ${i.answer.status} after ${fmt.s(i.answer.ms)}`)],
        ['created / rows', (i) => `${fmt.int(i.job.counts.created)} / ${fmt.int(i.job.counts.rows)}`, 'right'],
        ['pool users before', (i) => fmt.int(i.pool), 'right'],
        ['wall', (i) => fmt.s(i.ms), 'right'],
        ['rows/s', (i) => `**${rate(i).toFixed(1)}**`, 'right'],
        ['peak heapUsed over baseline', (i) => fmt.mib(i.peak.heap), 'right'],
        ['peak RSS over baseline', (i) => fmt.mib(i.peak.rss), 'right'],
      ]),
      '"wall": from the POST to its answer (200) or to the poll that saw the job end (202). "pool users before": users in cognito-local\'s one pool (all organizations share it).',
    ],
    Aims: [aims(measured)],
  }),
});
