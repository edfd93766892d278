import { randomUUID } from 'node:crypto';
import { insertWithHistory } from '../../shared/app/agents/agent-write.service';
import { addSupervisor } from '../../shared/app/operator/operator.service';
import { findBot } from '../../shared/domain/org/org.repository';
import {
  adminApi,
  agentBody,
  agentsUrl,
  createAgent,
  freshBot,
  minimalAgentBody,
  supervisorsUrl,
  type AgentDto,
  type FreshBot,
} from '../support/bot-helpers';
import { detailOf, expectFieldErrors } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { unique } from '../support/stack';

/**
 * What a client reads, it can write back: an agent's or supervisor's read (the Agent)
 * sent back unchanged with its ETag is a 200 that changes nothing but the version. Read-only fields
 * are ignored or must agree with the resource (docs/api/agents.md#what-you-read-you-can-write-back).
 */

const admin = adminApi();
const supervisorUrl = (bot: FreshBot, uuid: string) => supervisorsUrl(bot, `/${uuid}`);
const etagOf = (response: ApiResponse) => response.headers.get('etag')!;
/** The ETag of the version after `etag`'s (`"N"` → `"N+1"`). */
const nextEtag = (etag: string) => `"${Number(JSON.parse(etag)) + 1}"`;

async function read(url: string): Promise<ApiResponse<AgentDto>> {
  const response = await admin.get(url);
  if (response.status !== 200) throw new Error(`Read failed with ${response.status}: ${response.text}`);
  return response;
}

/** GET, PUT the body as read with its ETag, GET again: the write is a 200 that changes only the version. */
async function expectRoundTrip(url: string): Promise<AgentDto> {
  const before = await read(url);

  const written = await admin.put(url, before.body, { 'if-match': etagOf(before) });

  expect({ status: written.status, body: written.body }).toEqual({ status: 200, body: before.body });
  expect(etagOf(written)).toBe(nextEtag(etagOf(before)));
  const after = await read(url);
  expect(after.body).toEqual(before.body);
  expect(etagOf(after)).toBe(etagOf(written));
  return before.body;
}

/**
 * A supervisor with every field of the Agent populated, as seeded data may hold it: functions and
 * knowledge (which no API route sets on a supervisor) written by the operator's service, then
 * constraints, tags and parameters set through the API; an agent inheriting from it fills `heirs`.
 */
async function populatedSupervisor(bot: FreshBot): Promise<string> {
  const { record } = await insertWithHistory((await findBot(bot.botUuid))!, {
    botUuid: bot.botUuid,
    kind: 'SUPERVISOR',
    role: 'Populated supervisor',
    goal: 'Route every conversation',
    personaUuid: bot.personas[1]!.uuid,
    inheritFromSupervisor: false,
    constraints: [],
    tags: [],
    functionUuids: [bot.functions[2]!.uuid, bot.functions[0]!.uuid],
    collectionUuids: [bot.collections[1]!.uuid, bot.collections[0]!.uuid],
  });
  const configured = await admin.put(supervisorUrl(bot, record.uuid), {
    persona: { uuid: bot.personas[0]!.uuid },
    instructions: 'Hand over to the right agent.',
    guardrails: 'Stay polite.',
    constraints: [{ value: 'Ask before handing over' }, { value: 'Never guess an order number' }],
    tags: [{ name: `#route${unique()}` }, { name: `#desk${unique()}` }],
    parameters: { maximumTokens: 700, requestTimeout: 25000, temperature: 0.4, topP: 0.8, presencePenalty: 0.1, frequencyPenalty: 0.2 },
  });
  if (configured.status !== 200) throw new Error(`Set-up failed with ${configured.status}: ${configured.text}`);
  await createAgent(bot, minimalAgentBody(bot, { role: `Heir ${unique()}`, inheritFromSupervisor: true }));
  return record.uuid;
}

let bot: FreshBot;

beforeAll(async () => {
  bot = await freshBot();
});

describe('PUT /agents/{uuid} takes back what GET /agents/{uuid} answered', () => {
  test('an agent with every field populated: 200, the next ETag, the same Agent', async () => {
    const body = agentBody(bot, { knowledge: [{ uuid: bot.collections[1]!.uuid }, { uuid: bot.collections[0]!.uuid }] });
    const agent = (await createAgent(bot, body)).body;

    const read = await expectRoundTrip(agentsUrl(bot, `/${agent.uuid}`));

    // Every field was there to send back: persona details, rules with uuids, tags, maximumTokens, names.
    expect(read.persona).toMatchObject({ name: 'Test guide', image: expect.any(String), communicationStyle: 'WITTY_AND_CASUAL' });
    expect(read.constraints).toHaveLength(2);
    expect(read.tags).toHaveLength(1);
    expect(read.parameters).toMatchObject({ maximumTokens: 500 });
    expect(read.functions.map((f) => f.name)).toEqual(['fnTwo', 'fnOne']);
    expect(read.knowledge.map((k) => k.name)).toEqual(['FAQ', 'Manuals']);
  });

  test('an agent whose optional fields are absent (read as nulls and empty lists): the same', async () => {
    const agent = (await createAgent(bot, minimalAgentBody(bot, { persona: { uuid: bot.personas[1]!.uuid } }))).body;

    const read = await expectRoundTrip(agentsUrl(bot, `/${agent.uuid}`));

    expect(read).toMatchObject({ instructions: null, guardrails: null, parameters: null, constraints: [], tags: [], functions: [], knowledge: [] });
    expect(read.persona).toMatchObject({ image: null, backstory: null, personality: null });
  });

  test('a uuid other than the path’s is a 422 naming uuid, saying what to send, and nothing changes', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, agentBody(bot))).body.uuid}`);
    const before = await read(url);

    const response = await admin.put(url, { ...before.body, uuid: randomUUID(), goal: 'Changed' }, { 'if-match': etagOf(before) });

    expectFieldErrors(response, ['uuid']);
    expect(detailOf(response, 'uuid')).toEqual({ fieldName: 'uuid', errorCode: 'FIELD_INVALID', message: expect.stringContaining(before.body.uuid) });
    const after = await read(url);
    expect({ body: after.body, etag: etagOf(after) }).toEqual({ body: before.body, etag: etagOf(before) });
  });

  test('the uuid may be sent in upper case, as UUIDs are compared without regard to case', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, minimalAgentBody(bot))).body.uuid}`);
    const before = await read(url);

    const response = await admin.put(url, { ...before.body, uuid: before.body.uuid.toUpperCase() });

    expect(response.status).toBe(200);
  });

  test('flowUUID is read-only: another value is a 422 naming flowUUID', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, minimalAgentBody(bot))).body.uuid}`);
    const before = await read(url);

    const response = await admin.put(url, { ...before.body, flowUUID: randomUUID() });

    expectFieldErrors(response, ['flowUUID']);
    expect(detailOf(response, 'flowUUID')!.message).toContain(before.body.flowUUID);
    expect(etagOf(await read(url))).toBe(etagOf(before));
  });

  test('the uuid is the reference: details of another persona, function or collection are ignored, and heirs too', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, agentBody(bot))).body.uuid}`);
    const before = (await read(url)).body;

    const response = await admin.put(url, {
      ...before,
      persona: { ...before.persona!, uuid: bot.personas[1]!.uuid },
      functions: [{ uuid: bot.functions[2]!.uuid, name: 'not its name' }],
      knowledge: [{ ...before.knowledge[0]!, name: 'Renamed', documentCount: 999 }],
      heirs: [{ role: 'Someone' }],
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...before,
      persona: { uuid: bot.personas[1]!.uuid, name: 'Second persona', image: null, backstory: null, personality: null, communicationStyle: 'FRIENDLY_AND_APPROACHABLE' },
      functions: [{ uuid: bot.functions[2]!.uuid, name: 'fnThree' }],
      knowledge: before.knowledge,
      heirs: [],
    });
  });

  test('null for any optional field means absent: the field is cleared', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, agentBody(bot))).body.uuid}`);
    const before = (await read(url)).body;

    const response = await admin.put(url, {
      ...before,
      instructions: null,
      guardrails: null,
      constraints: null,
      tags: null,
      parameters: { ...before.parameters!, maximumTokens: null },
      functions: null,
      knowledge: null,
    });

    expect(response.status).toBe(200);
    const { maximumTokens: _cleared, ...parameters } = before.parameters!;
    expect(response.body).toEqual({ ...before, instructions: null, guardrails: null, constraints: [], tags: [], parameters, functions: [], knowledge: [] });
  });

  test('fields that are neither in the Agent nor in the update body are still refused', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, agentBody(bot))).body.uuid}`);
    const before = (await read(url)).body;

    const response = await admin.put(url, { ...before, createdAt: '2024-01-01T00:00:00Z', persona: { ...before.persona!, color: 'red' } });

    expectFieldErrors(response, ['createdAt', 'persona.color']);
    expect(detailOf(response, 'createdAt')!.errorCode).toBe('FIELD_UNKNOWN');
  });

  test('a persona read as null (deleted from the bot) must be named again: a 422 that says so', async () => {
    const url = agentsUrl(bot, `/${(await createAgent(bot, minimalAgentBody(bot))).body.uuid}`);
    const before = (await read(url)).body;

    const response = await admin.put(url, { ...before, persona: null });

    expectFieldErrors(response, ['persona']);
    expect(detailOf(response, 'persona')!.message).toMatch(/uuid names one of the bot’s personas/);
  });
});

describe('POST /agents', () => {
  test('takes null for every optional field, meaning absent', async () => {
    const body = minimalAgentBody(bot, {
      instructions: null,
      guardrails: null,
      constraints: null,
      tags: [{ uuid: null, name: `#n${unique()}` }],
      parameters: { maximumTokens: null, requestTimeout: 1000, temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0 },
      functions: null,
      knowledge: null,
    });

    const response = await admin.post(agentsUrl(bot), body);

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      instructions: null,
      guardrails: null,
      constraints: [],
      parameters: { requestTimeout: 1000, temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0 },
      functions: [],
      knowledge: [],
    });
    expect(response.body.parameters).not.toHaveProperty('maximumTokens');
  });
});

describe('PUT /supervisors/{uuid} takes back what GET /supervisors/{uuid} answered', () => {
  test('a supervisor with every field populated, heirs included: 200, the next ETag, the same Agent', async () => {
    const uuid = await populatedSupervisor(bot);

    const read = await expectRoundTrip(supervisorUrl(bot, uuid));

    expect(read.constraints).toHaveLength(2);
    expect(read.tags).toHaveLength(2);
    expect(read.parameters).toMatchObject({ maximumTokens: 700 });
    expect(read.functions.map((f) => f.name)).toEqual(['fnThree', 'fnOne']);
    expect(read.knowledge.map((k) => k.name)).toEqual(['FAQ', 'Manuals']);
    expect(read.heirs.length).toBeGreaterThan(0);
  });

  test('a supervisor whose optional fields are absent (read as nulls and empty lists): the same', async () => {
    const supervisor = await addSupervisor(bot.botUuid, { role: `Bare ${unique()}`, goal: 'Route', personaUuid: bot.personas[1]!.uuid, isDefault: false });

    const read = await expectRoundTrip(supervisorUrl(bot, supervisor.uuid));

    expect(read).toMatchObject({ instructions: null, guardrails: null, parameters: null, constraints: [], tags: [], functions: [], knowledge: [] });
  });

  test.each([
    ['role', () => 'Another role'],
    ['goal', () => 'Another goal'],
    ['inheritFromSupervisor', () => true],
    ['functions', (read: AgentDto) => read.functions.slice(1)],
    ['knowledge', (read: AgentDto) => [...read.knowledge].reverse()],
  ])('a changed %s is a 422 naming it, saying it cannot be changed here, and nothing changes', async (field, changed) => {
    const uuid = await populatedSupervisor(bot);
    const before = await read(supervisorUrl(bot, uuid));

    const response = await admin.put(supervisorUrl(bot, uuid), { ...before.body, instructions: 'Changed', [field]: changed(before.body) }, { 'if-match': etagOf(before) });

    expectFieldErrors(response, [field]);
    expect(detailOf(response, field)).toEqual({ fieldName: field, errorCode: 'FIELD_INVALID', message: expect.stringMatching(/^Cannot be changed through the supervisor update/) });
    const after = await read(supervisorUrl(bot, uuid));
    expect({ body: after.body, etag: etagOf(after) }).toEqual({ body: before.body, etag: etagOf(before) });
  });

  test('every changed read-only field is named at once, together with the other problems of references', async () => {
    const before = await read(supervisorUrl(bot, bot.supervisor!.uuid));

    const response = await admin.put(supervisorUrl(bot, bot.supervisor!.uuid), {
      ...before.body,
      uuid: randomUUID(),
      flowUUID: randomUUID(),
      role: 'Another role',
      persona: { uuid: randomUUID() },
    });

    expectFieldErrors(response, ['uuid', 'flowUUID', 'role', 'persona.uuid']);
  });

  test('the fields it does not change may also be left out, as the OpenAPI document’s body has them', async () => {
    const uuid = await populatedSupervisor(bot);
    const before = (await read(supervisorUrl(bot, uuid))).body;
    const { role: _r, goal: _g, inheritFromSupervisor: _i, functions: _f, knowledge: _k, ...body } = before;

    const response = await admin.put(supervisorUrl(bot, uuid), body);

    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: before });
  });
});
