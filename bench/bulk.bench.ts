/** `npm run bench:bulk` (docs/benchmarks.md#bulk-create): 10,000 rows imported at Cognito's default quotas, and the worker alone. */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { QUOTAS_ENV, quotaRates, readQuotaUsage } from '../infra/local/cognito-quotas';
import { passwordGrant, runningLocalStack } from '../infra/stack-target';
import { saveUpload } from '../shared/domain/bulk/bulk-file.repository';
import { createJob, getJob } from '../shared/domain/bulk/bulk-job.repository';
import { bulkCreateColumns } from '../shared/app/bulk/bulk.limits';
import type { JobView } from '../shared/app/bulk/bulk.service';
import { readSendRate } from '../shared/adapters/mail/send-rate';
import { benchmark, type Context } from './harness/benchmark';
import { seedOrganization, type SeededOrganization as Org } from './harness/seed';
import { bullets, check, fmt, table, type Column } from './harness/series';
import type { WorkerResult } from './harness/bulk-worker';
import { accessToken, apiGet, onCleanUp, orgUrl, projectRoot } from './harness/stack';

// The stack applies AWS's default request quotas, whatever the shell sets.
delete process.env[QUOTAS_ENV];
const [AIM_OF_FLOOR, SIGN_INS, TABLE_EVERY_MS] = [1.25, 100, 30_000];
type Poll = { ms: number; job: JobView };
const data = async ({ size, stack }: Context) => ({ sync: size(100, 10), rows: size(10_000, 200), info: stack.info, functionEnv: runningLocalStack(stack.dataDir).functionEnv,
  creationRate: quotaRates().UserCreation, sesRate: (await readSendRate()).ratePerSecond });
type Data = Awaited<ReturnType<typeof data>>;
const email = (org: Org, i: number) => `user${i}.${org.name}@bulk-bench.example.com`;
/** A row with a given password, or with none: a generated, temporary one comes with the account (one Cognito call, under UserCreation). */
const row = (org: Org, i: number, given: boolean) => [email(org, i), `Bench User ${i}`, `Company ${i % 40}`, given ? `Bench-${i}-pw` : '', 'VIEWER', org.environment.uuid, org.environment.name, org.bot.uuid];
const csv = (org: Org, rows: number, given = true) => [bulkCreateColumns, ...Array.from({ length: rows }, (_, i) => row(org, i, given))].map((fields) => `${fields.join(',')}\r\n`).join('');
const floor = (count: number, rate: number) => (1000 * count) / rate;
type Mail = { destination: { to: string[] }; body: { text?: string } };
const mailsOf = async (d: Data, org: Org) => ((await (await fetch(d.info.mailboxUrl)).json()) as { emails: Mail[] }).emails.filter((m) => m.destination.to.some((to) => to.includes(`.${org.name}@`)));
/** The generated password an English welcome gives. */
const mailedPassword = (mail: Mail | undefined) => /^Temporary password: (.+)$/m.exec(mail?.body.text ?? '')?.[1]?.trim() ?? '';

/** UserCreation's calls so far, as local Cognito counted them: admitted, and refused for its quota. */
async function creationCalls(d: Data) {
  const usage = await readQuotaUsage(d.info.endpoints.cognito);
  return { admitted: usage.admitted.UserCreation ?? 0, throttled: usage.throttled.UserCreation ?? 0 };
}

/** Password grants for up to `SIGN_INS` rows spread over the file, with their own passwords or those their welcomes gave (then "set up first" is accepted); those refused. */
async function signIns(d: Data, org: Org, rows: number, given: boolean) {
  const [n, failed, mails] = [Math.min(SIGN_INS, rows), [] as string[], given ? [] : await mailsOf(d, org)];
  for (const i of Array.from({ length: n }, (_, k) => Math.floor((k * rows) / n))) {
    const password = given ? `Bench-${i}-pw` : mailedPassword(mails.find((m) => m.destination.to.includes(email(org, i))));
    const response = await passwordGrant(d.info, org.name, email(org, i), password);
    const body = (await response.json()) as { access_token?: string; error_description?: string };
    if (!body.access_token && !(!given && /set up/i.test(body.error_description ?? ''))) failed.push(`row ${i + 1}: ${response.status} ${body.error_description ?? ''}`);
  }
  return { tried: n, failed };
}

/** A file into a fresh organization through the API; its job polled every second until `done`, then (the sample signing in meanwhile) until every welcome is settled. */
async function apiImport(d: Data, rows: number, async: boolean, progress: (message: string) => void) {
  progress(`import of ${rows} rows, ${async ? 'Prefer: respond-async' : 'synchronous'}`);
  const org = await seedOrganization(`bulk-${async ? 'async' : 'sync'}-${rows}`);
  const [token, form, url] = [await accessToken(d.info, org), new FormData(), `${orgUrl(d.info, org.uuid)}/users/bulk-create`];
  // The large file's passwords are generated: one Cognito call a user (a given one also costs AdminSetUserPassword, under UserAccountRecovery's 30/s).
  form.append('file', new Blob([csv(org, rows, !async)], { type: 'text/csv' }), `users-${rows}.csv`);
  const [calls, started] = [await creationCalls(d), performance.now()];
  const response = await fetch(url, { method: 'POST', headers: { authorization: token.bearer, ...(async && { prefer: 'respond-async' }) }, body: form });
  const answer = { status: response.status, ms: performance.now() - started, text: await response.text() };
  check([200, 202].includes(answer.status) && response.headers.has('location'), `bulk-create answered ${answer.status}: ${answer.text.slice(0, 300)}; its body and the stack's errors below say why`);
  const [jobUrl, polls, limitMs] = [new URL(response.headers.get('location')!, url).toString(), [] as Poll[], 120_000 + 3 * floor(rows, d.sesRate)];
  const poll = async (until: (p: Poll) => boolean): Promise<Poll> => {
    for (;; await sleep(1000)) {
      await token.refresh();
      const p = { job: JSON.parse(await apiGet(jobUrl, token.bearer)) as JobView, ms: performance.now() - started };
      polls.push(p);
      check(p.job.status !== 'failed', `The job failed: ${JSON.stringify(p.job.failure)}; the stack's errors follow`);
      if (until(p)) return p;
      check(p.ms < limitMs, `The job of ${rows} rows was not settled within ${fmt.s(limitMs)}: ${JSON.stringify({ ...p.job, errors: undefined })}; see the stack's errors below, or run fewer rows with --scale`);
      if (polls.length % 60 === 0) progress(`  ${p.job.status}, ${JSON.stringify(p.job.counts)}, welcomes ${JSON.stringify(p.job.welcomes)} after ${fmt.s(p.ms)}`);
    }
  };
  const done = await poll((p) => p.job.status === 'done');
  const callsAtDone = await creationCalls(d);
  const creation = { admitted: callsAtDone.admitted - calls.admitted, throttled: callsAtDone.throttled - calls.throttled };
  progress(`  ${rows} rows done after ${fmt.s(answer.status === 200 ? answer.ms : done.ms)} (aim for ${fmt.int(d.rows)} rows: ${fmt.s(AIM_OF_FLOOR * floor(d.rows, d.creationRate))}): ${fmt.int(done.job.counts.created)} users created, ${fmt.int(done.job.counts.failed)} rows failed; UserCreation calls admitted ${fmt.int(creation.admitted)}, throttled ${fmt.int(creation.throttled)}`);
  const welcomed = await poll(({ job: { welcomes: w, counts } }) => w.pending === 0 && w.sent + w.failed === counts.created);
  const signIn = await signIns(d, org, rows, !async);
  return { rows, async, answer, polls, done, creation, doneMs: answer.status === 200 ? answer.ms : done.ms, signIn, welcomed, mailbox: (await mailsOf(d, org)).length };
}
type Import = Awaited<ReturnType<typeof apiImport>>;

/** The file staged as an upload the stack's worker passes by (the object first: its event finds no job), then run by bench/harness/bulk-worker.ts in a child process with the functions' environment. */
async function workerAlone(d: Data, rows: number) {
  const [org, jobId, now] = [await seedOrganization(`bulk-worker-${rows}`), crypto.randomUUID(), new Date().toISOString()];
  await saveUpload(org.uuid, jobId, csv(org, rows)).then(() => sleep(1000));
  const staged = { jobId, orgUuid: org.uuid, requestedBy: org.admin.uuid, language: 'en', dryRun: false, status: 'queued', createdAt: now, updatedAt: now } as const;
  await createJob({ ...staged, counts: { rows: 0, created: 0, failed: 0 }, progress: { processed: 0, total: 0 } }).then(() => sleep(500));
  check(!(await getJob(org.uuid, jobId))?.lease, "The stack's own worker took the staged job: run the bench again");
  const [argv, started] = [['--import', 'tsx', `${projectRoot}/bench/harness/bulk-worker.ts`, org.uuid, jobId], performance.now()];
  const child = spawn(process.execPath, argv, { cwd: projectRoot, env: { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...d.functionEnv }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  onCleanUp(() => child.exitCode === null && child.kill('SIGKILL'));
  const result = new Promise<WorkerResult>((resolve) => child.once('message', (message) => resolve(message as WorkerResult)));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  check(code === 0, `The worker's process exited with ${code}: its output above says why`);
  return { rows, wallMs: performance.now() - started, ...(await result) };
}

async function measure(d: Data, { progress, scale }: Context) {
  const [sync, large] = [await apiImport(d, d.sync, false, progress), await apiImport(d, d.rows, true, progress)];
  progress(`the worker alone on ${d.rows} rows`);
  // The progress table's rows: one every 30 s at full size, at most 24.
  return { sync, large, every: Math.max(TABLE_EVERY_MS * Math.min(1, scale), large.welcomed.ms / 24), worker: await workerAlone(d, d.rows) };
}
type Measured = Awaited<ReturnType<typeof measure>>;
/** The first poll, then the first of every `every` ms, `done` and the last. */
const progressRows = (i: Import, every: number) => [...new Set([...i.polls.filter((p, k) => k === 0 || Math.floor(p.ms / every) > Math.floor(i.polls[k - 1]!.ms / every)), i.done, i.welcomed])].sort((a, b) => a.ms - b.ms);

function aims(d: Data, large: Import) {
  const [aim, running, signedIn] = [AIM_OF_FLOOR * floor(large.rows, d.creationRate), large.polls.filter((p) => p.job.status !== 'done'), large.signIn.failed.length === 0];
  const [firstCreated, created] = [running.find((p) => p.job.counts.created > 0), large.done.job.counts.created];
  const { failed } = large.done.job.counts;
  const everyone = created === large.rows && failed === 0;
  return bullets([
    `Every user exists and signs in within ${AIM_OF_FLOOR}× the UserCreation floor (${fmt.int(large.rows)} rows ÷ ${d.creationRate}/s = ${fmt.s(floor(large.rows, d.creationRate))}; aim ${fmt.s(aim)}): ${large.doneMs <= aim && signedIn && everyone ? '**met**' : '**not met**'}: \`done\` ${fmt.s(large.doneMs)} after the POST (${fmt.ratio(large.doneMs / floor(large.rows, d.creationRate))} the floor), **${fmt.int(created)} of ${fmt.int(large.rows)} users created, ${fmt.int(failed)} rows failed** (every row is valid: a failed row is a miss); Cognito admitted ${fmt.int(large.creation.admitted)} UserCreation calls and refused ${fmt.int(large.creation.throttled)} for its quota, each refused one paced and retried; ${large.signIn.tried - large.signIn.failed.length} of ${large.signIn.tried} sampled users signed in${signedIn ? '' : ` (refused: ${large.signIn.failed.slice(0, 5).join(', ')})`}.`,
    `Live counts: before \`done\`, ${running.length} polls saw ${new Set(running.map((p) => p.job.counts.created)).size} different values of \`counts.created\`${firstCreated ? `, the first above 0 after ${fmt.s(firstCreated.ms)}` : ': **none above 0**'}.`,
    `Every welcome settled ${fmt.s(large.welcomed.ms)} after the POST, ${fmt.ratio(large.welcomed.ms / floor(created, d.sesRate))} the SES floor (${fmt.int(created)} created ÷ ${d.sesRate}/s = ${fmt.s(floor(created, d.sesRate))}): ${fmt.int(large.welcomed.job.welcomes.sent)} sent, ${fmt.int(large.welcomed.job.welcomes.failed)} failed, ${fmt.int(large.mailbox)} in the mailbox.`,
  ]);
}

benchmark<Data, Measured>({
  title: 'Bulk create at Cognito’s pace', stack: true, data, measure,
  report: ({ data: d, measured: { sync, large, every, worker } }) => ({
    Setup: [
      `Cognito's default quotas (UserCreation ${d.creationRate}/s; \`${QUOTAS_ENV}\` unset) and the SES emulator's send rate, ${d.sesRate}/s.`,
      `Through the API, each file into a fresh organization, its rows VIEWERs of its one bot (the small file's with a given password, the large one's with none: each gets a generated, temporary one with its account, one Cognito call under UserCreation), by \`POST …/users/bulk-create\` (multipart) with the ADMIN's token: ${fmt.int(d.sync)} rows synchronously, then ${fmt.int(d.rows)} with \`Prefer: respond-async\`, run by the stack's own worker. Each job polled every second from the POST until \`done\`, and on until every welcome is settled (\`welcomes.pending\` 0, sent + failed = created); then ${SIGN_INS} users spread over the file sign in (password grants, one after another) with their given password, or with the temporary one their welcome gave (accepted: the grant answers that the account must be set up first). The SES emulator's mailbox is counted at the end.`,
      `The worker alone: the same ${fmt.int(d.rows)} rows staged as an upload the stack's worker passes by (the object first, the job a second later), then \`runBulkCreateJob\` in a Node process of its own (bench/harness/bulk-worker.ts) with the stack's function environment: its time to the job's end, \`process.resourceUsage().maxRSS\`, and heapUsed sampled every 50 ms. Its welcomes are not awaited.`,
    ],
    Figures: [
      table([sync, large], [
        ['rows', (i) => fmt.int(i.rows), 'right'], ['call', (i) => `${i.async ? '`Prefer: respond-async`, ' : ''}answered ${i.answer.status} after ${fmt.s(i.answer.ms)}`],
        ['created / failed', (i) => `${fmt.int(i.done.job.counts.created)} / ${fmt.int(i.done.job.counts.failed)}`, 'right'],
        ['to `done` (÷ UserCreation floor)', (i) => `**${fmt.s(i.doneMs)}** (${fmt.ratio(i.doneMs / floor(i.rows, d.creationRate))})`, 'right'],
        ['signed in', (i) => `${i.signIn.tried - i.signIn.failed.length} / ${i.signIn.tried}`, 'right'],
        ['to every welcome (÷ SES floor)', (i) => `**${fmt.s(i.welcomed.ms)}** (${fmt.ratio(i.welcomed.ms / floor(i.done.job.counts.created, d.sesRate))})`, 'right'],
        ['welcomes sent / failed, mailbox', (i) => `${fmt.int(i.welcomed.job.welcomes.sent)} / ${fmt.int(i.welcomed.job.welcomes.failed)}, ${fmt.int(i.mailbox)}`, 'right'],
      ]),
      `The ${fmt.int(large.rows)}-row job as the polls saw it: the first poll, the first of every ${fmt.s(every)}, \`done\` and the last.`,
      table(progressRows(large, every), [
        ['after the POST', (p) => fmt.s(p.ms), 'right'], ['status', (p) => p.job.status],
        ...(['rows', 'created', 'failed'] as const).map((key): Column<Poll> => [key, (p) => fmt.int(p.job.counts[key]), 'right']),
        ['welcomes sent / pending / failed', ({ job: { welcomes: w } }) => `${fmt.int(w.sent)} / ${fmt.int(w.pending)} / ${fmt.int(w.failed)}`, 'right'],
      ]),
      `The worker alone, ${fmt.int(worker.rows)} rows: **peak RSS ${fmt.mib(worker.maxRss)}**, peak heapUsed ${fmt.mib(worker.peakHeap)} (${fmt.mib(worker.loaded.rss)} and ${fmt.mib(worker.loaded.heap)} with its modules loaded, before the job); \`${worker.status}\` after ${fmt.s(worker.ms)}, ${fmt.ratio(worker.ms / floor(worker.rows, d.creationRate))} the UserCreation floor (${fmt.s(worker.wallMs)} from spawn to exit), counts ${JSON.stringify(worker.counts)}.`,
    ],
    Aims: [aims(d, large)],
  }),
});
