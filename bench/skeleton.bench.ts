/**
 * `npm run bench`: the walking skeleton's speed and size figures (issue 2, "Speed and size"), printed as
 * markdown and written to bench/README-figures.md. A benchmark, not a test: it asserts nothing.
 *
 *   a. bundle sizes, both bundling modes (scripts/build-bundles.ts)
 *   b. handler module load per function: `require()` of the built bundle in fresh Node processes
 *   c. local stack start to serving: `node --import tsx infra/local/main.ts`, fresh and warm data
 *   d. token endpoint and current-user latency through the local gateway, sequential requests
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { version as esbuildVersion } from 'esbuild';
import {
  buildBundles,
  bundleDir,
  formatBundleTable,
  kib,
  modeDescription,
  projectRoot,
  type BundleMode,
  type BundleReport,
} from '../scripts/build-bundles';
import {
  POLL_MS,
  formatMs as ms,
  hardware,
  loadAverage,
  passwordGrant,
  percentile,
  runBenchmark,
  startStack,
  stopStack,
  tempDir,
  type Launcher,
} from './support';

const LOAD_RUNS = 10;
const FRESH_STARTS = 5;
const WARM_STARTS = 3;
const NPM_STARTS = 3;
const TOKEN_REQUESTS = 200;
const USER_REQUESTS = 500;
/** Requests sent before measuring, so the figures describe a warm function, not its first call. */
const WARM_UP_REQUESTS = 5;

const seconds = (value: number) => (value / 1000).toFixed(2);

// ---------------------------------------------------------------------------------------------------
// b. Handler module load

/** Harmless values, so that a function reading configuration eagerly at load does not crash. */
const FUNCTION_ENV = {
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'x',
  BULK_BUCKET_NAME: 'x',
  USER_POOL_ID: 'x',
  USER_POOL_CLIENT_ID: 'x',
  SIGNING_KEY: 'file:/nonexistent',
  TOKEN_ISSUER: 'http://x',
  POWERTOOLS_SERVICE_NAME: 'bench',
};

const LOAD_PROBE =
  'const { performance } = require("node:perf_hooks");' +
  'const t = performance.now(); require(process.argv[1]);' +
  'process.stdout.write(String(performance.now() - t));';

function loadOnce(bundle: string, sourceMaps: boolean): number {
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '-e', LOAD_PROBE, bundle];
  const result = spawnSync(process.execPath, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, ...FUNCTION_ENV },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const value = Number(result.stdout);
  if (result.status !== 0 || !Number.isFinite(value)) {
    throw new Error(`Loading ${bundle} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}`);
  }
  return value;
}

interface LoadFigure {
  report: BundleReport;
  plain: number[];
  sourceMaps: number[];
}

function measureLoads(reports: BundleReport[]): LoadFigure[] {
  return reports.map((report) => {
    const plain: number[] = [];
    const sourceMaps: number[] = [];
    // Interleaved, so a slow spell of the machine does not land on one variant only.
    for (let i = 0; i < LOAD_RUNS; i++) {
      plain.push(loadOnce(report.file, false));
      sourceMaps.push(loadOnce(report.file, true));
    }
    return { report, plain, sourceMaps };
  });
}

function formatLoads(figures: LoadFigure[]): string {
  return [
    '| function | bundle | minified KiB | median ms | p95 ms | median ms, `--enable-source-maps` | p95 ms, `--enable-source-maps` |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...figures.map(
      ({ report, plain, sourceMaps }) =>
        `| ${report.group} | ${report.mode} | ${kib(report.bytes)} | ${ms(percentile(plain, 50))} | ${ms(percentile(plain, 95))} | ${ms(percentile(sourceMaps, 50))} | ${ms(percentile(sourceMaps, 95))} |`,
    ),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------
// c. and d. The local stack

interface StartFigure {
  label: string;
  samples: number[];
}

async function measureStarts(): Promise<StartFigure[]> {
  const dataDir = tempDir('bench-stack-');
  const run = async (fresh: boolean, launcher: Launcher = 'node --import tsx') => {
    const stack = await startStack({ dataDir, fresh, launcher });
    await stopStack(stack, { strict: true });
    return stack.readyMs;
  };
  const fresh: number[] = [];
  for (let i = 0; i < FRESH_STARTS; i++) fresh.push(await run(true));
  const warm: number[] = [];
  for (let i = 0; i < WARM_STARTS; i++) warm.push(await run(false));
  const npmFresh: number[] = [];
  for (let i = 0; i < NPM_STARTS; i++) npmFresh.push(await run(true, 'npm start'));
  return [
    { label: '`node --import tsx infra/local/main.ts --fresh` (new data, seeding)', samples: fresh },
    { label: '`node --import tsx infra/local/main.ts` (existing data, no seeding)', samples: warm },
    { label: '`npm start -- --fresh` (adds npm and the tsx CLI, as a user types it)', samples: npmFresh },
  ];
}

function formatStarts(figures: StartFigure[]): string {
  return [
    '| launch | runs | min s | median s | max s |',
    '|---|---:|---:|---:|---:|',
    ...figures.map(
      ({ label, samples }) =>
        `| ${label} | ${samples.length} | ${seconds(Math.min(...samples))} | ${seconds(percentile(samples, 50))} | ${seconds(Math.max(...samples))} |`,
    ),
  ].join('\n');
}

interface LatencyFigure {
  label: string;
  samples: number[];
}

async function timed(count: number, request: () => Promise<Response>, what: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARM_UP_REQUESTS + count; i++) {
    const started = performance.now();
    const response = await request();
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${body.slice(0, 200)}`);
    if (i >= WARM_UP_REQUESTS) samples.push(elapsed);
  }
  return samples;
}

async function measureLatency(): Promise<LatencyFigure[]> {
  const dataDir = tempDir('bench-latency-');
  const stack = await startStack({ dataDir, fresh: true, launcher: 'node --import tsx' });
  try {
    const { info } = stack;
    const org = info.orgs[0]!;
    const grant = passwordGrant(info, org);
    const tokenSamples = await timed(TOKEN_REQUESTS, grant, 'The token endpoint');

    const { access_token: accessToken } = (await (await grant()).json()) as { access_token: string };
    const userUrl = `${info.apiUrl}/${info.userSubpath}/org/${org.uuid}/users/identity-provider`;
    const currentUser = () => fetch(userUrl, { headers: { authorization: `Bearer ${accessToken}` } });
    const userSamples = await timed(USER_REQUESTS, currentUser, 'GET users/identity-provider');
    return [
      { label: 'POST …/protocol/openid-connect/token (password grant)', samples: tokenSamples },
      { label: 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', samples: userSamples },
    ];
  } finally {
    await stopStack(stack, { strict: true });
  }
}

function formatLatency(figures: LatencyFigure[]): string {
  return [
    '| request | requests | p50 ms | p95 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...figures.map(
      ({ label, samples }) =>
        `| ${label} | ${samples.length} | ${ms(percentile(samples, 50))} | ${ms(percentile(samples, 95))} | ${ms(percentile(samples, 99))} | ${ms(Math.max(...samples))} |`,
    ),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------

function machine(): string {
  const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim();
  return `${hardware()}; Node ${process.version}, npm ${npm}, esbuild ${esbuildVersion}`;
}

async function main(): Promise<void> {
  const benchStarted = performance.now();
  const sections: string[] = [];
  const emit = (text: string) => {
    sections.push(text);
    console.log(`${text}\n`);
  };

  emit(
    [
      '# Walking skeleton: speed and size',
      '',
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench\` (bench/skeleton.bench.ts) on ` +
        `${machine()}. Requests and starts run one at a time on purpose: the machine has few cores, and ` +
        `the client and the stack share them. Load average (1 min) at the start: ${loadAverage()}.`,
    ].join('\n'),
  );

  const modes: BundleMode[] = ['sdk-external', 'self-contained'];
  const bundles = new Map<BundleMode, BundleReport[]>();
  const sizeLines = [
    '## Bundle sizes',
    '',
    'Each function bundled by `scripts/build-bundles.ts` with the options CDK NodejsFunction uses for ' +
      'infra/cloud/service-function.ts (esbuild, CJS, minified, target node22, platform node, linked ' +
      'source map). 1 KiB = 1024 bytes. The target is the issue\'s "250 KB", read as 250,000 bytes ' +
      '(244.1 KiB), for every function but bulk-worker. "Largest" columns come from the esbuild metafile ' +
      '(bytes each input contributes to the minified output).',
  ];
  for (const mode of modes) {
    const reports = await buildBundles({ mode });
    bundles.set(mode, reports);
    sizeLines.push('', `### ${modeDescription(mode)}`, '', formatBundleTable(reports));
  }
  emit(sizeLines.join('\n'));

  const loads = measureLoads(modes.flatMap((mode) => bundles.get(mode)!));
  emit(
    [
      '## Handler module load (cold start init)',
      '',
      `Per function and bundle: ${LOAD_RUNS} fresh \`node\` processes, each timing \`require(<bundle>)\` with ` +
        '`performance.now()`; median and p95 (nearest rank, so with 10 runs p95 is the slowest). The ' +
        'deployed functions run with `NODE_OPTIONS=--enable-source-maps` (service-function.ts), which makes ' +
        'Node read and parse the source map at load: both columns are given. Environment: harmless ' +
        'placeholders (TABLE_NAME=x, SIGNING_KEY=file:/nonexistent, …), since configuration is read lazily. ' +
        `The processes run in the repository (${bundleDir('sdk-external').replace(projectRoot + '/', '')}), ` +
        "so the sdk-external bundles resolve `@aws-sdk/*` from the repository's node_modules, standing in " +
        "for the copy the Lambda runtime provides; that load time is included. Lambda's own runtime " +
        'bootstrap (before the handler module loads) is not.',
      '',
      formatLoads(loads),
    ].join('\n'),
  );

  const starts = await measureStarts();
  emit(
    [
      '## Local stack: launch to serving',
      '',
      'Wall time from spawn until the data directory\'s stack.json is written and ' +
        '`GET <authUrl>/auth/realms/<first org>/protocol/openid-connect/certs` answers 200, polled every ' +
        `${POLL_MS} ms; then SIGTERM and wait for exit. PORT=0 (a free port), a temporary data directory. ` +
        '"Existing data" reuses the directory the fresh runs left, so nothing is seeded. The issue\'s ' +
        'target is serving within 5 s.',
      '',
      formatStarts(starts),
    ].join('\n'),
  );

  const latency = await measureLatency();
  emit(
    [
      '## Latency through the local gateway',
      '',
      'One freshly seeded local stack; sequential requests from one client with keep-alive, after ' +
        `${WARM_UP_REQUESTS} unmeasured warm-up requests each. Token: password grant of the first demo ` +
        "organization's admin. Current user: with one access token from that grant. Both run the same " +
        'handler modules Lambda runs, against the emulators (dynalite, cognito-local), in one Node process.',
      '',
      formatLatency(latency),
    ].join('\n'),
  );

  const total = `The whole benchmark took ${seconds(performance.now() - benchStarted)} s; load average (1 min) at the end: ${loadAverage()}.`;
  emit(total);
  writeFileSync(join(projectRoot, 'bench', 'README-figures.md'), `${sections.join('\n\n')}\n`);
  console.log('Written to bench/README-figures.md');
}

runBenchmark(main);
