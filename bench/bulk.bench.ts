/**
 * `npm run bench:bulk`: CSV files of 100, 1,000 and 10,000 valid rows imported through
 * `POST …/users/bulk-create` (the last with `Prefer: respond-async`, polled), next to the ceiling: the
 * same users written directly with the calls the worker makes per new user, at its concurrency, in the
 * same run. Rows per second, memory, calls and units per user. The stack runs in this process, so the
 * worker S3's event starts is measured here too. Report: bench/bulk-figures.md.
 *
 * Options besides the size: `--large N` (rows of the asynchronous file), `--cap-min M` (minutes after
 * which that import is abandoned and its progress reported; 20), `--reduced N` (users of each ceiling
 * run beside the large file; 500).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadState } from '../infra/local/cognito-store';
import { eachLimited } from '../shared/bulk/bulk-create.rules';
import { bulkCreateColumns } from '../shared/bulk/bulk.limits';
import type { JobView } from '../shared/bulk/bulk.service';
import { config } from '../shared/config';
import { getOrganization } from '../shared/org/org.repository';
import { keys } from '../shared/store/keys';
import { updateItem } from '../shared/store/table';
import { sendWelcome, signInAddress } from '../shared/users/user-mail';
import { userPorts } from '../shared/users/user-ports';
import { registerUser } from '../shared/users/user-registration';
import { getEmailClaim, markWelcomed } from '../shared/users/user.repository';
import { accessToken, benchmark, bullets, check, cpuCount, fmt, fullGc, loadAverage, measurePhase, seedOrganization, startRecording, sum, tally, type Context, type SeededOrganization as Org, type Tally } from './harness';
import { bulkTables, type BulkRun, type ImportResult } from './bulk.report';

const CONCURRENCY = 8; // the worker's default (runBulkCreateJob)
const SYNC_WAIT_S = 25; // how long POST …/bulk-create waits before answering 202 (SYNC_WAIT_MS, shared/bulk/bulk.service.ts)

/** The sizes, and the stack's emulators as the phases see them: cognito-local's pool files and the SES mailbox. */
function data({ size, option, stack }: Context) {
  const n = { large: Number(option('large') ?? size(10_000, 200)), reduced: Number(option('reduced') ?? size(500, 20)), capMs: Number(option('cap-min') ?? 20) * 60_000, small: [size(100, 10), size(1000, 50)] };
  const poolFiles = ['json', 'journal'].map((ext) => join(stack.dataDir, 'cognito', 'db', `${config().userPoolId}.${ext}`)) as [string, string];
  return Promise.resolve({ n, info: stack.info, poolFiles, ports: userPorts() });
}
type Data = Awaited<ReturnType<typeof data>>;

const newOrg = (name: string) => seedOrganization(name, { adminEmail: `admin@${name}.example.com`, adminName: `Admin of ${name}`, environment: 'Bulk', bot: 'Bulk bot' });
/** User `i` of a set: the API file and the ceiling of one size write the same users, each into its own organization. */
const user = (set: string, i: number) => ({ email: `user${String(i).padStart(5, '0')}.${set}@bulk-bench.example.com`, name: `Bench User ${i} ${set}`, company: `Company ${i % 40}`, password: `Bench-${i}-pw` });
const csv = (org: Org, set: string, rows: number) =>
  [bulkCreateColumns.join(','), ...Array.from({ length: rows }, (_, i) => {
    const u = user(set, i);
    return [u.email, u.name, u.company, u.password, 'VIEWER', org.environment.uuid, org.environment.name, org.bot.uuid].join(',');
  })].join('\r\n') + '\r\n';

// The ceiling: what the worker's createOne does for a new user (registerUser, sendWelcome with the job's
// one mail context, markWelcomed), without the CSV, rules, job or claim pre-check.
const mailContext = async (org: Org) => ({ language: 'en' as const, signInUrl: signInAddress(config().signInUrl ?? ''), realm: (await getOrganization(org.uuid))!.name });
async function createDirectly(d: Data, org: Org, u: ReturnType<typeof user>, mail: Awaited<ReturnType<typeof mailContext>>) {
  const created = await registerUser({ orgUuid: org.uuid, name: u.name, email: u.email, password: u.password, role: 'VIEWER', permissions: [org.permission], company: u.company }, d.ports.identityProvider);
  await sendWelcome(created, { value: u.password, temporary: false }, mail, d.ports.mailer);
  await markWelcomed(org.uuid, created.uuid);
}

/** cognito-local's pool as it would open: its snapshot with the journal replayed (`loadState`), and the two files' size. */
const pool = (d: Data) => ({
  users: Object.keys((loadState(...d.poolFiles, {}) as { Users?: object }).Users ?? {}).length,
  bytes: sum(d.poolFiles.map((file) => (existsSync(file) ? statSync(file).size : 0))),
});
async function mailbox(d: Data, clear: boolean): Promise<number> {
  const response = await fetch(clear ? d.info.mailboxUrl.replace(/\/store$/, '/clear-store') : d.info.mailboxUrl, { method: clear ? 'POST' : 'GET' });
  return clear ? (await response.arrayBuffer(), 0) : (((await response.json()) as { emails?: unknown[] }).emails?.length ?? 0);
}

/** A phase, with the emulators' state around it: pool size before, e-mails received, heap retained after (with and without the mailbox). */
async function phase<T>(d: Data, rows: number, work: (end: () => void, calls: Tally) => Promise<T>) {
  const before = pool(d);
  await mailbox(d, true);
  const figures = await measurePhase(work, 'cognito AdminCreateUser');
  const mails = rows <= 1000 ? await mailbox(d, false) : undefined;
  fullGc();
  const retained = process.memoryUsage().heapUsed;
  await mailbox(d, true);
  fullGc();
  return { ...figures, pool: before, mails, retained, retainedWithoutMail: process.memoryUsage().heapUsed, load: loadAverage().split(' / ')[0]! };
}

const ceiling = (d: Data, org: Org, set: string, users: number) =>
  phase(d, users, async () => {
    const mail = await mailContext(org);
    await eachLimited([...Array(users).keys()], CONCURRENCY, (i) => createDirectly(d, org, user(set, i), mail));
    return { users };
  });

/** Polls an answered-202 job every second until it ends, or until the cap, when it is abandoned. */
async function pollJob(d: Data, readJob: () => Promise<JobView>, started: number, { progress }: Context) {
  for (let lastReport = started; ; await sleep(1000)) {
    const job = await readJob();
    const ended = job.status === 'done' || job.status === 'failed';
    if (ended || performance.now() - started > d.n.capMs) return { job, aborted: !ended };
    if (performance.now() - lastReport < 60_000) continue;
    lastReport = performance.now();
    progress(`  ${job.progress.processed} of ${job.progress.total} after ${fmt.s(lastReport - started)}`);
  }
}

/** As a second run taking the job over would: the lease changes hands, and the worker stops at its next heartbeat. */
async function abandon(org: Org, jobId: string, calls: Tally) {
  const started = performance.now();
  const usersBefore = calls.calls('cognito AdminCreateUser');
  await updateItem({ Key: keys.bulkJob(org.uuid, jobId), UpdateExpression: 'SET lease = :lease', ExpressionAttributeValues: { ':lease': { runId: 'bench-abandoned', until: Date.now() + 3_600_000 } } });
  for (let seen = -1, quietSince = 0; performance.now() - quietSince < 5000 && performance.now() - started < 180_000; await sleep(250)) {
    const now = calls.calls('cognito AdminCreateUser') + calls.calls('cognito AdminSetUserPassword');
    if (now !== seen) [seen, quietSince] = [now, performance.now()];
  }
  return { ms: performance.now() - started, users: calls.calls('cognito AdminCreateUser') - usersBefore };
}

/** A file imported through the API (`async`: with `Prefer: respond-async`), its job polled to its end or to the cap. */
const apiImport = (d: Data, context: Context, org: Org, set: string, rows: number, async: boolean, dryRun = false) =>
  phase(d, rows, async (end, calls): Promise<ImportResult> => {
    const token = await accessToken(d.info, org);
    const body = csv(org, set, rows);
    const form = new FormData();
    form.append('file', new Blob([body], { type: 'text/csv' }), `users-${rows}.csv`);
    const started = performance.now();
    const url = `${d.info.apiUrl}/${d.info.userSubpath}/org/${org.uuid}/users/bulk-create${dryRun ? '?dryRun=true' : ''}`;
    const response = await fetch(url, { method: 'POST', headers: { authorization: token.bearer, ...(async && { prefer: 'respond-async' }) }, body: form });
    const answer = { status: response.status, ms: performance.now() - started };
    const text = await response.text();
    check([200, 202].includes(response.status) && response.headers.has('location'), `bulk-create answered ${response.status}: ${text.slice(0, 300)}`);
    const jobUrl = new URL(response.headers.get('location')!, d.info.apiUrl).toString();
    const readJob = async () => (await token.refresh(), JSON.parse(await (await fetch(jobUrl, { headers: { authorization: token.bearer } })).text()) as JobView);
    const polled = response.status === 202 ? await pollJob(d, readJob, started, context) : { job: undefined, aborted: false };
    end();
    const drain = polled.aborted ? await abandon(org, jobUrl.split('/').at(-1)!, calls) : undefined;
    const job = polled.aborted ? polled.job : await readJob();
    return { async, csvBytes: Buffer.byteLength(body), answer, job, jobMs: job && !polled.aborted ? Date.parse(job.updatedAt) - Date.parse(job.createdAt) : undefined, aborted: polled.aborted, drain };
  });

/** Users written one at a time (the worker's claim pre-check, then the ceiling's calls), every call timed by the recorder. */
async function profile(d: Data, label: string, name: string) {
  const [org, before, calls] = [await newOrg(name), pool(d), tally()];
  const mail = await mailContext(org);
  const stop = startRecording(calls.add);
  const started = performance.now();
  for (let i = 0; i < 20; i++) {
    await getEmailClaim(org.uuid, user(name, i).email);
    await createDirectly(d, org, user(name, i), mail);
  }
  const msPerUser = (performance.now() - started) / 20;
  stop();
  await mailbox(d, true);
  return { label, pool: before, users: 20, msPerUser, calls };
}

/** Warm-up, dry runs, each small file after its ceiling, the large file between two reduced ceilings, and profiles between them. */
async function measure(d: Data, context: Context): Promise<BulkRun> {
  const { progress, stack } = context;
  const { large, reduced, capMs, small } = d.n;
  const run: BulkRun = { sizes: [], dryRuns: [], profiles: [], large, capMs, syncWaitS: SYNC_WAIT_S, concurrency: CONCURRENCY };
  const api = (name: string, set: string, rows: number, async: boolean, dryRun = false) => newOrg(name).then((org) => apiImport(d, context, org, set, rows, async, dryRun));
  const ceilingOf = (name: string, set: string, users: number) => newOrg(name).then((org) => ceiling(d, org, set, users));
  progress(`local stack ready in ${fmt.s(stack.readyMs)} (in this process); warm-up (unreported)`);
  await api('bulk-warm-api', 'warm', 20, false);
  await ceilingOf('bulk-warm-ceiling', 'warm', 20);
  for (const rows of [...small, large]) {
    progress(`dry run ${rows}`);
    run.dryRuns.push(await api(`bulk-dry-${rows}`, `s${rows}`, rows, rows === large, true));
  }
  run.profiles.push(await profile(d, `before the ${small[0]}-row runs`, 'bulk-profile-a'));
  for (const rows of small) {
    // The ceiling first, then the import, which so meets a pool larger by the ceiling's users.
    progress(`ceiling ${rows}, then API import ${rows}`);
    const sameSize = await ceilingOf(`bulk-ceiling-${rows}`, `s${rows}`, rows);
    const imported = await api(`bulk-api-${rows}`, `s${rows}`, rows, false);
    run.sizes.push({ rows, api: imported, ceilings: [{ label: 'same size', run: sameSize }], ceilingMsPerUser: sameSize.wallMs / rows, extrapolated: false });
  }
  run.profiles.push(await profile(d, `after the ${fmt.int(small[1]!)}-row runs`, 'bulk-profile-b'));
  // The large file between two reduced ceilings: cognito-local's cost per user grows with its pool, so they bracket the import.
  progress(`ceiling ${reduced}, API import ${large} (respond-async, cap ${fmt.min(capMs)}), ceiling ${reduced}`);
  const before = await ceilingOf(`bulk-ceiling-${large}-before`, `s${large}`, reduced);
  const imported = await api(`bulk-api-${large}`, `s${large}`, large, true);
  const after = await ceilingOf(`bulk-ceiling-${large}-after`, `s${large}`, reduced);
  const ceilings = [{ label: `${reduced} users before the import`, run: before }, { label: `${reduced} users after the import`, run: after }];
  run.sizes.push({ rows: large, api: imported, ceilings, ceilingMsPerUser: sum(ceilings.map((c) => c.run.wallMs)) / (2 * reduced), extrapolated: true });
  run.profiles.push(await profile(d, `after the ${fmt.int(large)}-row runs`, 'bulk-profile-c'));
  return run;
}

const setup = ({ n }: Data, { stack }: Context) =>
  bullets([
    `One local stack **in the bench's own process** (\`startLocalStack\`, a fresh temporary data directory, PORT 0; ready in ${fmt.s(stack.readyMs)}): gateway, handler modules, the bulk worker that s3rver's object event starts, and the Node emulators (s3rver, cognito-local, aws-ses-v2-local) share one event loop; DynamoDB Local runs in its own JVM. ${cpuCount()} CPUs. Memory figures are the whole Node process's, emulators included.`,
    `Every file, dry run and ceiling writes into a fresh organization; rows are VIEWERs of its one bot with a given password; the API file and the ceiling of one size write the same users. API: \`POST …/users/bulk-create\` (multipart) with the ADMIN's token; ${n.small.map(fmt.int).join(' and ')} rows synchronously (the call waits up to ${SYNC_WAIT_S} s, then answers 202 and is polled), ${fmt.int(n.large)} with \`Prefer: respond-async\`, polled every second, abandoned after ${fmt.min(n.capMs)}.`,
    `Ceiling: \`registerUser\`, \`sendWelcome\` (the realm read once, as the worker does) and \`markWelcomed\`, ${CONCURRENCY} users at a time: the worker's per-user calls for a new user. Charged to the worker by the ratio: the upload, parsing, rules 1-7, \`createOne\`'s claim pre-check, the job's writes and the HTTP side. For ${fmt.int(n.large)} rows the ceiling is **extrapolated** from reduced runs of ${fmt.int(n.reduced)} users before and after the import.`,
    `Unreported first: a 20-row import and a 20-user ceiling. Before each phase the SES emulator's mailbox is cleared and two full GCs run (\`--expose-gc\`${fullGc() ? '' : ': **not available in this run**'}); memory is sampled every 50 ms; every AWS call of the process is counted, timed and its DynamoDB units recorded by a middleware on the product's clients. The handlers' INFO log lines (${fmt.int(stack.dropped?.() ?? 0)}) were dropped after formatting.`,
  ]);

benchmark<Data, BulkRun>({
  name: 'bulk',
  script: 'bench:bulk',
  title: 'Bulk create: API import against the ceiling',
  stack: 'in-process',
  data,
  measure,
  report: ({ data: d, measured }, context) => ({ Setup: [setup(d, context)], ...bulkTables(measured) }),
});
