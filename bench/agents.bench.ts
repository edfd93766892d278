/** `npm run bench:agents` (docs/benchmarks.md#agents): a bot of 1,000 agents, its listing and a read through the API against raw reads. */
import { randomUUID } from 'node:crypto';
import { listAgentSummaries, type AgentRecord } from '../shared/domain/agents/agent.repository';
import { eachLimited } from '../shared/kernel/retry';
import { keys } from '../shared/adapters/store/keys';
import { getItem, getItems, putItem, queryPrefix } from '../shared/adapters/store/table';
import { benchmark, type Context, type Run } from './harness/benchmark';
import { instructionsLength, seedBot } from './harness/seed';
import { API_AND_RAW, bullets, check, comparisonTable, fmt, series, seriesTable, type Comparison } from './harness/series';
import { apiGet } from './harness/stack';

const [PAGE, SIZE, AIM] = [3, 20, 3];

/** The bot in the first demo organization, an ADMIN's token, and the raw reads' Queries (the listing's attributes taken from its own result). */
async function data({ size, progress, stack }: Context) {
  const n = { agents: size(1000, 100), samples: size(300, 30), warmUp: size(20, 5) };
  progress(`seeding ${n.agents} agents`);
  const { org, seedMs, bot, agentUuids, base, token } = await seedBot(stack, n.agents);
  const [summaries, copyBot] = [await listAgentSummaries(bot.uuid), randomUUID()];
  const listing = () => queryPrefix(keys.agentsOfBot(bot.uuid).PK, 'AGENT#', Object.keys(summaries[0]!).sort());
  // Not the product's design (docs/operations/cost.md weighs it): the same summaries as small items of their own.
  await eachLimited(summaries, 8, async (s) => void (await putItem({ ...keys.agent(copyBot, s.uuid), ...s })));
  const copies = () => queryPrefix(keys.agentsOfBot(copyBot).PK, 'AGENT#');
  const targets = Array.from({ length: n.warmUp + n.samples }, () => agentUuids[Math.floor(Math.random() * n.agents)]!);
  return { n, org, bot, seedMs, summaries, listing, copies, targets, base, token };
}
type Data = Awaited<ReturnType<typeof data>>;

/** The listing and a read through the API (their answers checked), and raw reads of the same data. */
function timedSeries(d: Data) {
  const target = (i: number) => d.targets[i]!;
  const answer = (body: unknown) => JSON.parse(body as string) as { uuid: string; numberOfElements: number; totalElements: number };
  const fullPage = (body: unknown) => check(answer(body).numberOfElements === SIZE && answer(body).totalElements === d.n.agents, `Not page ${PAGE} of ${SIZE} out of ${d.n.agents} agents: another writer changed the bot; run the bench alone`);
  const every = (items: unknown) => check((items as unknown[]).length === d.summaries.length, 'The raw Query read another number of summaries than the listing: another writer changed the bot; run the bench alone');
  const agent = (i: number) => getItem<AgentRecord>(keys.agent(d.bot.uuid, target(i)));
  const references = async (i: number) => {
    const { personaUuid, functionUuids, collectionUuids } = (await agent(i))!;
    return getItems([keys.persona(d.bot.uuid, personaUuid), ...functionUuids.map((f) => keys.botFunction(d.bot.uuid, f)), keys.collection(d.bot.uuid, collectionUuids[0]!)]);
  };
  return [
    series('api.list', `API \`GET …/agents?page=${PAGE}&size=${SIZE}\``, () => apiGet(`${d.base}/agents?page=${PAGE}&size=${SIZE}`, d.token.bearer), fullPage),
    series('raw.list', "raw `Query`, every summary of the bot (all pages, the listing's projection)", d.listing, every),
    series('raw.copies', `raw \`Query\` of the same ${d.summaries.length} summaries stored as small items of their own (not the product's design)`, d.copies, every),
    series('api.get', 'API `GET …/agents/{uuid}`', (i) => apiGet(`${d.base}/agents/${target(i)}`, d.token.bearer), (body, i) => check(answer(body).uuid === target(i), 'The API answered another agent than the one asked for: check the route of `GET …/agents/{uuid}`')),
    series('raw.get', 'raw `GetItem` of the same agent item', agent, (item, i) => check((item as AgentRecord).uuid === target(i), 'The raw GetItem read another agent than asked for: check `keys.agent` against what `createAgent` wrote')),
    series('raw.refs', 'raw `GetItem` → its 4 references (persona, functions, collection) in one `BatchGet`', references, (items) => check((items as unknown[]).length === 4, 'The references BatchGet read fewer than 4 items: check what the seeding gave each agent')),
  ];
}

const comparisons: Comparison[] = [{ label: 'list: API ÷ raw `Query` of every summary (**the ratio**)', api: 'api.list', raw: 'raw.list' },
  { label: 'read: API ÷ raw `GetItem` (**the ratio**)', api: 'api.get', raw: 'raw.get' }, { label: 'read: API ÷ raw `GetItem` + references (context)', api: 'api.get', raw: 'raw.refs' }];

function report({ data: d, series, f }: Run<Data, undefined>) {
  const within = (c: Comparison, p: number) => f.p(c.api, p) / f.p(c.raw, p) <= AIM;
  const [copies, list] = [f.p50('raw.copies'), f.p50('raw.list')];
  return {
    Setup: [bullets([
        `${API_AND_RAW} The read series read the same random agents.`,
        `Seeded with the operator services and \`createAgent\` (8 at a time): a new environment and bot in \`${d.org.name}\`, 2 personas, 4 functions, 2 collections, a default supervisor and ${fmt.int(d.n.agents)} agents (instructions of about ${instructionsLength} characters, 2 constraints, 2 of 12 tags, 2 functions, 1 collection): **${fmt.s(d.seedMs)}**. The listing's Query returns ${d.summaries.length} summaries (${fmt.kib(Buffer.byteLength(JSON.stringify(d.summaries)))} as JSON).`,
    ])],
    'Latency (ms)': [seriesTable(series)],
    'Ratios (API ÷ raw)': [
      comparisonTable(f, comparisons, [[`${AIM}× aim`, (c) => (within(c, 50) ? (within(c, 95) ? 'met' : 'met at p50 only') : 'not met')]]),
      'The listing must read every summary to filter, sort and count, so its ratio divides by the raw Query of all summaries. The read divides by one `GetItem` of the agent; the API must also resolve the persona, functions and collections, so API ÷ (GetItem + references) is given too.',
      `Summaries stored as small items of their own would be read in ${fmt.ms(copies)} ms at p50, against ${fmt.ms(list)} ms for the Query of whole agent items (${fmt.share(copies, list)}).`,
    ],
  };
}

benchmark<Data>({
  title: 'Agents area: API against raw DynamoDB reads', stack: true, data, report,
  series: (d) => [{ series: timedSeries(d), schedule: { warmUp: d.n.warmUp, block: 10, samples: d.n.samples, between: d.token.refresh } }],
});
