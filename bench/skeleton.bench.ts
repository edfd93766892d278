/** `npm run bench` (docs/benchmarks.md#walking-skeleton): bundle sizes, module load, stack start-up and gateway latency. */
import { spawnSync } from 'node:child_process';
import { version as esbuild } from 'esbuild';
import { passwordGrant } from '../infra/stack-target';
import { buildBundles, deployedMode, formatBundleTable, kib, modeDescription } from '../scripts/build-bundles';
import { benchmark, type Context } from './harness/benchmark';
import { check, fmt, series } from './harness/series';
import { accessToken, apiGet, orgUrl, placeholderConfig, POLL_MS, projectRoot, timeStarts } from './harness/stack';
import { pColumn, secondsColumns, seriesTable, table } from './harness/tables';

const MODE = deployedMode() === 'self-contained' ? 'self-contained' : 'sdk-external';
const LOAD_PROBE = 'const { performance } = require("node:perf_hooks"); const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';

/** Milliseconds `require(bundle)` takes in a fresh node process with source maps enabled, as the deployed functions run. */
function loadOnce(bundle: string): number {
  const env = { PATH: process.env.PATH, ...placeholderConfig, POWERTOOLS_SERVICE_NAME: 'bench' };
  const result = spawnSync(process.execPath, ['--enable-source-maps', '-e', LOAD_PROBE, bundle], { cwd: projectRoot, env, encoding: 'utf8', timeout: 30_000 });
  check(result.status === 0 && Number(result.stdout) >= 0, `Loading ${bundle} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}; \`node -e "require('${bundle}')"\` shows the whole error`);
  return Number(result.stdout);
}

/** The first demo ADMIN's token, the bundles built (while the stack idles), and the latency series' counts. */
async function data({ stack, size }: Context) {
  const org = stack.info.orgs[0]!;
  return { org, token: await accessToken(stack.info, org), bundles: await buildBundles({ mode: MODE }), grants: size(200, 20), reads: size(500, 50) };
}
type Data = Awaited<ReturnType<typeof data>>;

/** Password grants, then current-user reads, each series on its own after 5 warm-ups. */
function latency({ org, token, grants, reads }: Data, { stack: { info } }: Context) {
  const signIn = () => passwordGrant(info, org.name, org.admin.email, org.admin.password).then(async (r) => (await r.text(), r.status));
  return [
    { series: [series('token', 'POST …/protocol/openid-connect/token (password grant)', signIn, (status) => check(status === 200, `The token endpoint answered ${status}: see the stack's errors below`))], schedule: { warmUp: 5, block: grants, samples: grants } },
    { series: [series('user', 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', () => apiGet(`${orgUrl(info, org.uuid)}/users/identity-provider`, token.bearer))], schedule: { warmUp: 5, block: reads, samples: reads, between: token.refresh } },
  ];
}

/** Module loads and stack starts, the benchmark's own stack stopped first so that nothing else runs beside them. */
async function measure({ bundles }: Data, { size, progress, stack }: Context) {
  await stack.stop({ strict: true });
  const runs = size(10, 3);
  progress('module loads');
  const loads = bundles.map((report) => ({ report, samples: Array.from({ length: runs }, () => loadOnce(report.file)) }));
  const starts = await timeStarts([
    { label: '`node infra/local/start.mjs --fresh` (new data, seeding)', runs: size(5, 1), fresh: true },
    { label: '`node infra/local/start.mjs` (existing data, no seeding)', runs: size(5, 1), fresh: false },
    { label: '`npm start -- --fresh` (adds npm and its shell, as a user types it)', runs: size(3, 1), fresh: true, launcher: 'npm start' },
  ], progress);
  return { runs, loads, starts };
}

benchmark<Data, Awaited<ReturnType<typeof measure>>>({
  name: 'README',
  title: 'Walking skeleton: speed and size',
  stack: true,
  data,
  series: latency,
  measure,
  report: ({ data: { bundles }, measured: { runs, loads, starts }, series: latency }) => ({
    'Bundle sizes': [
      `Each function bundled by \`scripts/build-bundles.ts\` (esbuild ${esbuild}) with the options CDK NodejsFunction uses for infra/cloud/service-function.ts: ${modeDescription(MODE)}. 1 KiB = 1024 bytes. The size target, "250 KB", is read as 250,000 bytes, for every function but bulk-worker; "largest" columns come from the esbuild metafile.`,
      formatBundleTable(bundles),
    ],
    'Handler module load (cold start init)': [
      `Per function: ${runs} fresh \`node --enable-source-maps\` processes (the deployed functions' \`NODE_OPTIONS\`), each timing \`require(<bundle>)\`. Environment: harmless placeholders, since configuration is read lazily. The processes run in the repository, so the bundles resolve \`@aws-sdk/*\` from its node_modules, standing in for the Lambda runtime's copy. Lambda's own runtime bootstrap is not included.`,
      table(loads, [['function', (l) => l.report.group], ['minified KiB', (l) => kib(l.report.bytes), 'right'], pColumn(50), pColumn(95)]),
    ],
    'Local stack: launch to serving': [
      `Wall time from spawn until a real API call answers 200 (once the data directory's stack.json is written, a password grant of the first organization's ADMIN and \`GET …/users/identity-provider\` with its token, polled every ${POLL_MS} ms); then SIGTERM and wait for exit. PORT=0, one temporary data directory, the kinds alternating; "existing data" reuses the one the last start left. The start-up target is serving within 5 s.`,
      table(starts, [['launch', (s) => s.label], ['runs', (s) => s.samples.length, 'right'], ...secondsColumns<(typeof starts)[number]>()]),
    ],
    'Latency through the local gateway': [
      "The benchmark's own stack, freshly seeded; sequential requests from one client with keep-alive. Token: password grant of the first demo organization's ADMIN; current user: with an access token from that grant.",
      seriesTable(latency, [['max ms', (s) => fmt.ms(Math.max(...s.samples)), 'right']]),
    ],
  }),
});
