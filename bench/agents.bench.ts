/**
 * `npm run bench:agents`: issue 3, "Speed". On a bot of 1,000 agents, `GET …/agents?page=3&size=20` and
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
import { keys, withoutKeys } from '../shared/store/keys';
import { putItem } from '../shared/store/table';
import { describeCalls, recordCalls } from './harness/capacity';
import { cpuCount } from './harness/machine';
import { batchGet, getItem, prefixQuery, query } from './harness/raw';
import { benchmark, bullets, callsTable, ratioTable, seriesTable, table } from './harness/report';
import { check, cpu, figures, interleave, series } from './harness/series';
import { accessToken, apiGet, startStack, useFunctionEnv } from './harness/stack';
import { fmt, percentile } from './harness/stats';

const [PAGE, SIZE] = [3, 20];
const TOPICS = ['billing', 'shipping', 'returns', 'warranty claims', 'account security', 'product advice', 'loyalty points', 'gift cards', 'subscriptions'];
const TAGS = ['#billing', '#orders', '#returns', '#support', '#sales', '#vip', '#b2b', '#faq', '#escalation', '#loyalty', '#stores', '#tech'];
const instructions = (topic: string) =>
  `You handle every question about ${topic}. Greet the customer by name when it is known, then restate the question in one sentence. ` +
  `Look up the facts with the functions you have before answering, and quote order numbers, dates and amounts exactly. Keep answers ` +
  `to three sentences, then offer one follow-up. When the customer is upset, acknowledge it once and move on to a next step. If a ` +
  `question about ${topic} needs a decision you cannot make, explain why and hand over to a person with a summary of the conversation.`;

benchmark({
  name: 'agents',
  script: 'bench:agents',
  title: 'Agents area: API against raw DynamoDB reads',
  async run({ size, mark, progress }) {
    const [AGENTS, SAMPLES, WARM_UP, CPU_RUNS] = [size(1000, 100), size(300, 30), size(20, 5), size(200, 20)];
    const stack = await startStack();
    useFunctionEnv(stack);
    const org = stack.info.orgs[0]!;

    // Seeding, with the operator services and createAgent: one bot of AGENTS agents in the first demo organization.
    progress(`seeding ${AGENTS} agents`);
    const seedStarted = performance.now();
    const environment = await addEnvironment(org.uuid, 'Benchmark');
    const bot = await addBot(org.uuid, environment.uuid, `Benchmark bot (${AGENTS} agents)`);
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
    const agentUuids = new Array<string>(AGENTS);
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
    const seedMs = performance.now() - seedStarted;
    mark('after seeding');

    const token = await accessToken(stack.info, org);
    const caller = await authenticate(token.bearer);
    const path = { orgUUID: org.uuid, envUUID: environment.uuid, botUUID: bot.uuid };
    const listQuery = listQuerySchema.parse({ page: String(PAGE), size: String(SIZE) });
    const targets = Array.from({ length: WARM_UP + SAMPLES }, () => agentUuids[Math.floor(Math.random() * AGENTS)]!);

    // The raw listing Query reads what the product's listing reads: the attributes come from its own result.
    const summaries = await listAgentSummaries(bot.uuid);
    const { PK, SKPrefix } = keys.agentsOfBot(bot.uuid);
    const listing = prefixQuery(PK, SKPrefix, Object.keys(summaries[0]!).sort());
    const { items: rawSummaries, pages: listPages } = await query(listing);
    // Not the product's design: the same summaries as small items of their own, under another bot's keys.
    const copyBot = randomUUID();
    await eachLimited(summaries, 8, async (s) => void (await putItem({ ...keys.agent(copyBot, s.uuid), ...s })));
    const references = (agent: Record<string, unknown>) => [
      keys.persona(bot.uuid, agent.personaUuid as string),
      ...(agent.functionUuids as string[]).map((uuid) => keys.botFunction(bot.uuid, uuid)),
      ...(agent.collectionUuids as string[]).map((uuid) => keys.collection(bot.uuid, uuid)),
    ];
    const [userKey, envKey, botKey] = [keys.userKey(org.uuid, caller.user.uuid), keys.environment(org.uuid, environment.uuid), keys.bot(org.uuid, environment.uuid, bot.uuid)];
    const authReads = async () => [await getItem(userKey), ...(await Promise.all([getItem(envKey), getItem(botKey)]))];
    const agentReads = async (uuid: string) => (await batchGet(references((await getItem(keys.agent(bot.uuid, uuid)))!))).items;
    const listChain = async () => listAgents(await authorizeBot(await authenticate(token.bearer), path, 'read'), 'AGENT', listQuery);
    const readChain = async (uuid: string) => readAgent(await authorizeBot(await authenticate(token.bearer), path, 'read'), 'AGENT', uuid);
    const scope = { bot, access: 'read' } as const;

    const base = `${stack.info.apiUrl}/${stack.info.generativeSubpath}/org/${org.uuid}/env/${environment.uuid}/bot/${bot.uuid}`;
    const api = (url: (i: number) => string) => (i: number, id: string) => apiGet(url(i), token.bearer, id);
    const fullPage = (page: { numberOfElements: number; totalElements: number }) => check(page.numberOfElements === SIZE && page.totalElements === AGENTS, 'Unexpected page');
    const fullSlice = (slice: { items: unknown[]; total: number }) => check(slice.items.length === SIZE && slice.total === AGENTS, 'Unexpected slice');
    const everySummary = ({ items }: { items: unknown[] }) => check(items.length === AGENTS + 1, `The Query returned ${items.length} items`);
    const references4 = (items: unknown[]) => check(items.length === 4, `Found ${items.length} of 4 references`);
    const list = [
      series('api.list', `API \`GET …/agents?page=${PAGE}&size=${SIZE}\``, api(() => `${base}/agents?page=${PAGE}&size=${SIZE}`), (body) => fullPage(JSON.parse(body as string))),
      series('raw.queryAll', 'raw `Query`, every summary of the bot (all pages, the listing\'s projection)', () => query(listing), everySummary),
      series('raw.query20', `raw \`Query\`, \`Limit: ${SIZE}\` (the listing's projection)`, () => query({ ...listing, Limit: SIZE }, 1), (r) => check((r as { items: unknown[] }).items.length === SIZE, 'Too few items')),
      series('raw.count', 'raw `Query`, `Select: COUNT` (all pages): what a total costs without a stored counter', () => query({ ...prefixQuery(PK, SKPrefix), Select: 'COUNT' })),
      series('svc.listChain', '`authenticate` → `authorizeBot` → `listAgents` in the bench process (the handler\'s calls, no HTTP)', listChain, fullSlice),
      series('svc.list', '`listAgents()` alone in the bench process', () => listAgents(scope, 'AGENT', listQuery), fullSlice),
      series('api.get', 'API `GET …/agents/{uuid}`', api((i) => `${base}/agents/${targets[i]}`), (body, i) => check((JSON.parse(body as string) as { uuid: string }).uuid === targets[i], 'Another agent')),
      series('raw.getItem', 'raw `GetItem` of the same agent item', (i) => getItem(keys.agent(bot.uuid, targets[i]!)), (item, i) => check((item as { uuid?: string })?.uuid === targets[i], 'GetItem missed')),
      series('raw.getRefs', 'raw `GetItem` → its 4 references (persona, functions, collection) in one `BatchGet`', (i) => agentReads(targets[i]!), references4),
      series('svc.readChain', '`authenticate` → `authorizeBot` → `readAgent` in the bench process (the handler\'s calls, no HTTP)', (i) => readChain(targets[i]!)),
      series('svc.read', '`readAgent()` alone in the bench process', (i) => readAgent(scope, 'AGENT', targets[i]!)),
      series('alt.summaryItems', `alternative, raw: \`Query\` of the same ${AGENTS + 1} summaries stored as small items of their own (copies under another bot's keys)`, () => query(prefixQuery(keys.agentsOfBot(copyBot).PK, SKPrefix)), everySummary),
      series('alt.twoTrips', 'alternative, raw: (user `GetItem` ∥ `BatchGet` of env, bot, agent) → `BatchGet` of the references: the read\'s data in 2 round trips', async (i) => {
        const [, found] = await Promise.all([getItem(userKey), batchGet([envKey, botKey, keys.agent(bot.uuid, targets[i]!)])]);
        return (await batchGet(references(found.items.find((item) => item.uuid === targets[i])!))).items;
      }, references4),
      series('api.floor', 'API `GET /{user_subpath}/org/{org}/users/identity-provider`: gateway, middy, JWT, user `GetItem`, small body', api(() => `${stack.info.apiUrl}/${stack.info.userSubpath}/org/${org.uuid}/users/identity-provider`)),
      series('raw.auth', 'raw user `GetItem` → env ∥ bot `GetItem`: what authentication and scope read per request', authReads, (items) => check((items as unknown[]).every(Boolean), 'An auth read missed')),
    ];
    progress(`measuring ${list.length} series`);
    const measureMs = await interleave(list, { warmUp: WARM_UP, block: 10, samples: SAMPLES, between: token.refresh });

    const operations = [
      { label: `\`GET …/agents?page=${PAGE}&size=${SIZE}\``, calls: (await recordCalls(listChain)).calls },
      { label: '`GET …/agents/{uuid}`', calls: (await recordCalls(() => readChain(agentUuids[0]!))).calls },
      { label: '`GET …/users/identity-provider`', calls: (await recordCalls(() => authenticate(token.bearer))).calls },
    ];
    const slice = await listAgents(scope, 'AGENT', listQuery);
    const page = pageOf(slice.items.map(toAgentSummary), slice.total, PAGE, SIZE);
    const agent = toAgentResponse(await readAgent(scope, 'AGENT', agentUuids[0]!));
    const stripped = rawSummaries.map((item) => withoutKeys<(typeof summaries)[number]>(item));
    const cpuFigures = [
      await cpu(`\`withoutKeys\` over the ${rawSummaries.length} Query items (table.ts)`, () => rawSummaries.map((item) => withoutKeys(item)), CPU_RUNS),
      await cpu(`\`toAgentSummary\` × ${AGENTS + 1}`, () => stripped.map(toAgentSummary), CPU_RUNS),
      await cpu(`\`JSON.stringify\` of the ${SIZE}-item page`, () => JSON.stringify(page), CPU_RUNS),
      await cpu('`JSON.stringify` of one agent (the read\'s body)', () => JSON.stringify(agent), CPU_RUNS),
      await cpu('`verifyAccessToken` (ES256 signature and claims; the key is cached)', () => verifyAccessToken(token.value), CPU_RUNS),
    ];

    const f = figures(list, stack.handlerMs);
    const { p50 } = f;
    const handler = (key: string) => fmt.ms(percentile(f.handler(key), 50));
    const ratio = (api: string, raw: string, p = 50) => f.p(api, p) / f.p(raw, p);
    const parts: [string, string, string][] = [
      ['raw: auth and scope reads (user `GetItem` → env ∥ bot `GetItem`)', 'raw.auth', 'raw.auth'],
      ['raw: the data (`Query` of every summary / agent `GetItem` → references `BatchGet`)', 'raw.queryAll', 'raw.getRefs'],
      ['in process: the service alone (`listAgents` / `readAgent`)', 'svc.list', 'svc.read'],
      ['in process: `authenticate` → `authorizeBot` → the service', 'svc.listChain', 'svc.readChain'],
      ['**API through the gateway**', 'api.list', 'api.get'],
    ];
    await stack.stop();
    return {
      Setup: [
        bullets([
          `A fresh local stack (\`infra/local/main.ts --fresh\`, PORT=0, a temporary data directory): the gateway and the handler modules in one Node process, DynamoDB Local in a JVM; the bench is a third process on the same ${cpuCount()} CPUs.`,
          `Seeded with the operator services and \`createAgent\` (8 at a time): a new environment and bot in \`${org.name}\`, 2 personas, 4 functions, 2 collections, a default supervisor and ${fmt.int(AGENTS)} agents (instructions of about ${instructions(TOPICS[0]!).length} characters, 2 constraints, 2 of 12 tags, 2 functions, 1 collection): **${fmt.s(seedMs)}** (${(AGENTS / (seedMs / 1000)).toFixed(0)} agents/s).`,
          `The listing's Query returns ${rawSummaries.length} summaries (${fmt.kib(Buffer.byteLength(JSON.stringify(rawSummaries)))} as JSON) in ${listPages} page(s); its projection is the attributes of \`listAgentSummaries()\`'s own result.`,
          `Each series: ${WARM_UP} unmeasured operations, then ${SAMPLES} measured, one at a time, in alternating blocks of 10 (the first series rotating every round): ${fmt.s(measureMs)} in all. API requests: \`fetch\` with keep-alive and an ADMIN access token. Raw reads: the product's document client in the bench process. The read series read the same random agents.`,
        ]),
      ],
      'Latency (ms)': [seriesTable(list, stack.handlerMs)],
      'Ratios (API ÷ raw)': [
        ratioTable(list, [
          { label: 'list: API ÷ raw `Query` of every summary (**the ratio**)', api: 'api.list', raw: 'raw.queryAll' },
          { label: `list: API ÷ raw \`Query\` \`Limit ${SIZE}\` (context: a key-ordered page)`, api: 'api.list', raw: 'raw.query20' },
          { label: "list: API ÷ the handler's calls in process (context)", api: 'api.list', raw: 'svc.listChain' },
          { label: 'read: API ÷ raw `GetItem` (**the ratio**)', api: 'api.get', raw: 'raw.getItem' },
          { label: 'read: API ÷ raw `GetItem` + references (context)', api: 'api.get', raw: 'raw.getRefs' },
          { label: "read: API ÷ the handler's calls in process (context)", api: 'api.get', raw: 'svc.readChain' },
        ], 3),
        'The listing must read every summary to filter, sort and count, so its ratio divides by the raw Query of all summaries; the `Limit` Query is what a key-ordered page would cost, not the same data. The read divides by one `GetItem` of the agent, as the issue words it; the API must also resolve the persona, functions and collections, so API ÷ (GetItem + references) is given too.',
        `**Listing: ${fmt.ratio(ratio('api.list', 'raw.queryAll'))} at p50, ${fmt.ratio(ratio('api.list', 'raw.queryAll', 95))} at p95. Read: ${fmt.ratio(ratio('api.get', 'raw.getItem'))} / ${fmt.ratio(ratio('api.get', 'raw.getItem', 95))} against a bare \`GetItem\`, ${fmt.ratio(ratio('api.get', 'raw.getRefs'))} / ${fmt.ratio(ratio('api.get', 'raw.getRefs', 95))} against the \`GetItem\` and references.**`,
      ],
      'DynamoDB calls and units per request': [
        callsTable(operations, describeCalls),
        "Recorded on one in-process call of `authenticate`, `authorizeBot` and the service (the handler's calls), by a middleware on the product's clients; units as DynamoDB Local reports `ConsumedCapacity`.",
      ],
      'Where the API time goes': [
        table(parts, [
          ['p50 ms', ([label]) => label],
          ['list', ([, l]) => `${fmt.ms(p50(l))} (${fmt.share(p50(l), p50('api.list'))})`, 'right'],
          ['read', ([, , r]) => `${fmt.ms(p50(r))} (${fmt.share(p50(r), p50('api.get'))})`, 'right'],
        ]),
        `API − the handler's calls in process (HTTP on loopback, the gateway's event, middy, zod, logging): list ${fmt.ms(p50('api.list') - p50('svc.listChain'))} ms, read ${fmt.ms(p50('api.get') - p50('svc.readChain'))} ms. ` +
          `Handler time as the stack logs it (\`durationMs\`, p50): list ${handler('api.list')} ms, read ${handler('api.get')} ms, current user ${handler('api.floor')} ms. A request that only authenticates costs ${fmt.ms(p50('api.floor'))} ms, ${fmt.ratio(p50('api.floor') / p50('raw.getItem'))} a bare \`GetItem\`.`,
        `In-process CPU of product functions on the fetched data (bench process, ${CPU_RUNS} runs after 20 warm-ups):`,
        table(cpuFigures, [['step', (c) => c.label], ['p50 ms', (c) => c.p50.toFixed(3), 'right'], ['mean ms', (c) => c.mean.toFixed(3), 'right']]),
      ],
      'Alternatives (raw, not the product)': [
        bullets([
          `Summaries as small items of their own: ${fmt.ms(p50('alt.summaryItems'))} ms against ${fmt.ms(p50('raw.queryAll'))} ms for the Query of whole agent items (${fmt.share(p50('alt.summaryItems'), p50('raw.queryAll'))}), at the price of a second write per agent write; a \`COUNT\` for \`totalElements\` alone still costs ${fmt.ms(p50('raw.count'))} ms.`,
          `The read's data in 2 round trips: ${fmt.ms(p50('alt.twoTrips'))} ms, against ${fmt.ms(p50('raw.auth') + p50('raw.getRefs'))} ms for the auth reads and the agent with its references one after the other.`,
        ]),
      ],
    };
  },
});
