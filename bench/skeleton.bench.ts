/**
 * `npm run bench`: the walking skeleton's speed and size: bundle sizes in both bundling modes,
 * handler module load in fresh Node processes, local stack start to serving, and token endpoint and
 * current-user latency through the local gateway. Report: bench/README-figures.md.
 */
import { spawnSync } from 'node:child_process';
import { version as esbuildVersion } from 'esbuild';
import { buildBundles, bundleDir, formatBundleTable, kib, modeDescription, type BundleMode, type BundleReport } from '../scripts/build-bundles';
import { projectRoot } from './harness/machine';
import { benchmark, table } from './harness/report';
import { check, interleave, series, type Series } from './harness/series';
import { envNames } from '../shared/config';
import { accessToken, passwordGrant, POLL_MS, startStack, tempDir, type Launcher } from './harness/stack';
import { fmt, percentile } from './harness/stats';

/** Harmless values, so that a function reading configuration eagerly at load does not crash. */
const FUNCTION_ENV = {
  AWS_REGION: 'us-east-1',
  [envNames.tableName]: 'x',
  [envNames.bulkBucket]: 'x',
  [envNames.userPoolId]: 'x',
  [envNames.userPoolClientId]: 'x',
  [envNames.signingKey]: 'file:/nonexistent',
  [envNames.tokenIssuer]: 'http://x',
  POWERTOOLS_SERVICE_NAME: 'bench',
};
const LOAD_PROBE = 'const { performance } = require("node:perf_hooks"); const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';

/** Milliseconds `require(bundle)` takes in a fresh node process. */
function loadOnce(bundle: string, sourceMaps: boolean): number {
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '-e', LOAD_PROBE, bundle];
  const result = spawnSync(process.execPath, args, { cwd: projectRoot, env: { PATH: process.env.PATH, ...FUNCTION_ENV }, encoding: 'utf8', timeout: 30_000 });
  const value = Number(result.stdout);
  check(result.status === 0 && Number.isFinite(value), `Loading ${bundle} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}`);
  return value;
}

benchmark({
  name: 'README',
  script: 'bench',
  title: 'Walking skeleton: speed and size',
  tools: () => ({ npm: spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim(), esbuild: esbuildVersion }),
  async run({ size, progress }) {
    const [LOAD_RUNS, TOKENS, USERS] = [size(10, 3), size(200, 20), size(500, 50)];
    const sections: Record<string, string[]> = {};
    const modes: BundleMode[] = ['sdk-external', 'self-contained'];
    const bundles: BundleReport[] = [];
    sections['Bundle sizes'] = [
      'Each function bundled by `scripts/build-bundles.ts` with the options CDK NodejsFunction uses for infra/cloud/service-function.ts (esbuild, CJS, minified, target node22, linked source map). 1 KiB = 1024 bytes. The target is the issue\'s "250 KB", read as 250,000 bytes, for every function but bulk-worker; "largest" columns come from the esbuild metafile.',
    ];
    for (const mode of modes) {
      progress(`bundles, ${mode}`);
      const reports = await buildBundles({ mode });
      bundles.push(...reports);
      sections['Bundle sizes'].push(`### ${modeDescription(mode)}`, formatBundleTable(reports));
    }

    progress('module loads');
    // Interleaved, so that a slow spell of the machine does not land on one variant only.
    const loads = bundles.map((report) => ({ report, plain: [] as number[], maps: [] as number[] }));
    for (const load of loads) {
      for (let i = 0; i < LOAD_RUNS; i++) {
        load.plain.push(loadOnce(load.report.file, false));
        load.maps.push(loadOnce(load.report.file, true));
      }
    }
    sections['Handler module load (cold start init)'] = [
      `Per function and bundle: ${LOAD_RUNS} fresh \`node\` processes, each timing \`require(<bundle>)\`; median and p95. The deployed functions run with \`NODE_OPTIONS=--enable-source-maps\`, which makes Node parse the source map at load: both are given. Environment: harmless placeholders, since configuration is read lazily. The processes run in the repository (${bundleDir('sdk-external').replace(`${projectRoot}/`, '')}), so sdk-external bundles resolve \`@aws-sdk/*\` from its node_modules, standing in for the Lambda runtime's copy. Lambda's own runtime bootstrap is not included.`,
      table(loads, [
        ['function', (l) => l.report.group],
        ['bundle', (l) => l.report.mode],
        ['minified KiB', (l) => kib(l.report.bytes), 'right'],
        ['median ms', (l) => fmt.ms(percentile(l.plain, 50), 1), 'right'],
        ['p95 ms', (l) => fmt.ms(percentile(l.plain, 95), 1), 'right'],
        ['median ms, `--enable-source-maps`', (l) => fmt.ms(percentile(l.maps, 50), 1), 'right'],
        ['p95 ms, `--enable-source-maps`', (l) => fmt.ms(percentile(l.maps, 95), 1), 'right'],
      ]),
    ];

    const dataDir = tempDir('bench-starts-');
    const starts: { label: string; samples: number[] }[] = [
      { label: '`node --import tsx infra/local/main.ts --fresh` (new data, seeding)', samples: [] },
      { label: '`node --import tsx infra/local/main.ts` (existing data, no seeding)', samples: [] },
      { label: '`npm start -- --fresh` (adds npm and its shell, as a user types it)', samples: [] },
    ];
    const launches: [number, boolean, Launcher][] = [[size(5, 1), true, 'node --import tsx'], [size(5, 1), false, 'node --import tsx'], [size(3, 1), true, 'npm start']];
    for (const [k, [runs, fresh, launcher]] of launches.entries()) {
      progress(`stack starts: ${starts[k]!.label}`);
      for (let i = 0; i < runs; i++) {
        const stack = await startStack({ dataDir, fresh, launcher });
        await stack.stop({ strict: true });
        starts[k]!.samples.push(stack.readyMs);
      }
    }
    sections['Local stack: launch to serving'] = [
      `Wall time from spawn until a real API call answers 200: once the data directory's stack.json is written, a password grant for the first organization's ADMIN and \`GET /{user_subpath}/org/{org}/users/identity-provider\` with its token, both 200, polled every ${POLL_MS} ms; then SIGTERM and wait for exit. PORT=0, a temporary data directory; "existing data" reuses the one the fresh runs left. The issue's target is serving within 5 s.`,
      table(starts, [
        ['launch', (s) => s.label],
        ['runs', (s) => s.samples.length, 'right'],
        ['min s', (s) => (Math.min(...s.samples) / 1000).toFixed(2), 'right'],
        ['median s', (s) => (percentile(s.samples, 50) / 1000).toFixed(2), 'right'],
        ['max s', (s) => (Math.max(...s.samples) / 1000).toFixed(2), 'right'],
      ]),
    ];

    progress('latency');
    const stack = await startStack();
    const org = stack.info.orgs[0]!;
    const token = await accessToken(stack.info, org);
    const grant = passwordGrant(stack.info, org);
    const ok = (response: Response) => response.text().then((body) => check(response.status === 200, `answered ${response.status}: ${body.slice(0, 200)}`));
    const latency: Series[] = [
      series('token', 'POST …/protocol/openid-connect/token (password grant)', () => grant().then(ok)),
      series('user', 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', () => fetch(`${stack.info.apiUrl}/${stack.info.userSubpath}/org/${org.uuid}/users/identity-provider`, { headers: { authorization: token.bearer } }).then(ok)),
    ];
    await interleave([latency[0]!], { warmUp: 5, block: TOKENS, samples: TOKENS });
    await interleave([latency[1]!], { warmUp: 5, block: USERS, samples: USERS, between: token.refresh });
    await stack.stop({ strict: true });
    sections['Latency through the local gateway'] = [
      "One freshly seeded local stack; sequential requests from one client with keep-alive, after 5 unmeasured warm-up requests each. Token: password grant of the first demo organization's admin; current user: with an access token from that grant. Both run the handler modules Lambda runs, against the emulators (DynamoDB Local, cognito-local).",
      table(latency, [
        ['request', (s) => s.label],
        ['requests', (s) => s.samples.length, 'right'],
        ...[50, 95, 99].map((p): [string, (s: Series) => string, 'right'] => [`p${p} ms`, (s) => fmt.ms(percentile(s.samples, p), 1), 'right']),
        ['max ms', (s) => fmt.ms(Math.max(...s.samples), 1), 'right'],
      ]),
    ];
    return sections;
  },
});
