/**
 * `npm run bench`: the walking skeleton's speed and size: the bundles the CDK stack deploys, handler
 * module load in fresh Node processes, local stack start to serving, and token endpoint and
 * current-user latency through the local gateway. Report: bench/README-figures.md.
 */
import { spawnSync } from 'node:child_process';
import { version as esbuild } from 'esbuild';
import type { Launcher } from '../infra/local/stack-child';
import { passwordGrant } from '../infra/stack-target';
import { buildBundles, deployedMode, formatBundleTable, kib, modeDescription, type BundleReport } from '../scripts/build-bundles';
import { benchmark, type Context } from './harness/benchmark';
import { check, interleave, series, type Series } from './harness/series';
import { accessToken, apiGet, currentUserUrl, placeholderConfig, POLL_MS, projectRoot, startStack, tempDir } from './harness/stack';
import { fmt, percentile } from './harness/stats';
import { table, type Column } from './harness/tables';

const MODE = deployedMode() === 'self-contained' ? 'self-contained' : 'sdk-external';
const LOAD_PROBE = 'const { performance } = require("node:perf_hooks"); const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';

/** Milliseconds `require(bundle)` takes in a fresh node process with source maps enabled, as the deployed functions run. */
function loadOnce(bundle: string): number {
  const env = { PATH: process.env.PATH, ...placeholderConfig, POWERTOOLS_SERVICE_NAME: 'bench' };
  const result = spawnSync(process.execPath, ['--enable-source-maps', '-e', LOAD_PROBE, bundle], { cwd: projectRoot, env, encoding: 'utf8', timeout: 30_000 });
  check(result.status === 0 && Number(result.stdout) >= 0, `Loading ${bundle} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}`);
  return Number(result.stdout);
}

/** Starts of the stack (fresh, on existing data, through `npm start`), each timed until a real API call answers. */
async function stackStarts({ size, progress }: Context) {
  const dataDir = tempDir('bench-starts-');
  const starts: { label: string; runs: number; fresh: boolean; launcher: Launcher; samples: number[] }[] = [
    { label: '`node infra/local/start.mjs --fresh` (new data, seeding)', runs: size(5, 1), fresh: true, launcher: 'node', samples: [] },
    { label: '`node infra/local/start.mjs` (existing data, no seeding)', runs: size(5, 1), fresh: false, launcher: 'node', samples: [] },
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
  const [org, [grants, reads]] = [stack.info.orgs[0]!, [size(200, 20), size(500, 50)]];
  const token = await accessToken(stack.info, org);
  const signIn = () => passwordGrant(stack.info, org.name, org.admin.email, org.admin.password).then(async (r) => (await r.text(), r.status));
  const grant = series('token', 'POST …/protocol/openid-connect/token (password grant)', signIn, (status) => check(status === 200, `The token endpoint answered ${status}`));
  const user = series('user', 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', () => apiGet(currentUserUrl(stack.info, org.uuid), token.bearer));
  await interleave([grant], { warmUp: 5, block: grants, samples: grants });
  await interleave([user], { warmUp: 5, block: reads, samples: reads, between: token.refresh });
  await stack.stop({ strict: true });
  return [grant, user];
}

async function measure(bundles: BundleReport[], context: Context) {
  const runs = context.size(10, 3);
  context.progress('module loads');
  const loads = bundles.map((report) => ({ report, samples: Array.from({ length: runs }, () => loadOnce(report.file)) }));
  return { runs, loads, starts: await stackStarts(context), latency: await latency(context) };
}
type Measured = Awaited<ReturnType<typeof measure>>;

const ms = (p: number): Column<{ samples: number[] }> => [`p${p} ms`, (row) => fmt.ms(percentile(row.samples, p), 1), 'right'];
const seconds = (head: string, value: (samples: number[]) => number): Column<{ samples: number[] }> => [head, (s) => (value(s.samples) / 1000).toFixed(2), 'right'];

benchmark<BundleReport[], Measured>({
  name: 'README',
  script: 'bench',
  title: 'Walking skeleton: speed and size',
  data: () => buildBundles({ mode: MODE }),
  measure,
  report: ({ data: bundles, measured: { runs, loads, starts, latency } }) => ({
    'Bundle sizes': [
      `Each function bundled by \`scripts/build-bundles.ts\` (esbuild ${esbuild}) with the options CDK NodejsFunction uses for infra/cloud/service-function.ts: ${modeDescription(MODE)}. 1 KiB = 1024 bytes. The size target, "250 KB", is read as 250,000 bytes, for every function but bulk-worker; "largest" columns come from the esbuild metafile.`,
      formatBundleTable(bundles),
    ],
    'Handler module load (cold start init)': [
      `Per function: ${runs} fresh \`node --enable-source-maps\` processes (the deployed functions' \`NODE_OPTIONS\`), each timing \`require(<bundle>)\`. Environment: harmless placeholders, since configuration is read lazily. The processes run in the repository, so the bundles resolve \`@aws-sdk/*\` from its node_modules, standing in for the Lambda runtime's copy. Lambda's own runtime bootstrap is not included.`,
      table(loads, [['function', (l) => l.report.group], ['minified KiB', (l) => kib(l.report.bytes), 'right'], ms(50), ms(95)]),
    ],
    'Local stack: launch to serving': [
      `Wall time from spawn until a real API call answers 200 (once the data directory's stack.json is written, a password grant of the first organization's ADMIN and \`GET …/users/identity-provider\` with its token, polled every ${POLL_MS} ms); then SIGTERM and wait for exit. PORT=0, a temporary data directory; "existing data" reuses the one the fresh runs left. The start-up target is serving within 5 s.`,
      table(starts, [['launch', (s) => s.label], ['runs', (s) => s.samples.length, 'right'], seconds('min s', (v) => Math.min(...v)), seconds('median s', (v) => percentile(v, 50)), seconds('max s', (v) => Math.max(...v))]),
    ],
    'Latency through the local gateway': [
      "One freshly seeded local stack; sequential requests from one client with keep-alive, after 5 unmeasured warm-up requests each. Token: password grant of the first demo organization's ADMIN; current user: with an access token from that grant.",
      table(latency, [['request', (s) => s.label], ['requests', (s) => s.samples.length, 'right'], ms(50), ms(95), ms(99), ['max ms', (s) => fmt.ms(Math.max(...s.samples), 1), 'right']]),
    ],
  }),
});
