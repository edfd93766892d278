import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AGENT_FIELDS,
  SORTED,
  SUMMARY_FIELDS,
  adminApi,
  agentBody,
  agentsUrl,
  botUrl,
  createAgent,
  freshBot,
  listAll,
  minimalAgentBody,
  seededBot,
  type AgentDto,
  type BotAddress,
  type FreshBot,
  type PageDto,
  type SummaryDto,
} from '../support/bot-helpers';
import { detailOf, expectError, expectFieldErrors } from '../support/error-body';
import { UUID, type ApiResponse } from '../support/http-client';
import { unique } from '../support/stack';

const admin = adminApi();

/** The listing summary of one agent, found by its (unique) role. */
async function summaryOf(bot: BotAddress, agent: AgentDto): Promise<SummaryDto> {
  const response = await admin.get<PageDto>(agentsUrl(bot, `?searchTerm=${encodeURIComponent(agent.role)}&size=100`));
  const summary = response.body.content.find((item) => item.uuid === agent.uuid);
  if (!summary) throw new Error(`No summary for ${agent.uuid}`);
  return summary;
}

const totalOf = async (bot: BotAddress) => (await admin.get<PageDto>(agentsUrl(bot))).body.totalElements;

let bot: FreshBot;
let otherBot: ReturnType<typeof seededBot>;

beforeAll(async () => {
  bot = await freshBot();
  otherBot = seededBot(0, 0, 1);
});

describe('POST /agents', () => {
  test('answers 201 with the full Agent: references resolved, new rule uuids, tag, flowUUID, no heirs, and an ETag', async () => {
    const body = agentBody(bot);
    const tagName = (body.tags as { name: string }[])[0]!.name;

    const response = await admin.post(agentsUrl(bot), body);

    expect(response.status).toBe(201);
    expect(response.headers.get('etag')).toMatch(/^(W\/)?".+"$/);
    expect(Object.keys(response.body).sort()).toEqual(AGENT_FIELDS);
    const [persona] = bot.personas;
    const [manuals] = bot.collections;
    expect(response.body).toEqual({
      uuid: expect.stringMatching(UUID),
      role: body.role,
      flowUUID: expect.stringMatching(UUID),
      goal: body.goal,
      instructions: 'Be brief.',
      guardrails: 'Never promise refunds.',
      persona: {
        uuid: persona!.uuid,
        name: 'Test guide',
        image: 'https://images.example.test/guide.png',
        backstory: 'Guides test customers.',
        personality: 'Calm',
        communicationStyle: 'WITTY_AND_CASUAL',
      },
      inheritFromSupervisor: true,
      constraints: [
        { uuid: expect.stringMatching(UUID), value: 'Always confirm the order number' },
        { uuid: expect.stringMatching(UUID), value: 'Never share e-mail addresses' },
      ],
      tags: [{ uuid: expect.stringMatching(UUID), name: tagName }],
      parameters: { maximumTokens: 500, requestTimeout: 30000, temperature: 0.7, topP: 0.9, presencePenalty: 0.5, frequencyPenalty: -0.5 },
      functions: [
        { uuid: bot.functions[1]!.uuid, name: 'fnTwo' },
        { uuid: bot.functions[0]!.uuid, name: 'fnOne' },
      ],
      knowledge: [
        {
          uuid: manuals!.uuid,
          name: 'Manuals',
          description: 'Every manual',
          documentCount: 12,
          searchType: { type: 'SEMANTIC', semanticWeight: 100, fullTextWeight: 0 },
          previousUserInput: 2,
          threshold: 0.75,
          topK: 8,
        },
      ],
      heirs: [],
    });
    const { uuid, flowUUID, constraints } = response.body;
    expect(new Set([uuid, flowUUID, constraints[0]!.uuid, constraints[1]!.uuid]).size).toBe(4);
  });

  test('GET /agents/{uuid} answers the created body with the same ETag', async () => {
    const createdAgent = await createAgent(bot, agentBody(bot));

    const response = await admin.get(agentsUrl(bot, `/${createdAgent.body.uuid}`));

    expect(response.status).toBe(200);
    expect(response.body).toEqual(createdAgent.body);
    expect(response.headers.get('etag')).toBe(createdAgent.headers.get('etag'));
  });

  test('reads back absent optional fields as null or empty, and a persona without image as nulls', async () => {
    const body = minimalAgentBody(bot, { persona: { uuid: bot.personas[1]!.uuid } });

    const response = await admin.post(agentsUrl(bot), body);

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      uuid: expect.stringMatching(UUID),
      role: body.role,
      flowUUID: expect.stringMatching(UUID),
      goal: 'A goal',
      instructions: null,
      guardrails: null,
      persona: {
        uuid: bot.personas[1]!.uuid,
        name: 'Second persona',
        image: null,
        backstory: null,
        personality: null,
        communicationStyle: 'FRIENDLY_AND_APPROACHABLE',
      },
      inheritFromSupervisor: false,
      constraints: [],
      tags: [],
      parameters: null,
      functions: [],
      knowledge: [],
      heirs: [],
    });
  });

  test('gives each agent its own flowUUID', async () => {
    const [first, second] = [await createAgent(bot, minimalAgentBody(bot)), await createAgent(bot, minimalAgentBody(bot))];

    expect(first.body.flowUUID).not.toBe(second.body.flowUUID);
  });

  test('concurrent creates on one bot all succeed and are all listed', async () => {
    const own = await freshBot();

    const responses = await Promise.all(Array.from({ length: 8 }, () => admin.post(agentsUrl(own), minimalAgentBody(own))));

    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect((await listAll(admin, own, 'agents')).map((a) => a.uuid).sort()).toEqual(responses.map((r) => r.body.uuid).sort());
  });

  test('trims text fields', async () => {
    const role = `Trimmed ${unique()}`;

    const response = await admin.post(agentsUrl(bot), minimalAgentBody(bot, { role: `  ${role}  `, goal: '\tGoal\n' }));

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ role, goal: 'Goal' });
  });
});

describe('tags', () => {
  test('a new #term is created in the organization once: another agent, even of another bot, gets the same tag by name', async () => {
    const name = `#shared${unique()}`;
    const elsewhere = await freshBot();

    const first = await createAgent(bot, agentBody(bot, { tags: [{ name }] }));
    const second = await createAgent(elsewhere, agentBody(elsewhere, { tags: [{ name }] }));

    expect(second.body.tags).toEqual([{ uuid: first.body.tags[0]!.uuid, name }]);
  });

  test('names match without regard to case', async () => {
    const name = `#Case${unique()}`;
    const first = await createAgent(bot, agentBody(bot, { tags: [{ name }] }));

    const second = await createAgent(bot, agentBody(bot, { tags: [{ name: name.toUpperCase() }] }));

    expect(second.body.tags[0]!.uuid).toBe(first.body.tags[0]!.uuid);
  });

  test("giving an existing tag's uuid with its name works", async () => {
    const name = `#known${unique()}`;
    const tag = (await createAgent(bot, agentBody(bot, { tags: [{ name }] }))).body.tags[0]!;

    const response = await admin.post(agentsUrl(bot), agentBody(bot, { tags: [{ name: `#other${unique()}` }, { uuid: tag.uuid, name }] }));

    expect(response.status).toBe(201);
    expect(response.body.tags[1]).toEqual(tag);
    expect(response.body.tags[0]!.uuid).not.toBe(tag.uuid);
  });

  test("a uuid that is not the named tag's is a 422 naming tags.N.uuid", async () => {
    const tagA = (await createAgent(bot, agentBody(bot, { tags: [{ name: `#a${unique()}` }] }))).body.tags[0]!;
    const nameB = `#b${unique()}`;
    await createAgent(bot, agentBody(bot, { tags: [{ name: nameB }] }));

    const response = await admin.post(
      agentsUrl(bot),
      agentBody(bot, { tags: [{ name: `#c${unique()}` }, { uuid: tagA.uuid, name: nameB }, { uuid: randomUUID(), name: tagA.name }] }),
    );

    const details = expectFieldErrors(response, ['tags.1.uuid', 'tags.2.uuid']);
    expect(details.map((d) => d.errorCode)).toEqual(['FIELD_INVALID', 'FIELD_INVALID']);
  });

  test('tags belong to one organization: the same name in another organization is another tag', async () => {
    const name = `#org${unique()}`;
    const globexBot = await freshBot({ orgIndex: 1 });
    const acmeTag = (await createAgent(bot, agentBody(bot, { tags: [{ name }] }))).body.tags[0]!;

    const response = await adminApi(1).post(agentsUrl(globexBot), agentBody(globexBot, { tags: [{ name }] }));

    expect(response.status).toBe(201);
    expect(response.body.tags).toEqual([{ uuid: expect.stringMatching(UUID), name }]);
    expect(response.body.tags[0]!.uuid).not.toBe(acmeTag.uuid);
  });

  test('concurrent creates with the same new name all get one tag', async () => {
    const name = `#race${unique()}`;

    const responses = await Promise.all(Array.from({ length: 5 }, () => admin.post(agentsUrl(bot), agentBody(bot, { tags: [{ name }] }))));

    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.tags[0]!.uuid)).size).toBe(1);
  });

  test('the same name twice in one body is a 422', async () => {
    const name = `#twice${unique()}`;

    const response = await admin.post(agentsUrl(bot), agentBody(bot, { tags: [{ name }, { name: name.toUpperCase() }] }));

    expectFieldErrors(response, ['tags.1.name']);
  });
});

describe('references to the bot’s resources', () => {
  test('a persona, function or collection of another bot is a 422 naming each field and index', async () => {
    const foreign = otherBot.seeded;
    const body = agentBody(bot, {
      persona: { uuid: foreign.personas[0]!.uuid },
      functions: [{ uuid: bot.functions[0]!.uuid }, { uuid: foreign.functions[0]!.uuid }],
      knowledge: [{ uuid: foreign.collections[1]!.uuid }],
    });

    const response = await admin.post(agentsUrl(bot), body);

    const details = expectFieldErrors(response, ['persona.uuid', 'functions.1.uuid', 'knowledge.0.uuid']);
    expect(details.map((d) => d.errorCode)).toEqual(['FIELD_INVALID', 'FIELD_INVALID', 'FIELD_INVALID']);
  });

  test('uuids that exist nowhere are refused the same way', async () => {
    const body = agentBody(bot, { persona: { uuid: randomUUID() }, functions: [{ uuid: randomUUID() }], knowledge: [{ uuid: randomUUID() }] });

    expectFieldErrors(await admin.post(agentsUrl(bot), body), ['persona.uuid', 'functions.0.uuid', 'knowledge.0.uuid']);
  });

  test('a function listed twice is a 422', async () => {
    const fn = { uuid: bot.functions[0]!.uuid };

    const response = await admin.post(agentsUrl(bot), agentBody(bot, { functions: [fn, { uuid: bot.functions[1]!.uuid }, fn] }));

    expectFieldErrors(response, ['functions.2.uuid']);
  });

  test('a collection listed twice is a 422', async () => {
    const collection = { uuid: bot.collections[0]!.uuid };

    expectFieldErrors(await admin.post(agentsUrl(bot), agentBody(bot, { knowledge: [collection, collection] })), ['knowledge.1.uuid']);
  });
});

describe('validation', () => {
  test('reports every problem of a body at once, one detail each', async () => {
    const body = {
      ...agentBody(bot),
      role: '   ',
      goal: 'x'.repeat(2001),
      inheritFromSupervisor: 'yes',
      color: 'blue',
      constraints: [{ value: 'ok' }, { uuid: randomUUID(), value: 'has a uuid' }],
      persona: { uuid: 'nope' },
      functions: [{ uuid: bot.functions[0]!.uuid }, { uuid: 'not-a-uuid' }],
      knowledge: [{ uuid: '123' }],
      tags: Array.from({ length: 51 }, (_, i) => ({ name: `#t${i}` })),
    };

    const response = await admin.post(agentsUrl(bot), body);

    const details = expectFieldErrors(response, [
      'role',
      'goal',
      'inheritFromSupervisor',
      'color',
      'constraints.1.uuid',
      'persona.uuid',
      'functions.1.uuid',
      'knowledge.0.uuid',
      'tags',
    ]);
    expect(detailOf(response, 'color')?.errorCode).toBe('FIELD_UNKNOWN');
    expect(detailOf(response, 'constraints.1.uuid')?.errorCode).toBe('FIELD_UNKNOWN');
    expect(details.filter((d) => d.errorCode === 'FIELD_INVALID')).toHaveLength(7);
  });

  test('reports shape problems first; references are checked once the shape is right (documented)', async () => {
    const body = agentBody(bot, { role: ' ', persona: { uuid: otherBot.seeded.personas[0]!.uuid } });

    expectFieldErrors(await admin.post(agentsUrl(bot), body), ['role']);
    expectFieldErrors(await admin.post(agentsUrl(bot), { ...body, role: 'Fixed role' }), ['persona.uuid']);
  });

  test('names each missing required field', async () => {
    const response = await admin.post(agentsUrl(bot), {});

    const details = expectFieldErrors(response, ['role', 'goal', 'persona', 'inheritFromSupervisor']);
    expect(details.every((d) => d.errorCode === 'FIELD_REQUIRED')).toBe(true);
  });

  test.each([
    ['a multi-line role', { role: 'First line\nsecond line' }, 'role'],
    ['an over-long role', { role: 'r'.repeat(201) }, 'role'],
    ['a blank goal', { goal: '' }, 'goal'],
    ['blank instructions', { instructions: ' ' }, 'instructions'],
    ['over-long guardrails', { guardrails: 'g'.repeat(10001) }, 'guardrails'],
    ['a blank rule', { constraints: [{ value: '  ' }] }, 'constraints.0.value'],
    ['a tag without its hash', { tags: [{ name: 'orders' }] }, 'tags.0.name'],
    ['a role that is a number', { role: 42 }, 'role'],
    ['constraints that are not a list', { constraints: { value: 'x' } }, 'constraints'],
  ])('%s is a 422 naming the field', async (_label, overrides, field) => {
    expectFieldErrors(await admin.post(agentsUrl(bot), agentBody(bot, overrides)), [field]);
  });

  const parameters = { requestTimeout: 30000, temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0 };
  test.each([
    ['temperature', 2.1],
    ['temperature', -0.1],
    ['topP', 1.1],
    ['presencePenalty', -2.1],
    ['frequencyPenalty', -3],
    ['frequencyPenalty', 2.5],
    ['requestTimeout', 0],
    ['requestTimeout', 600001],
    ['maximumTokens', 0],
    ['temperature', 'hot'],
  ])('parameters.%s = %j is a 422', async (field, value) => {
    const response = await admin.post(agentsUrl(bot), agentBody(bot, { parameters: { ...parameters, [field]: value } }));

    expect(expectFieldErrors(response, [`parameters.${field}`])[0]!.errorCode).toBe('FIELD_INVALID');
  });

  test('parameters, when present, require their fields', async () => {
    const response = await admin.post(agentsUrl(bot), agentBody(bot, { parameters: { maximumTokens: 10, temperature: 1 } }));

    const details = expectFieldErrors(response, ['parameters.requestTimeout', 'parameters.topP', 'parameters.presencePenalty', 'parameters.frequencyPenalty']);
    expect(details.every((d) => d.errorCode === 'FIELD_REQUIRED')).toBe(true);
  });

  test('the boundary values of parameters are accepted', async () => {
    const edges = { maximumTokens: 1, requestTimeout: 600000, temperature: 2, topP: 0, presencePenalty: -2, frequencyPenalty: 2 };

    const response = await admin.post(agentsUrl(bot), agentBody(bot, { parameters: edges }));

    expect(response.status).toBe(201);
    expect(response.body.parameters).toEqual(edges);
  });

  test('50 tags are accepted, 51 are not', async () => {
    const tags = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `#fifty${i}` }));

    expect((await admin.post(agentsUrl(bot), agentBody(bot, { tags: tags(50) }))).status).toBe(201);
    expectFieldErrors(await admin.post(agentsUrl(bot), agentBody(bot, { tags: tags(51) })), ['tags']);
  });

  test('unparseable JSON is a 400 MALFORMED_JSON', async () => {
    const response = await admin.post(agentsUrl(bot), '{"role": "Broken",');

    expectError(response, 400, 'MALFORMED_JSON');
  });

  test('a malformed agent uuid in the path is a 422 naming agentUUID, on GET and PUT', async () => {
    const read = await admin.get(agentsUrl(bot, '/nope'));
    const write = await admin.put(agentsUrl(bot, '/nope'), minimalAgentBody(bot));

    expect(expectFieldErrors(read, ['agentUUID'])[0]!.errorCode).toBe('FIELD_INVALID');
    expectFieldErrors(write, ['agentUUID']);
  });

  test('malformed uuids in the bot path are each named', async () => {
    const response = await admin.get(botUrl({ orgUuid: bot.orgUuid, envUuid: 'env', botUuid: 'bot' }, '/agents'));

    expectFieldErrors(response, ['envUUID', 'botUUID']);
  });

  test('nothing is written by a refused create or update', async () => {
    const own = await freshBot();
    const newTag = `#never${unique()}`;
    const existing = await createAgent(own, agentBody(own));
    const before = await admin.get(agentsUrl(own, `/${existing.body.uuid}`));

    const refused = [
      await admin.post(agentsUrl(own), agentBody(own, { role: ' ', tags: [{ name: newTag }] })),
      await admin.post(agentsUrl(own), agentBody(own, { persona: { uuid: otherBot.seeded.personas[0]!.uuid }, tags: [{ name: newTag }] })),
      await admin.post(agentsUrl(own), agentBody(own, { tags: [{ name: newTag }, { uuid: randomUUID(), name: `#x${unique()}` }] })),
      await admin.post(agentsUrl(own), '{"role":'),
      await admin.put(agentsUrl(own, `/${existing.body.uuid}`), agentBody(own, { goal: 'Changed', knowledge: [{ uuid: randomUUID() }] })),
      await admin.put(
        agentsUrl(own, `/${existing.body.uuid}`),
        agentBody(own, { goal: 'Changed', constraints: [{ uuid: randomUUID(), value: 'x' }] }),
      ),
    ];

    expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 400, 422, 422]);
    expect(await totalOf(own)).toBe(1);
    const after = await admin.get(agentsUrl(own, `/${existing.body.uuid}`));
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });
});

describe('GET /agents/{uuid}', () => {
  test('an unknown uuid is a 404', async () => {
    expectError(await admin.get(agentsUrl(bot, `/${randomUUID()}`)), 404, 'NOT_FOUND');
  });

  test('a uuid in the path is read without regard to case, as UUIDs are', async () => {
    const agent = await createAgent(bot, minimalAgentBody(bot));

    const response = await admin.get(agentsUrl(bot, `/${agent.body.uuid.toUpperCase()}`));

    expect(response.status).toBe(200);
    expect(response.body).toEqual(agent.body);
  });

  test("the bot's supervisor is not an agent: 404", async () => {
    expectError(await admin.get(agentsUrl(bot, `/${bot.supervisor!.uuid}`)), 404, 'NOT_FOUND');
  });

  test('an agent of another bot is not found under this bot', async () => {
    const elsewhere = await freshBot();
    const agent = await createAgent(elsewhere, minimalAgentBody(elsewhere));

    expectError(await admin.get(agentsUrl(bot, `/${agent.body.uuid}`)), 404, 'NOT_FOUND');
  });
});

describe('PUT /agents/{uuid}', () => {
  test('keeps a rule given with its uuid (new text), adds one without, removes those left out', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const [kept, dropped] = agent.constraints;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.uuid}`),
      agentBody(bot, { role: agent.role, constraints: [{ uuid: kept!.uuid, value: 'Changed text' }, { value: 'Brand new rule' }] }),
    );

    expect(response.status).toBe(200);
    expect(response.body.constraints).toEqual([
      { uuid: kept!.uuid, value: 'Changed text' },
      { uuid: expect.stringMatching(UUID), value: 'Brand new rule' },
    ]);
    expect([kept!.uuid, dropped!.uuid]).not.toContain(response.body.constraints[1]!.uuid);
    expect((await admin.get(agentsUrl(bot, `/${agent.uuid}`))).body).toEqual(response.body);
  });

  test("a rule uuid that is not this agent's is a 422 naming constraints.N.uuid, and nothing changes", async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const otherRule = (await createAgent(bot, agentBody(bot))).body.constraints[0]!;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.body.uuid}`),
      agentBody(bot, { goal: 'Changed', constraints: [{ uuid: agent.body.constraints[0]!.uuid, value: 'a' }, { uuid: otherRule.uuid, value: 'b' }] }),
    );

    expectFieldErrors(response, ['constraints.1.uuid']);
    const after = await admin.get(agentsUrl(bot, `/${agent.body.uuid}`));
    expect(after.body).toEqual(agent.body);
    expect(after.headers.get('etag')).toBe(agent.headers.get('etag'));
  });

  test('the same rule uuid twice is a 422', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const rule = agent.constraints[0]!;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.uuid}`),
      agentBody(bot, { constraints: [{ uuid: rule.uuid, value: 'a' }, { uuid: rule.uuid, value: 'b' }] }),
    );

    expectFieldErrors(response, ['constraints.1.uuid']);
  });

  test('replaces the agent: optional fields left out are cleared', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const body = minimalAgentBody(bot, { role: 'Replaced role', goal: 'Replaced goal', persona: { uuid: bot.personas[1]!.uuid }, inheritFromSupervisor: false });

    const response = await admin.put(agentsUrl(bot, `/${agent.uuid}`), body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...agent,
      role: 'Replaced role',
      goal: 'Replaced goal',
      instructions: null,
      guardrails: null,
      persona: expect.objectContaining({ uuid: bot.personas[1]!.uuid, name: 'Second persona' }),
      inheritFromSupervisor: false,
      constraints: [],
      tags: [],
      parameters: null,
      functions: [],
      knowledge: [],
    });
    expect((await admin.get(agentsUrl(bot, `/${agent.uuid}`))).body).toEqual(response.body);
  });

  test('keeps uuid and flowUUID and sets every field it is given', async () => {
    const agent = (await createAgent(bot, minimalAgentBody(bot))).body;
    const body = agentBody(bot, { knowledge: [{ uuid: bot.collections[1]!.uuid }], functions: [{ uuid: bot.functions[2]!.uuid }] });

    const response = await admin.put(agentsUrl(bot, `/${agent.uuid}`), body);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      uuid: agent.uuid,
      flowUUID: agent.flowUUID,
      role: body.role,
      instructions: 'Be brief.',
      functions: [{ uuid: bot.functions[2]!.uuid, name: 'fnThree' }],
      knowledge: [{ uuid: bot.collections[1]!.uuid, name: 'FAQ', description: '', documentCount: 0 }],
      tags: [{ name: (body.tags as { name: string }[])[0]!.name }],
    });
  });

  test('updatedAt and the ETag change on every update, createdAt does not', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const url = agentsUrl(bot, `/${agent.body.uuid}`);
    const original = await summaryOf(bot, agent.body);

    const first = await admin.put(url, agentBody(bot, { role: agent.body.role, goal: 'First update' }));
    const afterFirst = await summaryOf(bot, agent.body);
    const second = await admin.put(url, agentBody(bot, { role: agent.body.role, goal: 'First update' }));
    const afterSecond = await summaryOf(bot, agent.body);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(Date.parse(afterFirst.updatedAt)).toBeGreaterThan(Date.parse(original.updatedAt));
    expect(Date.parse(afterSecond.updatedAt)).toBeGreaterThan(Date.parse(afterFirst.updatedAt));
    expect([afterFirst.createdAt, afterSecond.createdAt]).toEqual([original.createdAt, original.createdAt]);
    const etags = [agent, first, second].map((r) => r.headers.get('etag'));
    expect(new Set(etags).size).toBe(3);
    expect((await admin.get(url)).headers.get('etag')).toBe(etags[2]);
  });

  test('If-Match with the current ETag succeeds', async () => {
    const agent = await createAgent(bot, agentBody(bot));

    const response = await admin.put(agentsUrl(bot, `/${agent.body.uuid}`), agentBody(bot, { goal: 'Matched' }), {
      'if-match': agent.headers.get('etag')!,
    });

    expect(response.status).toBe(200);
    expect(response.body.goal).toBe('Matched');
  });

  test('a stale If-Match is a 409 VERSION_CONFLICT and changes nothing', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const url = agentsUrl(bot, `/${agent.body.uuid}`);
    const staleEtag = agent.headers.get('etag')!;
    const current = await admin.put(url, agentBody(bot, { role: agent.body.role, goal: 'Newer' }));

    const response = await admin.put(url, agentBody(bot, { goal: 'Lost update' }), { 'if-match': staleEtag });

    expectError(response, 409, 'VERSION_CONFLICT');
    const after = await admin.get(url);
    expect(after.body).toEqual(current.body);
    expect(after.headers.get('etag')).toBe(current.headers.get('etag'));
  });

  test('without If-Match the last write wins', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const url = agentsUrl(bot, `/${agent.uuid}`);
    const second = agentBody(bot, { goal: 'Second write', inheritFromSupervisor: false });

    await admin.put(url, agentBody(bot, { goal: 'First write' }));
    await admin.put(url, second);

    expect((await admin.get(url)).body).toMatchObject({ role: second.role, goal: 'Second write', inheritFromSupervisor: false });
  });

  test('concurrent writes without If-Match never fail with a server error and one of them is the final state', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const url = agentsUrl(bot, `/${agent.uuid}`);
    const bodies = Array.from({ length: 6 }, (_, i) => agentBody(bot, { goal: `Concurrent ${i}` }));

    const responses = await Promise.all(bodies.map((body) => admin.put(url, body)));

    expect(responses.filter((r) => r.status >= 500)).toEqual([]);
    const final = (await admin.get(url)).body;
    expect(bodies.map((b) => b.goal)).toContain(final.goal);
    expect(bodies.find((b) => b.goal === final.goal)!.role).toBe(final.role);
  });

  test('concurrent writes without If-Match all succeed (last write wins, none is refused)', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const url = agentsUrl(bot, `/${agent.uuid}`);
    const bodies = Array.from({ length: 6 }, (_, i) => agentBody(bot, { goal: `Racing ${i}` }));

    const responses = await Promise.all(bodies.map((body) => admin.put<{ errorCode?: string }>(url, body)));

    expect(responses.map((r) => ({ status: r.status, errorCode: r.body.errorCode }))).toEqual(
      bodies.map(() => ({ status: 200, errorCode: undefined })),
    );
  });

  test('references of another bot are refused on update too, each named', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const foreign = otherBot.seeded;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.body.uuid}`),
      agentBody(bot, {
        persona: { uuid: foreign.personas[1]!.uuid },
        functions: [{ uuid: foreign.functions[2]!.uuid }],
        knowledge: [{ uuid: bot.collections[0]!.uuid }, { uuid: foreign.collections[0]!.uuid }],
      }),
    );

    expectFieldErrors(response, ['persona.uuid', 'functions.0.uuid', 'knowledge.1.uuid']);
    expect((await admin.get(agentsUrl(bot, `/${agent.body.uuid}`))).body).toEqual(agent.body);
  });

  test('a foreign rule uuid and a foreign reference are reported together', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.uuid}`),
      agentBody(bot, { constraints: [{ uuid: randomUUID(), value: 'x' }], functions: [{ uuid: otherBot.seeded.functions[0]!.uuid }] }),
    );

    expectFieldErrors(response, ['constraints.0.uuid', 'functions.0.uuid']);
  });

  test('validation applies to updates: several problems at once', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const response = await admin.put(
      agentsUrl(bot, `/${agent.uuid}`),
      agentBody(bot, { role: '', color: 'blue', parameters: { requestTimeout: 0, temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0 } }),
    );

    expectFieldErrors(response, ['role', 'color', 'parameters.requestTimeout']);
  });

  test('an unknown agent is a 404, and so is the supervisor', async () => {
    expectError(await admin.put(agentsUrl(bot, `/${randomUUID()}`), agentBody(bot)), 404, 'NOT_FOUND');
    expectError(await admin.put(agentsUrl(bot, `/${bot.supervisor!.uuid}`), agentBody(bot)), 404, 'NOT_FOUND');
  });

  test('unparseable JSON is a 400 MALFORMED_JSON', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    expectError(await admin.put(agentsUrl(bot, `/${agent.uuid}`), 'not json'), 400, 'MALFORMED_JSON');
  });
});

/** Roles of the listing bot, created in this order; alphabetical is the order below, ignoring case and accents. */
const ROLES = [
  'Réservations',
  'billing helper',
  'Claims desk',
  'delivery tracker',
  'Escalations',
  'feedback collector',
  'Gift cards',
  'hotel desk',
  'Invoices',
  'journey planner',
  'Order assistant',
  'loyalty points',
];
const ALPHABETICAL = [
  'billing helper',
  'Claims desk',
  'delivery tracker',
  'Escalations',
  'feedback collector',
  'Gift cards',
  'hotel desk',
  'Invoices',
  'journey planner',
  'loyalty points',
  'Order assistant',
  'Réservations',
];

describe('GET /agents (listing) on a bot of 12 agents', () => {
  let listed: FreshBot;
  let vipTag: string;
  const agents: AgentDto[] = [];

  beforeAll(async () => {
    listed = await freshBot();
    vipTag = `#vip${unique()}`;
    for (const [i, role] of ROLES.entries()) {
      const tags = role === 'Gift cards' || role === 'hotel desk' ? [{ name: vipTag }] : [];
      const goal = role === 'Invoices' ? 'Explain the WARRANTY terms on invoices' : `Goal number ${i}`;
      agents.push((await createAgent(listed, minimalAgentBody(listed, { role, goal, tags, inheritFromSupervisor: i % 2 === 0 }))).body);
      // Distinct creation times, so creation order is the createdAt order.
      await sleep(3);
    }
  });

  const list = (query = '') => admin.get<PageDto>(agentsUrl(listed, query));
  const roles = (page: PageDto) => page.content.map((item) => item.role);

  test('defaults to page 1 of 5, most recently updated first, with every Page field', async () => {
    const everything = await listAll(admin, listed, 'agents');

    const response = await list();

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      content: everything.slice(0, 5),
      pageable: { unpaged: false, paged: true, pageNumber: 1, pageSize: 5, offset: 0, sort: SORTED },
      totalElements: 12,
      totalPages: 3,
      numberOfElements: 5,
      size: 5,
      number: 1,
      first: true,
      last: false,
      empty: false,
      sort: SORTED,
      nextPageToken: expect.any(String),
    });
    expect(roles(response.body)).toEqual([...ROLES].reverse().slice(0, 5));
  });

  test('content items are summaries with exactly uuid, role, goal, tags, inheritFromSupervisor, createdAt, updatedAt', async () => {
    const everything = await listAll(admin, listed, 'agents');

    expect(everything).toHaveLength(12);
    for (const item of everything) {
      expect(Object.keys(item).sort()).toEqual(SUMMARY_FIELDS);
      const agent = agents.find((a) => a.uuid === item.uuid)!;
      expect(item).toEqual({
        uuid: agent.uuid,
        role: agent.role,
        goal: agent.goal,
        tags: agent.tags,
        inheritFromSupervisor: agent.inheritFromSupervisor,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        updatedAt: item.createdAt,
      });
    }
  });

  test('page 3 of size 5 holds the last 2 and is last', async () => {
    const response = await list('?page=3&size=5');

    expect(response.body).toMatchObject({ numberOfElements: 2, number: 3, first: false, last: true, empty: false, totalPages: 3 });
    expect(response.body.pageable).toMatchObject({ pageNumber: 3, pageSize: 5, offset: 10 });
    expect(roles(response.body)).toEqual([ROLES[1], ROLES[0]]);
  });

  test('a page past the end is an empty page, not an error', async () => {
    const response = await list('?page=4&size=5');

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ content: [], numberOfElements: 0, number: 4, empty: true, last: true, totalElements: 12, totalPages: 3 });
  });

  test.each(['ASC', 'asc', 'Asc'])('orderBy=role direction=%s is alphabetical, ignoring case and accents', async (direction) => {
    const response = await list(`?orderBy=role&direction=${direction}&size=100`);

    expect(response.status).toBe(200);
    expect(roles(response.body)).toEqual(ALPHABETICAL);
  });

  test('orderBy=role DESC is reverse alphabetical', async () => {
    expect(roles((await list('?orderBy=role&direction=desc&size=12')).body)).toEqual([...ALPHABETICAL].reverse());
  });

  test('orderBy=createdAt ASC is creation order, and DESC its reverse', async () => {
    const ascending = await list('?orderBy=createdAt&direction=ASC&size=100');
    const descending = await list('?orderBy=createdAt&size=100');

    expect(roles(ascending.body)).toEqual(ROLES);
    expect(roles(descending.body)).toEqual([...ROLES].reverse());
  });

  test('pages of a sorted listing follow each other without gaps or repeats', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => list(`?orderBy=role&direction=ASC&size=5&page=${page}`)));

    expect(pages.flatMap((page) => roles(page.body))).toEqual(ALPHABETICAL);
  });

  test.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['orderBy=name', 'orderBy'],
    ['orderBy=goal', 'orderBy'],
    ['direction=up', 'direction'],
  ])('%s is a 422 naming %s', async (query, field) => {
    expect(expectFieldErrors(await list(`?${query}`), [field])[0]!.errorCode).toBe('FIELD_INVALID');
  });

  test('a searchTerm over 200 characters is a 422 naming searchTerm', async () => {
    expectFieldErrors(await list(`?searchTerm=${'x'.repeat(201)}`), ['searchTerm']);
  });

  test('several bad parameters are all named at once', async () => {
    expectFieldErrors(await list('?page=0&size=101&orderBy=name&direction=up'), ['page', 'size', 'orderBy', 'direction']);
  });

  test('size=100 is allowed', async () => {
    expect((await list('?size=100')).body).toMatchObject({ size: 100, numberOfElements: 12, totalPages: 1, last: true });
  });

  test.each(['reservations', 'RÉSERVATIONS', 'Reserv', 'ÉSERVA'])('searchTerm %j finds the role Réservations', async (term) => {
    const response = await list(`?searchTerm=${encodeURIComponent(term)}`);

    expect(roles(response.body)).toEqual(['Réservations']);
    expect(response.body.totalElements).toBe(1);
  });

  test('searchTerm matches goals', async () => {
    expect(roles((await list('?searchTerm=warranty')).body)).toEqual(['Invoices']);
  });

  test('searchTerm matches tag names, with or without the hash, in any case', async () => {
    const withHash = await list(`?searchTerm=${encodeURIComponent(vipTag.toUpperCase())}&orderBy=role&direction=asc`);
    const withoutHash = await list(`?searchTerm=${vipTag.slice(1)}&orderBy=role&direction=asc`);

    expect(roles(withHash.body)).toEqual(['Gift cards', 'hotel desk']);
    expect(roles(withoutHash.body)).toEqual(['Gift cards', 'hotel desk']);
  });

  test('a searchTerm that matches nothing is an empty page', async () => {
    expect((await list('?searchTerm=nothing-like-this')).body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, empty: true });
  });

  test('supervisors are not listed as agents', async () => {
    const everything = await listAll(admin, listed, 'agents');

    expect(everything.map((item) => item.uuid)).not.toContain(listed.supervisor!.uuid);
    expect((await list('?searchTerm=supervisor')).body.totalElements).toBe(0);
  });

  describe('quicksearch', () => {
    const quicksearch = (query: string) => admin.get<undefined>(agentsUrl(listed, `/quicksearch${query}`));
    const lines = (response: ApiResponse<undefined>) => (response.text === '' ? [] : response.text.split('\n'));

    test('answers text/plain, the matching roles alphabetically, at most 6 by default', async () => {
      const response = await quicksearch('?name=e');

      expect(response.status).toBe(200);
      expect(response.contentType).toMatch(/^text\/plain/);
      expect(lines(response)).toEqual(['billing helper', 'Claims desk', 'delivery tracker', 'Escalations', 'feedback collector', 'hotel desk']);
    });

    test('answers at most limit roles', async () => {
      expect(lines(await quicksearch('?name=e&limit=3'))).toEqual(['billing helper', 'Claims desk', 'delivery tracker']);
      expect(lines(await quicksearch('?name=e&limit=50'))).toHaveLength(10);
    });

    test('matches greedily left to right: "oas" finds Order assistant, the reverse "sao" does not', async () => {
      expect(lines(await quicksearch('?name=oas'))).toEqual(['loyalty points', 'Order assistant']);
      expect(lines(await quicksearch('?name=sao'))).toEqual(['Escalations', 'Réservations']);
    });

    test.each(['reservations', 'RÉSERVATIONS', 'rsrvtns'])('ignores accents and case: %j finds Réservations', async (name) => {
      expect(lines(await quicksearch(`?name=${encodeURIComponent(name)}`))).toEqual(['Réservations']);
    });

    test('no match is an empty body; supervisors are not searched', async () => {
      const response = await quicksearch('?name=supervisor');

      expect(response.status).toBe(200);
      expect(response.text).toBe('');
    });

    test('limit above 50 or below 1 is a 422 naming limit', async () => {
      expectFieldErrors(await quicksearch('?name=e&limit=51'), ['limit']);
      expectFieldErrors(await quicksearch('?name=e&limit=0'), ['limit']);
    });

    test('name is required', async () => {
      expect(expectFieldErrors(await quicksearch(''), ['name'])[0]!.errorCode).toBe('FIELD_REQUIRED');
    });
  });
});

test('an update moves the agent to the top of the default listing', async () => {
  const own = await freshBot();
  const oldest = (await createAgent(own, minimalAgentBody(own))).body;
  await createAgent(own, minimalAgentBody(own));
  await createAgent(own, minimalAgentBody(own));

  await admin.put(agentsUrl(own, `/${oldest.uuid}`), minimalAgentBody(own, { role: oldest.role }));

  const first = (await admin.get<PageDto>(agentsUrl(own))).body.content[0]!;
  expect(first.uuid).toBe(oldest.uuid);
  expect(Date.parse(first.updatedAt)).toBeGreaterThan(Date.parse(first.createdAt));
});
