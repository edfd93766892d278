/**
 * `npm run bench:agents`: on a bot of 1,000 agents, `GET …/agents?page=3&size=20` and
 * `GET …/agents/{uuid}` through the local gateway, next to raw DynamoDB reads of the same data and the
 * handler's own service calls made in this process, interleaved. Report: bench/agents-figures.md.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { authorizeBot } from '../shared/access/bot-access';
import { operatorScope } from '../shared/agents/bot-scope';
import { toAgentResponse, toAgentSummary } from '../shared/agents/agent.mapper';
import { listAgentSummaries } from '../shared/agents/agent.repository';
import { agentCreateSchema, listQuerySchema } from '../shared/agents/agent.schemas';
import { listAgents, readAgent } from '../shared/agents/agent-read.service';
import { createAgent } from '../shared/agents/agent-write.service';
import { verifyAccessToken } from '../shared/auth/access-token';
import { authenticate } from '../shared/auth/caller';
import { eachLimited } from '../shared/bulk/bulk-create.rules';
import { pageOf } from '../shared/http/page';
import { addBot, addCollection, addEnvironment, addFunction, addPersona, addSupervisor } from '../shared/operator/operator.service';
import { keys, withoutKeys, type ItemKey } from '../shared/store/keys';
import { putItem } from '../shared/store/table';
import { accessToken, apiGet, batchGet, benchmark, bullets, callsTable, check, cpu, cpuCount, fmt, getItem, percentile, prefixQuery, query, ratioTable, recordCalls, series, seriesTable, table, type Context, type Run, type Series } from './harness';

const [PAGE, SIZE] = [3, 20];
const TOPICS = ['billing', 'shipping', 'returns', 'warranty claims', 'account security', 'product advice', 'loyalty points', 'gift cards', 'subscriptions'];
const TAGS = ['#billing', '#orders', '#returns', '#support', '#sales', '#vip', '#b2b', '#faq', '#escalation', '#loyalty', '#stores', '#tech'];
const instructions = (topic: string) =>
  `You handle every question about ${topic}. Greet the customer by name when it is known, then restate the question in one sentence. ` +
  `Look up the facts with the functions you have before answering, and quote order numbers, dates and amounts exactly. Keep answers ` +
  `to three sentences, then offer one follow-up. When the customer is upset, acknowledge it once and move on to a next step. If a ` +
  `question about ${topic} needs a decision you cannot make, explain why and hand over to a person with a summary of the conversation.`;

/** A new environment and bot of `count` agents, with the operator services and `createAgent` (8 at a time). */
async function seedBot(orgUuid: string, count: number) {
  const environment = await addEnvironment(orgUuid, 'Benchmark');
  const bot = await addBot(orgUuid, environment.uuid, `Benchmark bot (${count} agents)`);
  const personas = [
    await addPersona(bot.uuid, { name: 'Guide', backstory: 'Years of customer care.', personality: 'Warm', communicationStyle: 'EMPATHETIC_AND_HELPFUL' }),
    await addPersona(bot.uuid, { name: 'Expert', backstory: 'A former support lead.', personality: 'Direct', communicationStyle: 'CONCISE_AND_PROFESSIONAL' }),
  ];
  const functions = await Promise.all(['lookupOrder', 'createTicket', 'checkStock', 'refundPayment'].map((name) => addFunction(bot.uuid, name)));
  const collections = [
    await addCollection(bot.uuid, { name: 'Product manuals', description: 'Manuals of every product', documentCount: 42 }),
    await addCollection(bot.uuid, { name: 'Policies', description: 'Returns, refunds and warranty', documentCount: 7 }),
  ];
  await addSupervisor(bot.uuid, { role: 'Supervisor', goal: 'Route each conversation to the right agent', personaUuid: personas[0]!.uuid });
  const agentUuids = new Array<string>(count);
  await eachLimited([...agentUuids.keys()], 8, async (i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    const body = agentCreateSchema.parse({
      role: `Agent ${String(i + 1).padStart(4, '0')}: ${topic} specialist`,
      goal: `Answer customer questions about ${topic} accurately and hand over to a person when asked.`,
      instructions: instructions(topic),
      guardrails: 'Never share personal data of other customers. Never promise refunds the functions did not confirm.',
      persona: { uuid: personas[i % 2]!.uuid },
      inheritFromSupervisor: i % 3 !== 0,
      constraints: [{ value: `Confirm the customer's identity before discussing ${topic}` }, { value: 'Answer in the language of the customer' }],
      tags: [{ name: TAGS[i % TAGS.length]! }, { name: TAGS[(i + 5) % TAGS.length]! }],
      parameters: { maximumTokens: 1024, requestTimeout: 30_000, temperature: 0.2 + (i % 5) / 10, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0.1 },
      functions: [{ uuid: functions[i % 4]!.uuid }, { uuid: functions[(i + 1) % 4]!.uuid }],
      knowledge: [{ uuid: collections[i % 2]!.uuid }],
    });
    agentUuids[i] = (await createAgent(operatorScope(bot), body)).record.uuid;
  });
  return { environment, bot, agentUuids };
}

/** The bot in the first demo organization, an ADMIN's token, and what the raw reads read (taken from the product's own results). */
async function data({ size, mark, progress, stack }: Context) {
  const n = { agents: size(1000, 100), samples: size(300, 30), warmUp: size(20, 5), cpuRuns: size(200, 20) };
  const org = stack.info.orgs[0]!;
  progress(`seeding ${n.agents} agents`);
  const seedStarted = performance.now();
  const { environment, bot, agentUuids } = await seedBot(org.uuid, n.agents);
  const seedMs = performance.now() - seedStarted;
  mark('after seeding');
  const token = await accessToken(stack.info, org);
  const caller = await authenticate(token.bearer);
  // The raw listing Query reads what the product's listing reads: the attributes come from its own result.
  const summaries = await listAgentSummaries(bot.uuid);
  const agents = keys.agentsOfBot(bot.uuid);
  const listing = prefixQuery(agents.PK, agents.SKPrefix, Object.keys(summaries[0]!).sort());
  const { items: rawSummaries, pages: listPages } = await query(listing);
  // Not the product's design: the same summaries as small items of their own, under another bot's keys.
  const copyBot = randomUUID();
  await eachLimited(summaries, 8, async (s) => void (await putItem({ ...keys.agent(copyBot, s.uuid), ...s })));
  const targets = Array.from({ length: n.warmUp + n.samples }, () => agentUuids[Math.floor(Math.random() * n.agents)]!);
  const auth = [keys.userKey(org.uuid, caller.user.uuid), keys.environment(org.uuid, environment.uuid), keys.bot(org.uuid, environment.uuid, bot.uuid)] as const;
  const path = { orgUUID: org.uuid, envUUID: environment.uuid, botUUID: bot.uuid };
  const listQuery = listQuerySchema.parse({ page: String(PAGE), size: String(SIZE) });
  return { n, org, environment, bot, agentUuids, seedMs, token, agents, listing, rawSummaries, listPages, copyBot, targets, auth, path, listQuery, scope: { bot, access: 'read' } as const };
}
type Data = Awaited<ReturnType<typeof data>>;

/** The reads the series time besides the API: raw ones, and the handler's own calls in this process. */
function reads(d: Data) {
  const references = (agent: Record<string, unknown>): ItemKey[] => [
    keys.persona(d.bot.uuid, agent.personaUuid as string),
    ...(agent.functionUuids as string[]).map((uuid) => keys.botFunction(d.bot.uuid, uuid)),
    ...(agent.collectionUuids as string[]).map((uuid) => keys.collection(d.bot.uuid, uuid)),
  ];
  const [userKey, envKey, botKey] = d.auth;
  return {
    authReads: async () => [await getItem(userKey), ...(await Promise.all([getItem(envKey), getItem(botKey)]))],
    agentReads: async (uuid: string) => (await batchGet(references((await getItem(keys.agent(d.bot.uuid, uuid)))!))).items,
    twoTrips: async (uuid: string) => {
      const [, found] = await Promise.all([getItem(userKey), batchGet([envKey, botKey, keys.agent(d.bot.uuid, uuid)])]);
      return (await batchGet(references(found.items.find((item) => item.uuid === uuid)!))).items;
    },
    listChain: async () => listAgents(await authorizeBot(await authenticate(d.token.bearer), d.path, 'read'), 'AGENT', d.listQuery),
    readChain: async (uuid: string) => readAgent(await authorizeBot(await authenticate(d.token.bearer), d.path, 'read'), 'AGENT', uuid),
  };
}

function timedSeries(d: Data, { stack }: Context): Series[] {
  const { authReads, agentReads, twoTrips, listChain, readChain } = reads(d);
  const base = `${stack.info.apiUrl}/${stack.info.generativeSubpath}/org/${d.org.uuid}/env/${d.environment.uuid}/bot/${d.bot.uuid}`;
  const api = (url: (i: number) => string) => (i: number, id: string) => apiGet(url(i), d.token.bearer, id);
  const target = (i: number) => d.targets[i]!;
  const fullPage = (page: { numberOfElements: number; totalElements: number }) => check(page.numberOfElements === SIZE && page.totalElements === d.n.agents, 'Unexpected page');
  const fullSlice = (slice: { items: unknown[]; total: number }) => check(slice.items.length === SIZE && slice.total === d.n.agents, 'Unexpected slice');
  const everySummary = ({ items }: { items: unknown[] }) => check(items.length === d.n.agents + 1, `The Query returned ${items.length} items`);
  const references4 = (items: unknown[]) => check(items.length === 4, `Found ${items.length} of 4 references`);
  return [
    series('api.list', `API \`GET …/agents?page=${PAGE}&size=${SIZE}\``, api(() => `${base}/agents?page=${PAGE}&size=${SIZE}`), (body) => fullPage(JSON.parse(body as string))),
    series('raw.queryAll', 'raw `Query`, every summary of the bot (all pages, the listing\'s projection)', () => query(d.listing), everySummary),
    series('raw.query20', `raw \`Query\`, \`Limit: ${SIZE}\` (the listing's projection)`, () => query(d.listing, SIZE), (r) => check((r as { items: unknown[] }).items.length === SIZE, 'Too few items')),
    series('raw.count', 'raw `Query`, `Select: COUNT` (all pages): what a total costs without a stored counter', () => query({ ...prefixQuery(d.agents.PK, d.agents.SKPrefix), Select: 'COUNT' })),
    series('svc.listChain', '`authenticate` → `authorizeBot` → `listAgents` in the bench process (the handler\'s calls, no HTTP)', listChain, fullSlice),
    series('svc.list', '`listAgents()` alone in the bench process', () => listAgents(d.scope, 'AGENT', d.listQuery), fullSlice),
    series('api.get', 'API `GET …/agents/{uuid}`', api((i) => `${base}/agents/${target(i)}`), (body, i) => check((JSON.parse(body as string) as { uuid: string }).uuid === target(i), 'Another agent')),
    series('raw.getItem', 'raw `GetItem` of the same agent item', (i) => getItem(keys.agent(d.bot.uuid, target(i))), (item, i) => check((item as { uuid?: string })?.uuid === target(i), 'GetItem missed')),
    series('raw.getRefs', 'raw `GetItem` → its 4 references (persona, functions, collection) in one `BatchGet`', (i) => agentReads(target(i)), references4),
    series('svc.readChain', '`authenticate` → `authorizeBot` → `readAgent` in the bench process (the handler\'s calls, no HTTP)', (i) => readChain(target(i))),
    series('svc.read', '`readAgent()` alone in the bench process', (i) => readAgent(d.scope, 'AGENT', target(i))),
    series('alt.summaryItems', `alternative, raw: \`Query\` of the same ${d.n.agents + 1} summaries stored as small items of their own (copies under another bot's keys)`, () => query(prefixQuery(keys.agentsOfBot(d.copyBot).PK, d.agents.SKPrefix)), everySummary),
    series('alt.twoTrips', 'alternative, raw: (user `GetItem` ∥ `BatchGet` of env, bot, agent) → `BatchGet` of the references: the read\'s data in 2 round trips', (i) => twoTrips(target(i)), references4),
    series('api.floor', 'API `GET /{user_subpath}/org/{org}/users/identity-provider`: gateway, middy, JWT, user `GetItem`, small body', api(() => `${stack.info.apiUrl}/${stack.info.userSubpath}/org/${d.org.uuid}/users/identity-provider`)),
    series('raw.auth', 'raw user `GetItem` → env ∥ bot `GetItem`: what authentication and scope read per request', authReads, (items) => check((items as unknown[]).every(Boolean), 'An auth read missed')),
  ];
}

/** The calls and units of each request (one in-process call of the handler's chain), and the CPU of product functions on fetched data. */
async function measure(d: Data) {
  const { listChain, readChain } = reads(d);
  const operations = [
    { label: `\`GET …/agents?page=${PAGE}&size=${SIZE}\``, calls: await recordCalls(listChain) },
    { label: '`GET …/agents/{uuid}`', calls: await recordCalls(() => readChain(d.agentUuids[0]!)) },
    { label: '`GET …/users/identity-provider`', calls: await recordCalls(() => authenticate(d.token.bearer)) },
  ];
  const slice = await listAgents(d.scope, 'AGENT', d.listQuery);
  const page = pageOf(slice.items.map(toAgentSummary), slice.total, PAGE, SIZE);
  const agent = toAgentResponse(await readAgent(d.scope, 'AGENT', d.agentUuids[0]!));
  const stripped = d.rawSummaries.map((item) => withoutKeys<Parameters<typeof toAgentSummary>[0]>(item));
  const runs = d.n.cpuRuns;
  const cpuFigures = [
    await cpu(`\`withoutKeys\` over the ${d.rawSummaries.length} Query items (table.ts)`, () => d.rawSummaries.map((item) => withoutKeys(item)), runs),
    await cpu(`\`toAgentSummary\` × ${d.n.agents + 1}`, () => stripped.map(toAgentSummary), runs),
    await cpu(`\`JSON.stringify\` of the ${SIZE}-item page`, () => JSON.stringify(page), runs),
    await cpu('`JSON.stringify` of one agent (the read\'s body)', () => JSON.stringify(agent), runs),
    await cpu('`verifyAccessToken` (ES256 signature and claims; the key is cached)', () => verifyAccessToken(d.token.value), runs),
  ];
  return { operations, cpuFigures };
}
type Measured = Awaited<ReturnType<typeof measure>>;

const setup = ({ data: d, groupMs }: Run<Data, Measured>) =>
  bullets([
    `A fresh local stack (\`infra/local/main.ts --fresh\`, PORT=0, a temporary data directory): the gateway and the handler modules in one Node process, DynamoDB Local in a JVM; the bench is a third process on the same ${cpuCount()} CPUs.`,
    `Seeded with the operator services and \`createAgent\` (8 at a time): a new environment and bot in \`${d.org.name}\`, 2 personas, 4 functions, 2 collections, a default supervisor and ${fmt.int(d.n.agents)} agents (instructions of about ${instructions(TOPICS[0]!).length} characters, 2 constraints, 2 of 12 tags, 2 functions, 1 collection): **${fmt.s(d.seedMs)}** (${(d.n.agents / (d.seedMs / 1000)).toFixed(0)} agents/s).`,
    `The listing's Query returns ${d.rawSummaries.length} summaries (${fmt.kib(Buffer.byteLength(JSON.stringify(d.rawSummaries)))} as JSON) in ${d.listPages} page(s); its projection is the attributes of \`listAgentSummaries()\`'s own result.`,
    `Each series: ${d.n.warmUp} unmeasured operations, then ${d.n.samples} measured, one at a time, in alternating blocks of 10 (the first series rotating every round): ${fmt.s(groupMs[0]!)} in all. API requests: \`fetch\` with keep-alive and an ADMIN access token. Raw reads: the product's document client in the bench process. The read series read the same random agents.`,
  ]);

function ratios({ series: list, f }: Run<Data, Measured>) {
  const ratio = (api: string, raw: string, p = 50) => fmt.ratio(f.p(api, p) / f.p(raw, p));
  return [
    ratioTable(list, [
      { label: 'list: API ÷ raw `Query` of every summary (**the ratio**)', api: 'api.list', raw: 'raw.queryAll' },
      { label: `list: API ÷ raw \`Query\` \`Limit ${SIZE}\` (context: a key-ordered page)`, api: 'api.list', raw: 'raw.query20' },
      { label: "list: API ÷ the handler's calls in process (context)", api: 'api.list', raw: 'svc.listChain' },
      { label: 'read: API ÷ raw `GetItem` (**the ratio**)', api: 'api.get', raw: 'raw.getItem' },
      { label: 'read: API ÷ raw `GetItem` + references (context)', api: 'api.get', raw: 'raw.getRefs' },
      { label: "read: API ÷ the handler's calls in process (context)", api: 'api.get', raw: 'svc.readChain' },
    ], 3),
    'The listing must read every summary to filter, sort and count, so its ratio divides by the raw Query of all summaries; the `Limit` Query is what a key-ordered page would cost, not the same data. The read divides by one `GetItem` of the agent, as the issue words it; the API must also resolve the persona, functions and collections, so API ÷ (GetItem + references) is given too.',
    `**Listing: ${ratio('api.list', 'raw.queryAll')} at p50, ${ratio('api.list', 'raw.queryAll', 95)} at p95. Read: ${ratio('api.get', 'raw.getItem')} / ${ratio('api.get', 'raw.getItem', 95)} against a bare \`GetItem\`, ${ratio('api.get', 'raw.getRefs')} / ${ratio('api.get', 'raw.getRefs', 95)} against the \`GetItem\` and references.**`,
  ];
}

function where({ measured, f }: Run<Data, Measured>, cpuRuns: number) {
  const { p50 } = f;
  const handler = (key: string) => fmt.ms(percentile(f.handler(key), 50));
  const parts: [string, string, string][] = [
    ['raw: auth and scope reads (user `GetItem` → env ∥ bot `GetItem`)', 'raw.auth', 'raw.auth'],
    ['raw: the data (`Query` of every summary / agent `GetItem` → references `BatchGet`)', 'raw.queryAll', 'raw.getRefs'],
    ['in process: the service alone (`listAgents` / `readAgent`)', 'svc.list', 'svc.read'],
    ['in process: `authenticate` → `authorizeBot` → the service', 'svc.listChain', 'svc.readChain'],
    ['**API through the gateway**', 'api.list', 'api.get'],
  ];
  return [
    table(parts, [
      ['p50 ms', ([label]) => label],
      ['list', ([, l]) => `${fmt.ms(p50(l))} (${fmt.share(p50(l), p50('api.list'))})`, 'right'],
      ['read', ([, , r]) => `${fmt.ms(p50(r))} (${fmt.share(p50(r), p50('api.get'))})`, 'right'],
    ]),
    `API − the handler's calls in process (HTTP on loopback, the gateway's event, middy, zod, logging): list ${fmt.ms(p50('api.list') - p50('svc.listChain'))} ms, read ${fmt.ms(p50('api.get') - p50('svc.readChain'))} ms. ` +
      `Handler time as the stack logs it (\`durationMs\`, p50): list ${handler('api.list')} ms, read ${handler('api.get')} ms, current user ${handler('api.floor')} ms. A request that only authenticates costs ${fmt.ms(p50('api.floor'))} ms, ${fmt.ratio(p50('api.floor') / p50('raw.getItem'))} a bare \`GetItem\`.`,
    `In-process CPU of product functions on the fetched data (bench process, ${cpuRuns} runs after 20 warm-ups):`,
    table(measured.cpuFigures, [['step', (c) => c.label], ['p50 ms', (c) => c.p50.toFixed(3), 'right'], ['mean ms', (c) => c.mean.toFixed(3), 'right']]),
  ];
}

const alternatives = ({ f: { p50 } }: Run<Data, Measured>) =>
  bullets([
    `Summaries as small items of their own: ${fmt.ms(p50('alt.summaryItems'))} ms against ${fmt.ms(p50('raw.queryAll'))} ms for the Query of whole agent items (${fmt.share(p50('alt.summaryItems'), p50('raw.queryAll'))}), at the price of a second write per agent write; a \`COUNT\` for \`totalElements\` alone still costs ${fmt.ms(p50('raw.count'))} ms.`,
    `The read's data in 2 round trips: ${fmt.ms(p50('alt.twoTrips'))} ms, against ${fmt.ms(p50('raw.auth') + p50('raw.getRefs'))} ms for the auth reads and the agent with its references one after the other.`,
  ]);

benchmark<Data, Measured>({
  name: 'agents',
  script: 'bench:agents',
  title: 'Agents area: API against raw DynamoDB reads',
  stack: 'child',
  data,
  series: (d, context) => [{ series: timedSeries(d, context), schedule: { warmUp: d.n.warmUp, block: 10, samples: d.n.samples, between: d.token.refresh } }],
  measure,
  report: (run) => ({
    Setup: [setup(run)],
    'Latency (ms)': [seriesTable(run.series, run.handlerMs)],
    'Ratios (API ÷ raw)': ratios(run),
    'DynamoDB calls and units per request': [
      callsTable(run.measured.operations),
      "Recorded on one in-process call of `authenticate`, `authorizeBot` and the service (the handler's calls), by a middleware on the product's clients; units as DynamoDB Local reports `ConsumedCapacity`.",
    ],
    'Where the API time goes': where(run, run.data.n.cpuRuns),
    'Alternatives (raw, not the product)': [alternatives(run)],
  }),
});
