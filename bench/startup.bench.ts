/** `npm run bench:startup` (docs/benchmarks.md#local-stack-start-up): the local stack from spawn to its first authenticated call. */
import { benchmark } from './harness/benchmark';
import { accessToken, apiGet, orgUrl, POLL_MS, timeStarts, type RunningStack } from './harness/stack';
import { fmt, percentile, secondsColumns, table } from './harness/series';

/** The harness counts a start as served at its first 200 (the current user); a user listing then. */
async function grantAndList({ info }: RunningStack) {
  const token = await accessToken(info, info.orgs[0]!);
  await apiGet(`${orgUrl(info, info.orgs[0]!.uuid)}/users?size=20`, token.bearer);
}

benchmark<undefined, Awaited<ReturnType<typeof timeStarts>>>({
  title: 'Local stack start-up: spawn to the first authenticated API call',
  measure: (_, { size, progress }) =>
    timeStarts([
      { label: '`--fresh` (empty data directory, demo data seeded)', fresh: true, runs: size(5, 2) },
      { label: 'restart (on the data the previous start left)', fresh: false, runs: size(5, 2) },
      { label: '`npm start -- --fresh` (npm and its shell in front, as a user types it)', fresh: true, runs: size(3, 1), launcher: 'npm start' },
      { label: '`npm start`, a restart', fresh: false, runs: size(3, 1), launcher: 'npm start' },
    ], progress, grantAndList),
  report: ({ measured: rows }) => ({
    'Spawn to serving': [
      `Starts of each kind alternating, one data directory. The first two run \`node infra/local/start.mjs\`, what \`npm start\` runs. "Serving": stack.json written, then a password grant of the first demo ADMIN and \`GET …/users/identity-provider\` answered 200 (polled every ${POLL_MS} ms). Aims: fresh within 4 s, restart within 3 s.`,
      table(rows, [['start', (r) => r.label], ['runs', (r) => r.samples.length, 'right'], ...secondsColumns<(typeof rows)[number]>(), ['aim (median)', (r) => `${r.fresh ? 4 : 3} s: ${percentile(r.samples, 50) <= (r.fresh ? 4000 : 3000) ? 'met' : 'not met'}`, 'right'], ['then grant + user listing, median', (r) => `${fmt.ms(percentile(r.thenMs, 50))} ms`, 'right']]),
    ],
  }),
});
