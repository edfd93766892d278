/** The tables of bench/bulk-figures.md, declared over what bulk.bench.ts measured. */
import type { JobView } from '../shared/bulk/bulk.service';
import { bullets, fmt, sum, table, type Column, type PhaseFigures, type Sections, type Tally } from './harness';

export interface ImportResult {
  async: boolean;
  csvBytes: number;
  /** The POST's answer. */
  answer: { status: number; ms: number };
  job?: JobView;
  /** The job's own time: createdAt (before the upload is stored) to its last update. */
  jobMs?: number;
  aborted: boolean;
  /** When abandoned at the cap: how long the worker took to stop, and the users it created meanwhile. */
  drain?: { ms: number; users: number };
}
export type Phase<T> = PhaseFigures & { result: T; pool: { users: number; bytes: number }; mails?: number; retained: number; retainedWithoutMail: number; load: string };
/** A file size: its API import, the ceilings it is compared with, and the ceiling's time per user (measured, or extrapolated from reduced runs). */
type Size = { rows: number; api: Phase<ImportResult>; ceilings: { label: string; run: Phase<{ users: number }> }[]; ceilingMsPerUser: number; extrapolated: boolean };
/** Users written one at a time with every call timed, and the pool they met. */
type Profile = { label: string; pool: { users: number; bytes: number }; users: number; msPerUser: number; calls: Tally };
export type BulkRun = { sizes: Size[]; dryRuns: Phase<ImportResult>[]; profiles: Profile[]; large: number; capMs: number; syncWaitS: number; concurrency: number };

const SERVICES = ['cognito', 'dynamodb', 'ses', 's3'];
/** The issue's aim for the large file on the local stack. */
const LARGE_AIM_MIN = 5;
const heap = (f: PhaseFigures) => f.peak.heapUsed - f.baseline.heapUsed;
const cpuShare = (f: PhaseFigures) => `${fmt.s(f.cpuMs)} (${fmt.share(f.cpuMs, f.wallMs)})`;
const created = (f: PhaseFigures) => f.calls.calls('cognito AdminCreateUser');
const perUser = (calls: Tally, users: number, pick: (command: string) => string | undefined) => {
  const by = new Map<string, number>();
  for (const [command, figure] of calls.byCommand) {
    const name = pick(command);
    if (name) by.set(name, (by.get(name) ?? 0) + figure.calls);
  }
  return [...by].sort().map(([name, n]) => `${name} ${(n / Math.max(1, users)).toFixed(2)}`).join(', ');
};
const serviceMs = (p: Profile, service: string) => sum([...p.calls.byCommand].filter(([c]) => c.startsWith(`${service} `)).map(([, f]) => f.ms)) / p.users;

const rowsDone = (s: Size) => (s.api.result.aborted ? (s.api.result.job?.progress.processed ?? 0) : s.rows);
const apiRate = (s: Size) => rowsDone(s) / (s.api.wallMs / 1000);
const ratio = (s: Size) => apiRate(s) / (1000 / s.ceilingMsPerUser);
type Memory = [label: string, phase: Phase<unknown>, csvBytes: number | undefined];
/** Each phase of a size: the API import, then its ceilings. */
const memoryRows = (run: BulkRun): Memory[] =>
  run.sizes.flatMap((s) => [
    [`${fmt.int(s.rows)} rows, API${s.api.result.aborted ? ' (abandoned at the cap)' : ''}`, s.api, s.api.result.csvBytes] as Memory,
    ...s.ceilings.map((c): Memory => [`${fmt.int(c.run.result.users)} users, ceiling (${c.label})`, c.run, undefined]),
  ]);

function phases(run: BulkRun) {
  type Row = { rows: number; path: string; counts: string; f: Phase<unknown>; rate: string; job?: number };
  const rows: Row[] = run.sizes.flatMap((s) => {
    const { result: r } = s.api;
    const how = r.async
      ? `API, \`Prefer: respond-async\` (202 after ${fmt.s(r.answer.ms)}), polled${r.aborted ? `, **abandoned after ${fmt.min(run.capMs)}**` : ''}`
      : `API, synchronous (answered ${r.answer.status} after ${fmt.s(r.answer.ms)})`;
    const counts = r.aborted ? `${fmt.int(rowsDone(s))} processed at the cap` : r.job ? `${fmt.int(r.job.counts.created)} / ${fmt.int(r.job.counts.rows)}${r.job.counts.failed ? `, ${r.job.counts.failed} failed` : ''}` : '–';
    return [
      { rows: s.rows, path: how, counts, f: s.api, rate: `**${apiRate(s).toFixed(1)}**${r.aborted ? ' (partial)' : ''}`, job: r.jobMs },
      ...s.ceilings.map((c) => ({ rows: s.rows, path: `ceiling (${c.label})`, counts: fmt.int(c.run.result.users), f: c.run, rate: (c.run.result.users / (c.run.wallMs / 1000)).toFixed(1) })),
    ];
  });
  return [
    table(rows, [
      ['rows', (r) => fmt.int(r.rows), 'right'],
      ['path', (r) => r.path],
      ['created / rows', (r) => r.counts, 'right'],
      ['pool users before', (r) => fmt.int(r.f.pool.users), 'right'],
      ['wall', (r) => fmt.s(r.f.wallMs), 'right'],
      ['rows/s', (r) => r.rate, 'right'],
      ['job time', (r) => (r.job === undefined ? '–' : fmt.s(r.job)), 'right'],
      ['to 1st AdminCreateUser', (r) => (r.f.firstCallMs === undefined || !r.path.startsWith('API') ? '–' : fmt.s(r.f.firstCallMs)), 'right'],
      ['process CPU (share of wall)', (r) => cpuShare(r.f), 'right'],
      ['peak heapUsed over baseline', (r) => fmt.mib(heap(r.f)), 'right'],
      ['peak RSS over baseline', (r) => fmt.mib(r.f.peak.rss - r.f.baseline.rss), 'right'],
      ['max event-loop block ms', (r) => r.f.loopMaxMs.toFixed(0), 'right'],
      ['load 1 min after', (r) => r.f.load, 'right'],
    ]),
    '"pool users before": users in cognito-local\'s one pool when the phase started (all organizations share it). "to 1st AdminCreateUser": from the POST to the worker\'s first user (upload, parsing, rules 1-7). "max event-loop block": the longest delay of a 10 ms timer in the phase.',
  ];
}

function aims(run: BulkRun) {
  const thousand = run.sizes.find((s) => !s.api.result.async && s.rows >= 1000) ?? run.sizes.filter((s) => !s.api.result.async).at(-1);
  const large = run.sizes.at(-1)!;
  const [first, last] = [run.profiles[0]!, run.profiles.at(-1)!];
  const slope = (serviceMs(last, 'cognito') - serviceMs(first, 'cognito')) / Math.max(1, last.pool.users - first.pool.users);
  const answer = thousand?.api.result.answer;
  return [
    table(run.sizes, [
      ['rows', (s) => fmt.int(s.rows), 'right'],
      ['API rows/s', (s) => `${apiRate(s).toFixed(1)}${s.api.result.aborted ? ` over the ${fmt.int(rowsDone(s))} rows done by the cap` : ''}`, 'right'],
      ['ceiling rows/s', (s) => `${(1000 / s.ceilingMsPerUser).toFixed(1)}${s.extrapolated ? `, **extrapolated** from ${s.ceilings.map((c) => `${(c.run.wallMs / c.run.result.users).toFixed(1)} ms`).join(' and ')} per user` : ', measured'}`],
      ['API ÷ ceiling', (s) => `**${ratio(s).toFixed(2)}**`, 'right'],
      ['aim ≥ 0.5', (s) => `${ratio(s) >= 0.5 ? 'met' : 'not met'}${s.api.result.aborted ? ' (on the part done)' : ''}`],
    ]),
    bullets([
      thousand && answer &&
        `${fmt.int(thousand.rows)} rows within the synchronous limit: ${answer.status === 200 ? `**met**: answered 200 after ${fmt.s(answer.ms)} (limit ${run.syncWaitS} s)` : `**not met**: answered ${answer.status} after ${fmt.s(answer.ms)}; the job finished ${fmt.s(thousand.api.wallMs)} after the POST`}.`,
      `${fmt.int(run.large)} rows within ${LARGE_AIM_MIN} minutes: ${!large.api.result.aborted && large.api.wallMs <= LARGE_AIM_MIN * 60_000 ? `**met** (${fmt.min(large.api.wallMs)}, ${apiRate(large).toFixed(1)} rows/s)` : `**not met** (${large.api.result.aborted ? `abandoned at ${fmt.min(run.capMs)}` : fmt.min(large.api.wallMs)})`}.`,
      `Memory flat in file size: peak heapUsed over baseline ${run.sizes.map((s) => `${fmt.mib(heap(s.api))} at ${fmt.int(s.rows)} rows`).join(', ')}; peak RSS over baseline ${run.sizes.map((s) => `${fmt.mib(s.api.peak.rss - s.api.baseline.rss)}`).join(', ')} (CSV ${run.sizes.map((s) => fmt.kib(s.api.result.csvBytes)).join(', ')}).`,
      large.api.result.aborted
        ? `The ${fmt.int(run.large)}-row import did not finish within ${fmt.min(run.capMs)}: ${fmt.int(rowsDone(large))} rows processed, ${apiRate(large).toFixed(2)} rows/s. The bench then took the job's lease; the worker stopped ${fmt.s(large.api.result.drain!.ms)} later, after ${large.api.result.drain!.users} more users. At the ceiling's pace the file would take about ${fmt.min(run.large * large.ceilingMsPerUser)} (extrapolated).`
        : `The ${fmt.int(run.large)}-row import finished in ${fmt.min(large.api.wallMs)}; its ceiling, extrapolated, ${fmt.min(run.large * large.ceilingMsPerUser)}.`,
      `cognito-local's cost per user against its pool (its store appends each write to a journal, folded into the snapshot once the journal outgrows it: infra/local/cognito-store.ts): its calls cost ${run.profiles.map((p) => `${serviceMs(p, 'cognito').toFixed(1)} ms per user with ${fmt.int(p.pool.users)} users`).join(', ')} (${slope >= 0 ? '+' : ''}${(slope * 1000).toFixed(2)} ms per 1,000 more users in the pool).`,
    ]),
  ];
}

const dryRuns = (run: BulkRun) => [
  'Each file imported with `?dryRun=true` into a fresh organization first: upload, S3 object and event, the streamed CSV, rules 1-7 (an e-mail-claim read per row), the outcome; no user is created.',
  table(run.dryRuns, [
    ['rows', (d) => fmt.int(d.result.job?.counts.rows ?? 0), 'right'],
    ['CSV', (d) => fmt.kib(d.result.csvBytes), 'right'],
    ['call', (d) => (d.result.async ? '`Prefer: respond-async`, polled' : `synchronous, answered ${d.result.answer.status}`)],
    ['wall', (d) => fmt.s(d.wallMs), 'right'],
    ['job time', (d) => (d.result.jobMs === undefined ? '–' : fmt.s(d.result.jobMs)), 'right'],
    ['rows/s', (d) => ((d.result.job?.counts.rows ?? 0) / (d.wallMs / 1000)).toFixed(0), 'right'],
    ['process CPU', (d) => cpuShare(d), 'right'],
    ['peak heapUsed over baseline', (d) => fmt.mib(heap(d)), 'right'],
    ['peak RSS over baseline', (d) => fmt.mib(d.peak.rss - d.baseline.rss), 'right'],
    ['max event-loop block ms', (d) => d.loopMaxMs.toFixed(0), 'right'],
    ['DynamoDB calls per row', (d) => perUser(d.calls, d.result.job?.counts.rows ?? 0, (c) => (c.startsWith('dynamodb ') ? c.slice(9) : undefined))],
  ]),
];

const memory = (run: BulkRun) => [
  table<Memory>(memoryRows(run), [
    ['phase', ([label]) => label],
    ['CSV', ([, , csv]) => (csv === undefined ? '–' : fmt.kib(csv)), 'right'],
    ['heapUsed baseline', ([, f]) => fmt.mib(f.baseline.heapUsed), 'right'],
    ['peak over it', ([, f]) => fmt.mib(heap(f)), 'right'],
    ['… before the first user', ([, f, csv]) => (csv === undefined ? '–' : fmt.mib(f.peakBeforeFirst - f.baseline.heapUsed)), 'right'],
    ['peak RSS over baseline', ([, f]) => fmt.mib(f.peak.rss - f.baseline.rss), 'right'],
    ['heap retained after (GC)', ([, f]) => fmt.mib(f.retained - f.baseline.heapUsed), 'right'],
    ['… once the mailbox is cleared', ([, f]) => fmt.mib(f.retainedWithoutMail - f.baseline.heapUsed), 'right'],
    ['peak over the retained heap', ([, f]) => fmt.mib(f.peak.heapUsed - f.retained), 'right'],
    ['pool files before (snapshot + journal)', ([, f]) => fmt.mib(f.pool.bytes), 'right'],
    ['welcome e-mails', ([, f]) => (f.mails === undefined ? 'not counted' : fmt.int(f.mails)), 'right'],
  ]),
  "The emulators' state lives in this process: cognito-local holds its pool in memory and appends each write to a journal (folded into its snapshot when the journal outgrows it); aws-ses-v2-local keeps every e-mail until cleared. Compare an import with the ceiling of the same size, which has the same emulator costs and no worker.",
];

function timeSplit(run: BulkRun) {
  type Row = { c?: string; s?: string; rest?: boolean; wall?: boolean };
  const commands = [...new Set(run.profiles.flatMap((p) => [...p.calls.byCommand.keys()]))].sort();
  const cell = (p: Profile) => (r: Row) => {
    if (r.c) return ((f) => (f ? `${(f.calls / p.users).toFixed(1)} · ${(f.ms / f.calls).toFixed(2)}` : '–'))(p.calls.byCommand.get(r.c));
    if (r.s) return `**${serviceMs(p, r.s).toFixed(1)} ms** (${fmt.share(serviceMs(p, r.s), p.msPerUser)})`;
    if (r.rest) return `${(p.msPerUser - sum([...p.calls.byCommand.values()].map((f) => f.ms)) / p.users).toFixed(1)} ms`;
    return `**${p.msPerUser.toFixed(1)} ms**`;
  };
  return [
    "20 users written one at a time into a fresh organization at three points of the run: the worker's claim pre-check (`getEmailClaim`), then the ceiling's calls; each call timed by the recorder.",
    table<Row>([...commands.map((c) => ({ c })), ...SERVICES.slice(0, 3).map((s) => ({ s })), { rest: true }, { wall: true }], [
      ['call', (r) => (r.c ? r.c : r.s ? `${r.s}, per user` : r.rest ? 'the rest (in-process code between calls), per user' : '**one user, one at a time**')],
      ...run.profiles.map((p): Column<Row> => [`${p.label} (pool ${fmt.int(p.pool.users)} users, file ${fmt.mib(p.pool.bytes)}): calls/user · ms/call`, cell(p), 'right']),
    ]),
  ];
}

const callsPerUser = (run: BulkRun) => [
  'Every AWS call of the process during each phase (for the API also the HTTP side, the job bookkeeping, rules 1-7 and the polls); users = AdminCreateUser calls; units as DynamoDB Local reports `ConsumedCapacity`.',
  table<Memory>(memoryRows(run), [
    ['phase', ([label]) => label],
    ['calls per user', ([, f]) => perUser(f.calls, created(f), (c) => SERVICES.find((s) => c.startsWith(`${s} `)))],
    ['DynamoDB calls per user', ([, f]) => perUser(f.calls, created(f), (c) => (c.startsWith('dynamodb ') ? c.slice(9) : undefined))],
    ['RCU / WCU per user', ([, f]) => ((v) => `${(sum(v.map((x) => x.read)) / Math.max(1, created(f))).toFixed(1)} / ${(sum(v.map((x) => x.write)) / Math.max(1, created(f))).toFixed(1)}`)([...f.calls.byCommand.values()]), 'right'],
  ]),
];

/** The sections of bench/bulk-figures.md after its Setup. */
export const bulkTables = (run: BulkRun): Sections => ({
  Figures: phases(run),
  Aims: aims(run),
  'The worker before its first user (`?dryRun=true`)': dryRuns(run),
  Memory: memory(run),
  "Where a user's time goes": timeSplit(run),
  'Calls and units per user': callsPerUser(run),
});
