/**
 * `npm run bench:bulk`: issue 5, "Speed". CSV files of 100, 1,000 and 10,000 valid rows imported through
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
import { eachLimited } from '../shared/bulk/bulk-create.rules';
import type { JobView } from '../shared/bulk/bulk.service';
import { loadState } from '../infra/local/cognito-store';
import { config } from '../shared/config';
import { getOrganization } from '../shared/org/org.repository';
import { addBot, addEnvironment, createOrganization } from '../shared/operator/operator.service';
import { keys } from '../shared/store/keys';
import { updateItem } from '../shared/store/table';
import { sendWelcome, signInAddress } from '../shared/users/user-mail';
import { userPorts } from '../shared/users/user-ports';
import { registerUser } from '../shared/users/user-registration';
import { getEmailClaim, markWelcomed } from '../shared/users/user.repository';
import { type Tally, startRecording, tally } from './harness/capacity';
import { cpuCount, loadAverage } from './harness/machine';
import { fullGc, measurePhase } from './harness/phase';
import { benchmark, bullets } from './harness/report';
import { check } from './harness/series';
import { accessToken, startInProcess } from './harness/stack';
import { fmt, sum } from './harness/stats';
import { bulkTables, type ImportResult, type Run } from './bulk.report';
import { bulkCreateColumns } from '../shared/bulk/bulk.limits';

const CONCURRENCY = 8; // the worker's default (runBulkCreateJob)
const SYNC_WAIT_S = 25; // how long POST …/bulk-create waits before answering 202 (SYNC_WAIT_MS, shared/bulk/bulk.service.ts)

benchmark({
  name: 'bulk',
  script: 'bench:bulk',
  title: 'Bulk create: API import against the ceiling',
  async run({ size, option, progress }) {
    const [LARGE, REDUCED, CAP_MS] = [Number(option('large') ?? size(10_000, 200)), Number(option('reduced') ?? size(500, 20)), Number(option('cap-min') ?? 20) * 60_000];
    const SMALL = [size(100, 10), size(1000, 50)];
    const stack = await startInProcess({ quiet: true });
    const { info } = stack;
    const poolFiles = ['json', 'journal'].map((ext) => join(stack.dataDir, 'cognito', 'db', `${config().userPoolId}.${ext}`)) as [string, string];
    const ports = userPorts();

    const newOrg = async (name: string) => {
      const admin = { email: `admin@${name}.example.com`, password: 'Bench-Admin-1' };
      const { organization } = await createOrganization({ name, adminEmail: admin.email, adminName: `Admin of ${name}`, adminPassword: admin.password });
      const environment = await addEnvironment(organization.uuid, 'Bulk');
      const bot = await addBot(organization.uuid, environment.uuid, 'Bulk bot');
      return { uuid: organization.uuid, name, admin, environment, bot };
    };
    type Org = Awaited<ReturnType<typeof newOrg>>;
    /** User `i` of a set: the API file and the ceiling of one size write the same users, each into its own organization. */
    const user = (set: string, i: number) => ({ email: `user${String(i).padStart(5, '0')}.${set}@bulk-bench.example.com`, name: `Bench User ${i} ${set}`, company: `Company ${i % 40}`, password: `Bench-${i}-pw` });
    const csv = (org: Org, set: string, rows: number) =>
      [bulkCreateColumns.join(','), ...Array.from({ length: rows }, (_, i) => {
        const u = user(set, i);
        return [u.email, u.name, u.company, u.password, 'VIEWER', org.environment.uuid, org.environment.name, org.bot.uuid].join(',');
      })].join('\r\n') + '\r\n';

    // The ceiling: what the worker's createOne does for a new user (registerUser, sendWelcome with
    // the job's one mail context, markWelcomed), without the CSV, rules, job or claim pre-check.
    const mailContext = async (org: Org) => ({ language: 'en' as const, signInUrl: signInAddress(config().signInUrl ?? ''), realm: (await getOrganization(org.uuid))!.name });
    const createDirectly = async (org: Org, u: ReturnType<typeof user>, mail: Awaited<ReturnType<typeof mailContext>>) => {
      const permissions = [{ environmentUuid: org.environment.uuid, botUuid: org.bot.uuid }];
      const created = await registerUser({ orgUuid: org.uuid, name: u.name, email: u.email, password: u.password, role: 'VIEWER', permissions, company: u.company }, ports.identityProvider);
      await sendWelcome(created, { value: u.password, temporary: false }, mail, ports.mailer);
      await markWelcomed(org.uuid, created.uuid);
    };

    /** cognito-local's pool as it would open: its snapshot with the journal replayed (`loadState`), and the two files' size. */
    const pool = () => ({
      users: Object.keys((loadState(...poolFiles, {}) as { Users?: object }).Users ?? {}).length,
      bytes: sum(poolFiles.map((file) => (existsSync(file) ? statSync(file).size : 0))),
    });
    const mailbox = async (clear: boolean) => {
      const response = await fetch(clear ? info.mailboxUrl.replace(/\/store$/, '/clear-store') : info.mailboxUrl, { method: clear ? 'POST' : 'GET' });
      return clear ? (await response.arrayBuffer(), 0) : (((await response.json()) as { emails?: unknown[] }).emails?.length ?? 0);
    };
    /** A phase, with the emulators' state around it: pool size before, e-mails received, heap retained after (with and without the mailbox). */
    const phase = async <T>(rows: number, work: (end: () => void, calls: Tally) => Promise<T>) => {
      const before = pool();
      await mailbox(true);
      const figures = await measurePhase(work, 'cognito AdminCreateUser');
      const mails = rows <= 1000 ? await mailbox(false) : undefined;
      fullGc();
      const retained = process.memoryUsage().heapUsed;
      await mailbox(true);
      fullGc();
      return { ...figures, pool: before, mails, retained, retainedWithoutMail: process.memoryUsage().heapUsed, load: loadAverage().split(' / ')[0]! };
    };
    const ceiling = (org: Org, set: string, users: number) =>
      phase(users, async () => {
        const mail = await mailContext(org);
        await eachLimited([...Array(users).keys()], CONCURRENCY, (i) => createDirectly(org, user(set, i), mail));
        return { users };
      });

    const apiImport = (org: Org, set: string, rows: number, async: boolean, dryRun = false) =>
      phase(rows, async (end, calls): Promise<ImportResult> => {
        const token = await accessToken(info, org);
        const body = csv(org, set, rows);
        const form = new FormData();
        form.append('file', new Blob([body], { type: 'text/csv' }), `users-${rows}.csv`);
        const started = performance.now();
        const url = `${info.apiUrl}/${info.userSubpath}/org/${org.uuid}/users/bulk-create${dryRun ? '?dryRun=true' : ''}`;
        const response = await fetch(url, { method: 'POST', headers: { authorization: token.bearer, ...(async && { prefer: 'respond-async' }) }, body: form });
        const answer = { status: response.status, ms: performance.now() - started };
        const text = await response.text();
        check([200, 202].includes(response.status) && response.headers.has('location'), `bulk-create answered ${response.status}: ${text.slice(0, 300)}`);
        const jobUrl = new URL(response.headers.get('location')!, info.apiUrl).toString();
        const readJob = async () => (await token.refresh(), JSON.parse(await (await fetch(jobUrl, { headers: { authorization: token.bearer } })).text()) as JobView);
        let [job, aborted] = [undefined as JobView | undefined, false];
        for (let lastReport = started; response.status === 202; await sleep(1000)) {
          job = await readJob();
          if (job.status === 'done' || job.status === 'failed' || (aborted = performance.now() - started > CAP_MS)) break;
          if (performance.now() - lastReport < 60_000) continue;
          lastReport = performance.now();
          progress(`  ${job.progress.processed} of ${job.progress.total} after ${fmt.s(lastReport - started)}`);
        }
        end();
        let drain: { ms: number; users: number } | undefined;
        if (aborted) {
          // As a second run taking the job over would: the lease changes hands, and the worker stops at its next heartbeat.
          const drainStarted = performance.now();
          const usersBefore = calls.calls('cognito AdminCreateUser');
          await updateItem({ Key: keys.bulkJob(org.uuid, jobUrl.split('/').at(-1)!), UpdateExpression: 'SET lease = :lease', ExpressionAttributeValues: { ':lease': { runId: 'bench-abandoned', until: Date.now() + 3_600_000 } } });
          for (let seen = -1, quietSince = 0; performance.now() - quietSince < 5000 && performance.now() - drainStarted < 180_000; await sleep(250)) {
            const now = calls.calls('cognito AdminCreateUser') + calls.calls('cognito AdminSetUserPassword');
            if (now !== seen) [seen, quietSince] = [now, performance.now()];
          }
          drain = { ms: performance.now() - drainStarted, users: calls.calls('cognito AdminCreateUser') - usersBefore };
        } else job = await readJob();
        return { async, csvBytes: Buffer.byteLength(body), answer, job, jobMs: job && !aborted ? Date.parse(job.updatedAt) - Date.parse(job.createdAt) : undefined, aborted, drain };
      });

    /** Users written one at a time (the worker's claim pre-check, then the ceiling's calls), every call timed by the recorder. */
    const profile = async (label: string, name: string) => {
      const [org, before, calls] = [await newOrg(name), pool(), tally()];
      const mail = await mailContext(org);
      const stop = startRecording(calls.add);
      const started = performance.now();
      for (let i = 0; i < 20; i++) {
        await getEmailClaim(org.uuid, user(name, i).email);
        await createDirectly(org, user(name, i), mail);
      }
      const msPerUser = (performance.now() - started) / 20;
      stop();
      await mailbox(true);
      return { label, pool: before, users: 20, msPerUser, calls };
    };

    const run: Run = { sizes: [], dryRuns: [], profiles: [], large: LARGE, capMs: CAP_MS, syncWaitS: SYNC_WAIT_S, concurrency: CONCURRENCY };
    progress(`local stack ready in ${fmt.s(stack.readyMs)} (in this process); warm-up (unreported)`);
    await apiImport(await newOrg('bulk-warm-api'), 'warm', 20, false);
    await ceiling(await newOrg('bulk-warm-ceiling'), 'warm', 20);
    for (const rows of [...SMALL, LARGE]) {
      progress(`dry run ${rows}`);
      run.dryRuns.push(await apiImport(await newOrg(`bulk-dry-${rows}`), `s${rows}`, rows, rows === LARGE, true));
    }
    run.profiles.push(await profile(`before the ${SMALL[0]}-row runs`, 'bulk-profile-a'));
    for (const rows of SMALL) {
      // The ceiling first, then the import, which so meets a pool larger by the ceiling's users.
      progress(`ceiling ${rows}, then API import ${rows}`);
      const sameSize = await ceiling(await newOrg(`bulk-ceiling-${rows}`), `s${rows}`, rows);
      const api = await apiImport(await newOrg(`bulk-api-${rows}`), `s${rows}`, rows, false);
      run.sizes.push({ rows, api, ceilings: [{ label: 'same size', run: sameSize }], ceilingMsPerUser: sameSize.wallMs / rows, extrapolated: false });
    }
    run.profiles.push(await profile(`after the ${fmt.int(SMALL[1]!)}-row runs`, 'bulk-profile-b'));
    // The large file between two reduced ceilings: cognito-local's cost per user grows with its pool, so they bracket the import.
    progress(`ceiling ${REDUCED}, API import ${LARGE} (respond-async, cap ${fmt.min(CAP_MS)}), ceiling ${REDUCED}`);
    const before = await ceiling(await newOrg(`bulk-ceiling-${LARGE}-before`), `s${LARGE}`, REDUCED);
    const api = await apiImport(await newOrg(`bulk-api-${LARGE}`), `s${LARGE}`, LARGE, true);
    const after = await ceiling(await newOrg(`bulk-ceiling-${LARGE}-after`), `s${LARGE}`, REDUCED);
    const ceilings = [{ label: `${REDUCED} users before the import`, run: before }, { label: `${REDUCED} users after the import`, run: after }];
    run.sizes.push({ rows: LARGE, api, ceilings, ceilingMsPerUser: sum(ceilings.map((c) => c.run.wallMs)) / (2 * REDUCED), extrapolated: true });
    run.profiles.push(await profile(`after the ${fmt.int(LARGE)}-row runs`, 'bulk-profile-c'));
    return {
      Setup: [
        bullets([
          `One local stack **in the bench's own process** (\`startLocalStack\`, a fresh temporary data directory, PORT 0; ready in ${fmt.s(stack.readyMs)}): gateway, handler modules, the bulk worker that s3rver's object event starts, and the Node emulators (s3rver, cognito-local, aws-ses-v2-local) share one event loop; DynamoDB Local runs in its own JVM. ${cpuCount()} CPUs. Memory figures are the whole Node process's, emulators included.`,
          `Every file, dry run and ceiling writes into a fresh organization; rows are VIEWERs of its one bot with a given password; the API file and the ceiling of one size write the same users. API: \`POST …/users/bulk-create\` (multipart) with the ADMIN's token; ${SMALL.map(fmt.int).join(' and ')} rows synchronously (the call waits up to ${SYNC_WAIT_S} s, then answers 202 and is polled), ${fmt.int(LARGE)} with \`Prefer: respond-async\`, polled every second, abandoned after ${fmt.min(CAP_MS)}.`,
          `Ceiling: \`registerUser\`, \`sendWelcome\` (the realm read once, as the worker does) and \`markWelcomed\`, ${CONCURRENCY} users at a time: the worker's per-user calls for a new user. Charged to the worker by the ratio: the upload, parsing, rules 1-7, \`createOne\`'s claim pre-check, the job's writes and the HTTP side. For ${fmt.int(LARGE)} rows the ceiling is **extrapolated** from reduced runs of ${fmt.int(REDUCED)} users before and after the import.`,
          `Unreported first: a 20-row import and a 20-user ceiling. Before each phase the SES emulator's mailbox is cleared and two full GCs run (\`--expose-gc\`${fullGc() ? '' : ': **not available in this run**'}); memory is sampled every 50 ms; every AWS call of the process is counted, timed and its DynamoDB units recorded by a middleware on the product's clients. The handlers' INFO log lines (${fmt.int(stack.dropped())}) were dropped after formatting.`,
        ]),
      ],
      ...bulkTables(run),
    };
  },
});
