/**
 * `npm run bench`: the walking skeleton's speed and size: bundle sizes in both bundling modes, handler
 * module load in fresh Node processes, local stack start to serving, and token endpoint and current-user
 * latency through the local gateway. Report: bench/README-figures.md.
 */
import { spawnSync } from 'node:child_process';
import { version as esbuildVersion } from 'esbuild';
import type { Launcher } from '../infra/local/stack-child';
import { passwordGrant } from '../infra/stack-target';
import { buildBundles, bundleDir, formatBundleTable, kib, modeDescription, type BundleReport } from '../scripts/build-bundles';
import { accessToken, benchmark, check, fmt, interleave, percentile, placeholderConfig, POLL_MS, projectRoot, series, startStack, table, tempDir, type Column, type Context, type Sections, type Series } from './harness';

/** Harmless values, so that a function reading configuration eagerly at load does not crash. */
const FUNCTION_ENV = { ...placeholderConfig, POWERTOOLS_SERVICE_NAME: 'bench' };
const LOAD_PROBE = 'const { performance } = require("node:perf_hooks"); const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';
const MODES = ['sdk-external', 'self-contained'] as const;

/** Milliseconds `require(bundle)` takes in a fresh node process. */
function loadOnce(bundle: string, sourceMaps: boolean): number {
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '-e', LOAD_PROBE, bundle];
  const result = spawnSync(process.execPath, args, { cwd: projectRoot, env: { PATH: process.env.PATH, ...FUNCTION_ENV }, encoding: 'utf8', timeout: 30_000 });
  const value = Number(result.stdout);
  check(result.status === 0 && Number.isFinite(value), `Loading ${bundle} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}`);
  return value;
}

/** Every function bundled in both modes. */
async function data({ progress }: Context): Promise<Record<(typeof MODES)[number], BundleReport[]>> {
  const bundles = {} as Record<(typeof MODES)[number], BundleReport[]>;
  for (const mode of MODES) {
    progress(`bundles, ${mode}`);
    bundles[mode] = await buildBundles({ mode });
  }
  return bundles;
}
type Data = Awaited<ReturnType<typeof data>>;

/** Each bundle loaded `runs` times with and without source maps, interleaved so that a slow spell of the machine does not land on one variant only. */
function moduleLoads(bundles: BundleReport[], runs: number) {
  const loads = bundles.map((report) => ({ report, plain: [] as number[], maps: [] as number[] }));
  for (const load of loads) {
    for (let i = 0; i < runs; i++) {
      load.plain.push(loadOnce(load.report.file, false));
      load.maps.push(loadOnce(load.report.file, true));
    }
  }
  return loads;
}

/** Starts of the stack (fresh, on existing data, through `npm start`), each timed until a real API call answers. */
async function stackStarts({ size, progress }: Context) {
  const dataDir = tempDir('bench-starts-');
  const starts: { label: string; runs: number; fresh: boolean; launcher: Launcher; samples: number[] }[] = [
    { label: '`node --import tsx infra/local/main.ts --fresh` (new data, seeding)', runs: size(5, 1), fresh: true, launcher: 'node', samples: [] },
    { label: '`node --import tsx infra/local/main.ts` (existing data, no seeding)', runs: size(5, 1), fresh: false, launcher: 'node', samples: [] },
    { label: '`npm start -- --fresh` (adds npm and its shell, as a user types it)', runs: size(3, 1), fresh: true, launcher: 'npm start', samples: [] },
  ];
  for (const start of starts) {
    progress(`stack starts: ${start.label}`);
    for (let i = 0; i < start.runs; i++) {
      const stack = await startStack({ dataDir, fresh: start.fresh, launcher: start.launcher });
      await stack.stop({ strict: true });
      start.samples.push(stack.readyMs);
    }
  }
  return starts;
}

/** Password grants, then current-user reads, on a freshly seeded stack; each series on its own after 5 warm-ups. */
async function latency({ size, progress }: Context): Promise<Series[]> {
  progress('latency');
  const stack = await startStack();
  const org = stack.info.orgs[0]!;
  const token = await accessToken(stack.info, org);
  const ok = (response: Response) => response.text().then((body) => check(response.status === 200, `answered ${response.status}: ${body.slice(0, 200)}`));
  const [TOKENS, USERS] = [size(200, 20), size(500, 50)];
  const grant = series('token', 'POST …/protocol/openid-connect/token (password grant)', () => passwordGrant(stack.info, org.name, org.admin.email, org.admin.password).then(ok));
  const user = series('user', 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', () => fetch(`${stack.info.apiUrl}/${stack.info.userSubpath}/org/${org.uuid}/users/identity-provider`, { headers: { authorization: token.bearer } }).then(ok));
  await interleave([grant], { warmUp: 5, block: TOKENS, samples: TOKENS });
  await interleave([user], { warmUp: 5, block: USERS, samples: USERS, between: token.refresh });
  await stack.stop({ strict: true });
  return [grant, user];
}

async function measure(bundles: Data, context: Context) {
  context.progress('module loads');
  const runs = context.size(10, 3);
  return { runs, loads: moduleLoads(Object.values(bundles).flat(), runs), starts: await stackStarts(context), latency: await latency(context) };
}
type Measured = Awaited<ReturnType<typeof measure>>;

const ms = (head: string, samples: (row: Measured['loads'][number]) => number[], p: number): Column<Measured['loads'][number]> => [head, (l) => fmt.ms(percentile(samples(l), p), 1), 'right'];
const seconds = (head: string, value: (samples: number[]) => number): Column<Measured['starts'][number]> => [head, (s) => (value(s.samples) / 1000).toFixed(2), 'right'];

function report(bundles: Data, { runs, loads, starts, latency }: Measured): Sections {
  return {
    'Bundle sizes': [
      'Each function bundled by `scripts/build-bundles.ts` with the options CDK NodejsFunction uses for infra/cloud/service-function.ts (esbuild, CJS, minified, target node22, linked source map). 1 KiB = 1024 bytes. The target is the issue\'s "250 KB", read as 250,000 bytes, for every function but bulk-worker; "largest" columns come from the esbuild metafile.',
      ...MODES.flatMap((mode) => [`### ${modeDescription(mode)}`, formatBundleTable(bundles[mode])]),
    ],
    'Handler module load (cold start init)': [
      `Per function and bundle: ${runs} fresh \`node\` processes, each timing \`require(<bundle>)\`; median and p95. The deployed functions run with \`NODE_OPTIONS=--enable-source-maps\`, which makes Node parse the source map at load: both are given. Environment: harmless placeholders, since configuration is read lazily. The processes run in the repository (${bundleDir('sdk-external').replace(`${projectRoot}/`, '')}), so sdk-external bundles resolve \`@aws-sdk/*\` from its node_modules, standing in for the Lambda runtime's copy. Lambda's own runtime bootstrap is not included.`,
      table(loads, [
        ['function', (l) => l.report.group],
        ['bundle', (l) => l.report.mode],
        ['minified KiB', (l) => kib(l.report.bytes), 'right'],
        ms('median ms', (l) => l.plain, 50),
        ms('p95 ms', (l) => l.plain, 95),
        ms('median ms, `--enable-source-maps`', (l) => l.maps, 50),
        ms('p95 ms, `--enable-source-maps`', (l) => l.maps, 95),
      ]),
    ],
    'Local stack: launch to serving': [
      `Wall time from spawn until a real API call answers 200: once the data directory's stack.json is written, a password grant for the first organization's ADMIN and \`GET /{user_subpath}/org/{org}/users/identity-provider\` with its token, both 200, polled every ${POLL_MS} ms; then SIGTERM and wait for exit. PORT=0, a temporary data directory; "existing data" reuses the one the fresh runs left. The issue's target is serving within 5 s.`,
      table(starts, [['launch', (s) => s.label], ['runs', (s) => s.samples.length, 'right'], seconds('min s', (v) => Math.min(...v)), seconds('median s', (v) => percentile(v, 50)), seconds('max s', (v) => Math.max(...v))]),
    ],
    'Latency through the local gateway': [
      "One freshly seeded local stack; sequential requests from one client with keep-alive, after 5 unmeasured warm-up requests each. Token: password grant of the first demo organization's admin; current user: with an access token from that grant. Both run the handler modules Lambda runs, against the emulators (DynamoDB Local, cognito-local).",
      table(latency, [
        ['request', (s) => s.label],
        ['requests', (s) => s.samples.length, 'right'],
        ...[50, 95, 99].map((p): Column<Series> => [`p${p} ms`, (s) => fmt.ms(percentile(s.samples, p), 1), 'right']),
        ['max ms', (s) => fmt.ms(Math.max(...s.samples), 1), 'right'],
      ]),
    ],
  };
}

benchmark<Data, Measured>({
  name: 'README',
  script: 'bench',
  title: 'Walking skeleton: speed and size',
  tools: () => ({ npm: spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim(), esbuild: esbuildVersion }),
  data,
  measure,
  report: ({ data: bundles, measured }) => report(bundles, measured),
});
