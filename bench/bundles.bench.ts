/** `npm run bench:bundles` (docs/benchmarks.md#bundles-at-200-agents): export, plan and apply of a bot of 200 agents, with their units. */
import { operatorScope } from '../shared/domain/agents/bot-scope';
import { applyBundle } from '../shared/app/bundles/bundle-apply';
import { exportBundle } from '../shared/app/bundles/bundle-export';
import { planBundle } from '../shared/app/bundles/bundle-plan';
import { bundleSchemas, type Bundle } from '../shared/app/bundles/bundle.schemas';
import { benchmark, type Context } from './harness/benchmark';
import { instructionsLength, seedBot } from './harness/seed';
import { callsTable, recordCalls } from './harness/capacity';
import { bullets, check, fmt, series, seriesTable } from './harness/series';
import { apiCall, apiGet } from './harness/stack';

const { bundleSchema } = bundleSchemas();

async function data({ size, progress, stack }: Context) {
  const n = { agents: size(200, 20), samples: size(30, 5), warmUp: 2 };
  progress(`seeding two bots, the source with ${n.agents} agents`);
  const [source, target] = [await seedBot(stack, n.agents, 'Bundles source'), await seedBot(stack, 0, 'Bundles target')];
  const [token, url] = [source.token, (at: typeof source, path: string) => `${at.base}/bundle${path}`];
  const bundle = bundleSchema.parse(JSON.parse(await apiGet(url(source, ''), token.bearer))) as Bundle;
  const text = JSON.stringify(bundle);
  // Every goal changed, so that each apply updates every agent.
  const changed = (i: number): Bundle => ({ ...bundle, agents: bundle.agents.map((agent) => ({ ...agent, goal: `${agent.goal} (${i})` })) });
  return { n, source, target, token, url, bundle, text, changed };
}
type Data = Awaited<ReturnType<typeof data>>;
type Changes = { changes: { kind: string; action: string }[] };
const post = async (url: string, body: string, authorization: string) => JSON.parse(await apiCall('POST', url, authorization, body)) as Changes;
/** Checks that every agent of the answer had `action`. */
const count = (action: string, expected: number) => (body: unknown) =>
  check((body as Changes).changes.filter((c) => c.kind === 'agent' && c.action === action).length === expected, `The answer does not list ${expected} agents as "${action}": compare it with the seeded bots, and run the bench alone`);

benchmark<Data, { label: string; calls: Awaited<ReturnType<typeof recordCalls>> }[]>({
  title: 'Bundles: export, plan and apply of a bot', stack: true, data,
  series: (d) => [{
      schedule: { warmUp: d.n.warmUp, block: 5, samples: d.n.samples, between: d.token.refresh },
      series: [
        series('export', `API \`GET …/bundle\` of ${d.n.agents} agents`, () => apiGet(d.url(d.source, ''), d.token.bearer)),
        series('plan', `API \`POST …/bundle/plan\` (${d.n.agents} changes)`, () => post(d.url(d.target, '/plan'), d.text, d.token.bearer)),
        series('apply', `API \`POST …/bundle/apply\`, every agent updated`, (i) => post(d.url(d.target, '/apply'), JSON.stringify(d.changed(i)), d.token.bearer), (body, i) => count(i === 0 ? 'create' : 'update', d.n.agents)(body)),
        series('noop', 'API `POST …/bundle/apply` of the bundle the bot exported (no-op)', () => post(d.url(d.source, '/apply'), d.text, d.token.bearer), count('unchanged', d.n.agents)),
      ],
    }],
  measure: async (d) => {
    const [source, target] = [operatorScope(d.source.bot), operatorScope(d.target.bot)];
    return [
      { label: 'export', calls: await recordCalls(() => exportBundle(source)) },
      { label: 'plan', calls: await recordCalls(() => planBundle(target, d.changed(-1))) },
      { label: `apply (${d.n.agents} updates)`, calls: await recordCalls(() => applyBundle(target, d.changed(-2))) },
      { label: 'apply (no-op)', calls: await recordCalls(() => applyBundle(source, d.bundle)) },
    ];
  },
  report: ({ data: d, series: list, measured }) => ({
    Setup: [bullets([
        `Source bot: a default supervisor and ${d.n.agents} agents (instructions of about ${instructionsLength} characters, 2 rules, 2 tags, 2 functions, 1 collection; bench/harness/seed.ts); its bundle is ${fmt.kib(Buffer.byteLength(d.text))} of JSON. Target bot: the same resources, no agent.`,
        `The first unmeasured apply creates the agents; each apply then changes every goal, so it updates ${d.n.agents} agents: ${d.n.agents * 3} items (record, revision, audit event) in ${Math.ceil((d.n.agents * 3) / 99)} transactions.`,
    ])],
    'Latency (ms)': [seriesTable(list)],
    'DynamoDB calls and units per operation': [callsTable(measured), 'Recorded on one in-process call of the use case (no HTTP, authentication not included), units as DynamoDB Local reports `ConsumedCapacity`.'],
  }),
});
