/**
 * `npm run bench:startup`: how soon the local stack serves. Each start spawns it as `npm start` runs it
 * (`node infra/local/start.mjs`, PORT=0) and is timed from the spawn until its first real API
 * call answers 200 (the first ADMIN's password grant, then a read of itself); a password grant and a page
 * of users are then timed on it. Five fresh starts (`--fresh`: emptied directory, seeding) and five
 * restarts on the data they left, alternating; the harness writes the report.
 */
import { benchmark, type Context } from './harness/benchmark';
import { accessToken, apiGet, startStack, tempDir } from './harness/stack';
import { fmt, percentile } from './harness/stats';
import { table, type Column } from './harness/tables';

const STARTS = [{ label: '`--fresh` (empty data directory, demo data seeded)', fresh: true }, { label: 'restart (on the data the previous start left)', fresh: false }];

/** Fresh and restart alternate, so that both see the same load on the machine. */
async function measure(_: undefined, { size, progress }: Context) {
  const [dataDir, runs] = [tempDir('bench-startup-'), size(5, 2)];
  const rows = STARTS.map((start) => ({ ...start, samples: [] as number[], firstCallMs: [] as number[] }));
  for (let i = 0; i < runs; i++) {
    for (const row of rows) {
      progress(`${row.label}: ${i + 1} of ${runs}`);
      const stack = await startStack({ dataDir, fresh: row.fresh });
      // The harness counts a start as served at its first 200 (the current user); a user listing then.
      const [org, started] = [stack.info.orgs[0]!, performance.now()];
      const token = await accessToken(stack.info, org);
      await apiGet(`${stack.info.apiUrl}/${stack.info.userSubpath}/org/${org.uuid}/users?size=20`, token.bearer);
      row.samples.push(stack.readyMs);
      row.firstCallMs.push(performance.now() - started);
      await stack.stop({ strict: true });
    }
  }
  return { runs, rows };
}

type Row = Awaited<ReturnType<typeof measure>>['rows'][number];
const seconds = (head: string, pick: (v: number[]) => number): Column<Row> => [head, (r) => fmt.s(pick(r.samples), 2), 'right'];

benchmark<undefined, Awaited<ReturnType<typeof measure>>>({
  name: 'startup',
  script: 'bench:startup',
  title: 'Local stack start-up: spawn to the first authenticated API call',
  data: async () => undefined,
  measure,
  report: ({ measured: { runs, rows } }) => ({
    'Spawn to serving': [
      `${runs} starts of each kind, alternating, one data directory. "Serving": stack.json written, then a password grant of the first demo ADMIN and \`GET …/users/identity-provider\` answered 200 (polled every 20 ms). Aims: fresh within 4 s, restart within 3 s.`,
      table(rows, [
        ['start', (r) => r.label],
        seconds('min', (v) => Math.min(...v)), seconds('median', (v) => percentile(v, 50)), seconds('max', (v) => Math.max(...v)),
        ['then grant + user listing, median', (r) => fmt.ms(percentile(r.firstCallMs, 50)) + ' ms', 'right'],
      ]),
    ],
  }),
});
