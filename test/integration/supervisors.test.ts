import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { addSupervisor } from '../../shared/app/operator/operator.service';
import { NO_OPTIONAL_LISTS } from '../support/bot-fixtures';
import {
  AGENT_FIELDS,
  SORTED,
  SUMMARY_FIELDS,
  adminApi,
  adminClient,
  agentBody,
  agentsOf,
  createAgent,
  freshBot,
  minimalAgentBody,
  seededBot,
  supervisorsOf,
  supervisorsUrl,
  type FreshBot,
  type PageDto,
  type SupervisorUpdate,
} from '../support/bot-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { UUID } from '../support/http-client';
import { unique } from '../support/stack';

/**
 * GET and PUT of a bot's supervisors, through the typed client; what the OpenAPI document forbids (listing
 * values out of range, a malformed uuid, a body without its persona, broken JSON) goes raw.
 */

const raw = adminApi();
const parameters = { maximumTokens: 256, requestTimeout: 20000, temperature: 0.2, topP: 1, presencePenalty: 0, frequencyPenalty: 0.1 };

/** Reads a fresh bot's default supervisor and fails the test unless it answers 200. */
async function readSupervisor(bot: FreshBot) {
  const response = await supervisorsOf(bot).get(bot.supervisor!.uuid);
  if (response.status !== 200) throw new Error(`Read failed with ${response.status}: ${response.text}`);
  return response;
}

/** Updates a fresh bot's default supervisor, with If-Match when given. */
const updateDefault = (bot: FreshBot, body: SupervisorUpdate, ifMatch?: string) => supervisorsOf(bot).update(bot.supervisor!.uuid, body, ifMatch);

describe('GET /supervisors', () => {
  test("answers a Page of the bot's supervisors only, every field present", async () => {
    const bot = await freshBot();
    // A later update time than the default supervisor's, so the default order is known.
    await sleep(3);
    const night = await addSupervisor(bot.botUuid, { role: 'Night supervisor', goal: 'Cover the night shift', personaUuid: bot.personas[1]!.uuid, isDefault: false });
    await createAgent(bot, minimalAgentBody(bot, { inheritFromSupervisor: true }));
    await createAgent(bot, minimalAgentBody(bot));

    const response = await supervisorsOf(bot).list();

    expect(response.status).toBe(200);
    const summary = (s: typeof night) => ({
      uuid: s.uuid,
      role: s.role,
      goal: s.goal,
      tags: [],
      inheritFromSupervisor: false,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    });
    expect(response.body).toEqual({
      content: [summary(night), summary(bot.supervisor!)],
      pageable: { unpaged: false, paged: true, pageNumber: 1, pageSize: 5, offset: 0, sort: SORTED },
      totalElements: 2,
      totalPages: 1,
      numberOfElements: 2,
      size: 5,
      number: 1,
      first: true,
      last: true,
      empty: false,
      sort: SORTED,
      nextPageToken: null,
    });
    expect(Object.keys(response.body.content[0]!).sort()).toEqual(SUMMARY_FIELDS);
  });

  test('pages, orders and searches like the agent listing', async () => {
    const bot = await freshBot();
    await addSupervisor(bot.botUuid, { role: 'Night supervisor', goal: 'Cover the night shift', personaUuid: bot.personas[0]!.uuid, isDefault: false });

    const second = await raw.get<PageDto>(supervisorsUrl(bot, '?orderBy=role&direction=asc&size=1&page=2'));
    const searched = await supervisorsOf(bot).list({ searchTerm: 'NIGHT' });
    const past = await supervisorsOf(bot).list({ page: 3, size: 1 });

    expect(second.body).toMatchObject({ totalElements: 2, totalPages: 2, number: 2, size: 1, first: false, last: true });
    expect(second.body.content.map((s) => s.role)).toEqual(['Test supervisor']);
    expect(searched.body.content.map((s) => s.role)).toEqual(['Night supervisor']);
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ content: [], empty: true, number: 3 });
  });

  test('invalid listing parameters are a 422 naming each', async () => {
    const bot = await freshBot();

    expectFieldErrors(await raw.get(supervisorsUrl(bot, '?page=x&size=101&orderBy=goal&direction=sideways')), ['page', 'size', 'orderBy', 'direction']);
  });

  test('a bot without supervisors lists an empty page', async () => {
    const bot = await freshBot({ supervisor: false });

    const response = await supervisorsOf(bot).list();

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ content: [], totalElements: 0, empty: true });
  });
});

describe('GET /supervisors/default', () => {
  test('answers the default supervisor in the Agent shape, heirs being the inheriting agents in alphabetical order', async () => {
    const bot = await freshBot();
    for (const [role, inherits] of [
      ['zeta helper', true],
      ['Beta helper', false],
      ['émile helper', true],
      ['Alpha helper', true],
      ['delta helper', false],
    ] as const) {
      await createAgent(bot, minimalAgentBody(bot, { role, inheritFromSupervisor: inherits }));
    }

    const response = await supervisorsOf(bot).default();

    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^(W\/)?".+"$/);
    expect(Object.keys(response.body).sort()).toEqual(AGENT_FIELDS);
    const supervisor = bot.supervisor!;
    const persona = bot.personas[0]!;
    expect(response.body).toEqual({
      uuid: supervisor.uuid,
      role: 'Test supervisor',
      flowUUID: supervisor.flowUUID,
      goal: 'Route each test conversation',
      instructions: 'Hand over to the right agent.',
      guardrails: 'Stay polite.',
      persona: {
        uuid: persona.uuid,
        name: persona.name,
        image: persona.image,
        backstory: persona.backstory,
        personality: persona.personality,
        communicationStyle: persona.communicationStyle,
      },
      inheritFromSupervisor: false,
      ...NO_OPTIONAL_LISTS,
      heirs: [{ role: 'Alpha helper' }, { role: 'émile helper' }, { role: 'zeta helper' }],
    });
  });

  test('heirs follow the agents: one that stops inheriting leaves, one that starts joins', async () => {
    const bot = await freshBot();
    const leaving = (await createAgent(bot, minimalAgentBody(bot, { role: 'Leaving', inheritFromSupervisor: true }))).body;
    const joining = (await createAgent(bot, minimalAgentBody(bot, { role: 'Joining', inheritFromSupervisor: false }))).body;

    await agentsOf(bot).update(leaving.uuid, minimalAgentBody(bot, { role: 'Leaving', inheritFromSupervisor: false }));
    await agentsOf(bot).update(joining.uuid, minimalAgentBody(bot, { role: 'Joining', inheritFromSupervisor: true }));

    expect((await supervisorsOf(bot).default()).body.heirs).toEqual([{ role: 'Joining' }]);
  });

  test('a bot without agents has no heirs', async () => {
    const bot = await freshBot();

    expect((await supervisorsOf(bot).default()).body.heirs).toEqual([]);
  });

  test("a seeded bot's default supervisor lists the seeded inheriting agent among its heirs", async () => {
    const seeded = seededBot(1, 1, 0);

    const response = await supervisorsOf(seeded, adminClient(1)).default();

    expect(response.status).toBe(200);
    expect(response.body.heirs).toContainEqual({ role: 'Order assistant' });
  });

  test('a bot without a supervisor answers 404', async () => {
    const bot = await freshBot({ supervisor: false });

    expectError(await supervisorsOf(bot).default(), 404, 'NOT_FOUND');
  });

  test('a second, non-default supervisor does not replace the default', async () => {
    const bot = await freshBot();
    await addSupervisor(bot.botUuid, { role: 'Backup supervisor', goal: 'Stand in', personaUuid: bot.personas[0]!.uuid, isDefault: false });

    expect((await supervisorsOf(bot).default()).body.uuid).toBe(bot.supervisor!.uuid);
  });
});

describe('GET /supervisors/{uuid}', () => {
  let bot: FreshBot;
  beforeAll(async () => {
    bot = await freshBot();
  });

  test('answers the same body and ETag as the default read', async () => {
    const byDefault = await supervisorsOf(bot).default();

    const byUuid = await supervisorsOf(bot).get(bot.supervisor!.uuid);

    expect(byUuid.status).toBe(200);
    expect(byUuid.body).toEqual(byDefault.body);
    expect(byUuid.headers.get('etag')).toBe(byDefault.headers.get('etag'));
  });

  test('reads a non-default supervisor too', async () => {
    const backup = await addSupervisor(bot.botUuid, { role: 'Backup', goal: 'Stand in', personaUuid: bot.personas[1]!.uuid, isDefault: false });

    const response = await supervisorsOf(bot).get(backup.uuid);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ uuid: backup.uuid, role: 'Backup', goal: 'Stand in', persona: { uuid: bot.personas[1]!.uuid } });
  });

  test("an agent's uuid is not a supervisor: 404", async () => {
    const agent = (await createAgent(bot, minimalAgentBody(bot))).body;

    expectError(await supervisorsOf(bot).get(agent.uuid), 404, 'NOT_FOUND');
  });

  test('an unknown uuid is a 404, a supervisor of another bot too', async () => {
    const other = await freshBot();

    expectError(await supervisorsOf(bot).get(randomUUID()), 404, 'NOT_FOUND');
    expectError(await supervisorsOf(bot).get(other.supervisor!.uuid), 404, 'NOT_FOUND');
  });

  test('a malformed uuid is a 422 naming supervisorUUID', async () => {
    expectFieldErrors(await raw.get(supervisorsUrl(bot, '/nope')), ['supervisorUUID']);
  });
});

describe('PUT /supervisors/{uuid}', () => {
  test('replaces persona, instructions, guardrails, constraints, tags and parameters; role, goal and the rest stay', async () => {
    const bot = await freshBot();
    await createAgent(bot, minimalAgentBody(bot, { role: 'Heir', inheritFromSupervisor: true }));
    const before = await readSupervisor(bot);
    const tag = `#route${unique()}`;
    const persona = bot.personas[1]!;

    const response = await updateDefault(bot, {
      persona: { uuid: persona.uuid },
      instructions: 'New instructions',
      guardrails: 'New guardrails',
      constraints: [{ value: 'Route billing questions to billing' }],
      tags: [{ name: tag }],
      parameters,
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...before.body,
      persona: { uuid: persona.uuid, name: 'Second persona', image: null, backstory: null, personality: null, communicationStyle: 'FRIENDLY_AND_APPROACHABLE' },
      instructions: 'New instructions',
      guardrails: 'New guardrails',
      constraints: [{ uuid: expect.stringMatching(UUID), value: 'Route billing questions to billing' }],
      tags: [{ uuid: expect.stringMatching(UUID), name: tag }],
      parameters,
      heirs: [{ role: 'Heir' }],
    });
    expect(response.body).toMatchObject({ role: 'Test supervisor', goal: 'Route each test conversation', flowUUID: bot.supervisor!.flowUUID });
    const after = await readSupervisor(bot);
    expect(after.body).toEqual(response.body);
    expect(after.headers.get('etag')).toBe(response.headers.get('etag'));
    expect(response.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  test('optional fields left out are cleared', async () => {
    const bot = await freshBot();
    await updateDefault(bot, { persona: { uuid: bot.personas[0]!.uuid }, constraints: [{ value: 'x' }], tags: [{ name: `#c${unique()}` }], parameters });

    const response = await updateDefault(bot, { persona: { uuid: bot.personas[0]!.uuid } });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ instructions: null, guardrails: null, constraints: [], tags: [], parameters: null, role: 'Test supervisor' });
  });

  test('keeps a rule given with its uuid, adds one without, removes those left out', async () => {
    const bot = await freshBot();
    const persona = { uuid: bot.personas[0]!.uuid };
    const [kept, dropped] = (await updateDefault(bot, { persona, constraints: [{ value: 'Keep me' }, { value: 'Drop me' }] })).body.constraints;

    const response = await updateDefault(bot, { persona, constraints: [{ value: 'New rule' }, { uuid: kept!.uuid, value: 'Kept, reworded' }] });

    expect(response.status).toBe(200);
    expect(response.body.constraints).toEqual([
      { uuid: expect.stringMatching(UUID), value: 'New rule' },
      { uuid: kept!.uuid, value: 'Kept, reworded' },
    ]);
    expect([kept!.uuid, dropped!.uuid]).not.toContain(response.body.constraints[0]!.uuid);
  });

  test("a rule uuid that is not the supervisor's is a 422 naming constraints.N.uuid, and nothing changes", async () => {
    const bot = await freshBot();
    const agentRule = (await createAgent(bot, agentBody(bot))).body.constraints[0]!;
    const before = await readSupervisor(bot);

    const response = await updateDefault(bot, {
      persona: { uuid: bot.personas[1]!.uuid },
      instructions: 'Changed',
      constraints: [{ uuid: agentRule.uuid, value: 'Stolen rule' }],
    });

    expectFieldErrors(response, ['constraints.0.uuid']);
    const after = await readSupervisor(bot);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  test('the persona is required and shape problems are reported together; a role or goal it does not change is refused next', async () => {
    const bot = await freshBot();
    const changed = { role: 'New role', goal: 'New goal' };

    const shape = await raw.put(supervisorsUrl(bot, `/${bot.supervisor!.uuid}`), { ...changed, instructions: '', parameters: { ...parameters, temperature: 2.5, topP: undefined } });
    const kept = await updateDefault(bot, { ...changed, persona: { uuid: bot.personas[0]!.uuid }, parameters });

    const details = expectFieldErrors(shape, ['persona', 'instructions', 'parameters.temperature', 'parameters.topP']);
    expect(details.find((d) => d.fieldName === 'persona')!.errorCode).toBe('FIELD_REQUIRED');
    expect(details.find((d) => d.fieldName === 'parameters.topP')!.errorCode).toBe('FIELD_REQUIRED');
    const refused = expectFieldErrors(kept, ['role', 'goal']);
    expect(refused.map((d) => d.errorCode)).toEqual(['FIELD_INVALID', 'FIELD_INVALID']);
    expect((await readSupervisor(bot)).body).toMatchObject({ role: 'Test supervisor', goal: 'Route each test conversation', parameters: null });
  });

  test("a persona of another bot is a 422 naming persona.uuid", async () => {
    const bot = await freshBot();
    const foreign = seededBot().seeded.personas[0]!;

    expectFieldErrors(await updateDefault(bot, { persona: { uuid: foreign.uuid } }), ['persona.uuid']);
  });

  test('tags are shared with agents by name; a uuid that is not the name’s is a 422', async () => {
    const bot = await freshBot();
    const persona = { uuid: bot.personas[0]!.uuid };
    const tag = (await createAgent(bot, agentBody(bot))).body.tags[0]!;

    const reused = await updateDefault(bot, { persona, tags: [{ name: tag.name }] });
    const mismatched = await updateDefault(bot, { persona, tags: [{ uuid: tag.uuid, name: `#other${unique()}` }] });

    expect(reused.body.tags).toEqual([tag]);
    expectFieldErrors(mismatched, ['tags.0.uuid']);
  });

  test('updatedAt moves forward, createdAt stays', async () => {
    const bot = await freshBot();
    const listing = async () => (await supervisorsOf(bot).list()).body.content[0]!;
    const before = await listing();

    await updateDefault(bot, { persona: { uuid: bot.personas[0]!.uuid } });
    const after = await listing();

    expect(after.createdAt).toBe(before.createdAt);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
  });

  test('If-Match with the current ETag succeeds; a stale one is a 409 VERSION_CONFLICT and changes nothing', async () => {
    const bot = await freshBot();
    const persona = { uuid: bot.personas[0]!.uuid };
    const original = await readSupervisor(bot);

    const matched = await updateDefault(bot, { persona, instructions: 'Matched' }, original.headers.get('etag')!);
    const stale = await updateDefault(bot, { persona, instructions: 'Stale' }, original.headers.get('etag')!);

    expect(matched.status).toBe(200);
    expectError(stale, 409, 'VERSION_CONFLICT');
    const after = await readSupervisor(bot);
    expect(after.body.instructions).toBe('Matched');
    expect(after.headers.get('etag')).toBe(matched.headers.get('etag'));
  });

  test("an agent's uuid is not a supervisor: 404 and the agent is unchanged", async () => {
    const bot = await freshBot();
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const response = await supervisorsOf(bot).update(agent.uuid, { persona: { uuid: bot.personas[1]!.uuid } });

    expectError(response, 404, 'NOT_FOUND');
    expect((await agentsOf(bot).get(agent.uuid)).body).toEqual(agent);
  });

  test('an unknown supervisor is a 404; unparseable JSON a 400', async () => {
    const bot = await freshBot();

    expectError(await supervisorsOf(bot).update(randomUUID(), { persona: { uuid: bot.personas[0]!.uuid } }), 404, 'NOT_FOUND');
    expectError(await raw.put(supervisorsUrl(bot, `/${bot.supervisor!.uuid}`), '{'), 400, 'MALFORMED_JSON');
  });
});
