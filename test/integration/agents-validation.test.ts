import { randomUUID } from 'node:crypto';
import {
  adminApi,
  agentBody,
  agentsOf,
  agentsUrl,
  botUrl,
  createAgent,
  foreignBot,
  freshBot,
  minimalAgentBody,
  type BotAddress,
  type FreshBot,
  type PageDto,
} from '../support/bot-helpers';
import { detailOf, expectError, expectFieldErrors } from '../support/error-body';
import { unique } from '../support/stack';

/**
 * What POST and PUT /agents refuse, and that a refusal writes nothing. The bodies break the OpenAPI document's schemas,
 * so they go through the raw client; only those it must accept go through the typed one.
 */

const raw = adminApi();
const totalOf = async (bot: BotAddress) => (await raw.get<PageDto>(agentsUrl(bot))).body.totalElements;

let bot: FreshBot;
beforeAll(async () => {
  bot = await freshBot();
});

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

  const response = await raw.post(agentsUrl(bot), body);

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
  const body = agentBody(bot, { role: ' ', persona: { uuid: foreignBot().personas[0]!.uuid } });

  expectFieldErrors(await raw.post(agentsUrl(bot), body), ['role']);
  expectFieldErrors(await raw.post(agentsUrl(bot), { ...body, role: 'Fixed role' }), ['persona.uuid']);
});

test('names each missing required field', async () => {
  const response = await raw.post(agentsUrl(bot), {});

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
  expectFieldErrors(await raw.post(agentsUrl(bot), agentBody(bot, overrides)), [field]);
});

describe('parameters', () => {
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
    const response = await raw.post(agentsUrl(bot), agentBody(bot, { parameters: { ...parameters, [field]: value } }));

    expect(expectFieldErrors(response, [`parameters.${field}`])[0]!.errorCode).toBe('FIELD_INVALID');
  });

  test('parameters, when present, require their fields', async () => {
    const response = await raw.post(agentsUrl(bot), agentBody(bot, { parameters: { maximumTokens: 10, temperature: 1 } }));

    const details = expectFieldErrors(response, ['parameters.requestTimeout', 'parameters.topP', 'parameters.presencePenalty', 'parameters.frequencyPenalty']);
    expect(details.every((d) => d.errorCode === 'FIELD_REQUIRED')).toBe(true);
  });

  test('the boundary values of parameters are accepted', async () => {
    const edges = { maximumTokens: 1, requestTimeout: 600000, temperature: 2, topP: 0, presencePenalty: -2, frequencyPenalty: 2 };

    const response = await agentsOf(bot).create(agentBody(bot, { parameters: edges }));

    expect(response.status).toBe(201);
    expect(response.body.parameters).toEqual(edges);
  });
});

test('50 tags are accepted, 51 are not', async () => {
  const tags = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `#fifty${i}` }));

  expect((await agentsOf(bot).create(agentBody(bot, { tags: tags(50) }))).status).toBe(201);
  expectFieldErrors(await raw.post(agentsUrl(bot), agentBody(bot, { tags: tags(51) })), ['tags']);
});

test('unparseable JSON is a 400 MALFORMED_JSON', async () => {
  const response = await raw.post(agentsUrl(bot), '{"role": "Broken",');

  expectError(response, 400, 'MALFORMED_JSON');
});

test('a malformed agent uuid in the path is a 422 naming agentUUID, on GET and PUT', async () => {
  const read = await raw.get(agentsUrl(bot, '/nope'));
  const write = await raw.put(agentsUrl(bot, '/nope'), minimalAgentBody(bot));

  expect(expectFieldErrors(read, ['agentUUID'])[0]!.errorCode).toBe('FIELD_INVALID');
  expectFieldErrors(write, ['agentUUID']);
});

test('malformed uuids in the bot path are each named', async () => {
  const response = await raw.get(botUrl({ orgUuid: bot.orgUuid, envUuid: 'env', botUuid: 'bot' }, '/agents'));

  expectFieldErrors(response, ['envUUID', 'botUUID']);
});

test('nothing is written by a refused create or update', async () => {
  const own = await freshBot();
  const newTag = `#never${unique()}`;
  const existing = await createAgent(own, agentBody(own));
  const before = await raw.get(agentsUrl(own, `/${existing.body.uuid}`));

  const refused = [
    await raw.post(agentsUrl(own), agentBody(own, { role: ' ', tags: [{ name: newTag }] })),
    await raw.post(agentsUrl(own), agentBody(own, { persona: { uuid: foreignBot().personas[0]!.uuid }, tags: [{ name: newTag }] })),
    await raw.post(agentsUrl(own), agentBody(own, { tags: [{ name: newTag }, { uuid: randomUUID(), name: `#x${unique()}` }] })),
    await raw.post(agentsUrl(own), '{"role":'),
    await raw.put(agentsUrl(own, `/${existing.body.uuid}`), agentBody(own, { goal: 'Changed', knowledge: [{ uuid: randomUUID() }] })),
    await raw.put(
      agentsUrl(own, `/${existing.body.uuid}`),
      agentBody(own, { goal: 'Changed', constraints: [{ uuid: randomUUID(), value: 'x' }] }),
    ),
  ];

  expect(refused.map((r) => r.status)).toEqual([422, 422, 422, 400, 422, 422]);
  expect(await totalOf(own)).toBe(1);
  const after = await raw.get(agentsUrl(own, `/${existing.body.uuid}`));
  expect(after.body).toEqual(before.body);
  expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
});
