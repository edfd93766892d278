import { randomUUID } from 'node:crypto';
import { GUIDE_PERSONA, MANUALS_COLLECTION, NO_OPTIONAL_LISTS } from '../support/bot-fixtures';
import {
  AGENT_FIELDS,
  adminApi,
  adminClient,
  agentBody,
  agentsOf,
  createAgent,
  foreignBot,
  freshBot,
  listAll,
  minimalAgentBody,
  type FreshBot,
} from '../support/bot-helpers';
import { expectFieldErrors } from '../support/error-body';
import { UUID } from '../support/http-client';
import { unique } from '../support/stack';

/** POST /agents: the Agent it answers, tags shared by name within the organization, references to the bot's own resources. */

let bot: FreshBot;
beforeAll(async () => {
  bot = await freshBot();
});

describe('POST /agents', () => {
  test('answers 201 with the full Agent: references resolved, new rule uuids, tag, flowUUID, no heirs, and an ETag', async () => {
    const body = agentBody(bot);

    const response = await agentsOf(bot).create(body);

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
      persona: { uuid: persona!.uuid, ...GUIDE_PERSONA },
      inheritFromSupervisor: true,
      constraints: [
        { uuid: expect.stringMatching(UUID), value: 'Always confirm the order number' },
        { uuid: expect.stringMatching(UUID), value: 'Never share e-mail addresses' },
      ],
      tags: [{ uuid: expect.stringMatching(UUID), name: body.tags[0]!.name }],
      parameters: { maximumTokens: 500, requestTimeout: 30000, temperature: 0.7, topP: 0.9, presencePenalty: 0.5, frequencyPenalty: -0.5 },
      functions: [
        { uuid: bot.functions[1]!.uuid, name: 'fnTwo' },
        { uuid: bot.functions[0]!.uuid, name: 'fnOne' },
      ],
      knowledge: [{ uuid: manuals!.uuid, ...MANUALS_COLLECTION }],
      heirs: [],
    });
    const { uuid, flowUUID, constraints } = response.body;
    expect(new Set([uuid, flowUUID, constraints[0]!.uuid, constraints[1]!.uuid]).size).toBe(4);
  });

  test('GET /agents/{uuid} answers the created body with the same ETag', async () => {
    const createdAgent = await createAgent(bot, agentBody(bot));

    const response = await agentsOf(bot).get(createdAgent.body.uuid);

    expect(response.status).toBe(200);
    expect(response.body).toEqual(createdAgent.body);
    expect(response.headers.get('etag')).toBe(createdAgent.headers.get('etag'));
  });

  test('reads back absent optional fields as null or empty, and a persona without image as nulls', async () => {
    const body = minimalAgentBody(bot, { persona: { uuid: bot.personas[1]!.uuid } });

    const response = await agentsOf(bot).create(body);

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
      ...NO_OPTIONAL_LISTS,
      heirs: [],
    });
  });

  test('gives each agent its own flowUUID', async () => {
    const [first, second] = [await createAgent(bot, minimalAgentBody(bot)), await createAgent(bot, minimalAgentBody(bot))];

    expect(first.body.flowUUID).not.toBe(second.body.flowUUID);
  });

  test('concurrent creates on one bot all succeed and are all listed', async () => {
    const own = await freshBot();

    const responses = await Promise.all(Array.from({ length: 8 }, () => agentsOf(own).create(minimalAgentBody(own))));

    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect((await listAll(adminApi(), own, 'agents')).map((a) => a.uuid).sort()).toEqual(responses.map((r) => r.body.uuid).sort());
  });

  test('trims text fields', async () => {
    const role = `Trimmed ${unique()}`;

    const response = await agentsOf(bot).create(minimalAgentBody(bot, { role: `  ${role}  `, goal: '\tGoal\n' }));

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

    const response = await agentsOf(bot).create(agentBody(bot, { tags: [{ name: `#other${unique()}` }, { uuid: tag.uuid, name }] }));

    expect(response.status).toBe(201);
    expect(response.body.tags[1]).toEqual(tag);
    expect(response.body.tags[0]!.uuid).not.toBe(tag.uuid);
  });

  test("a uuid that is not the named tag's is a 422 naming tags.N.uuid", async () => {
    const tagA = (await createAgent(bot, agentBody(bot, { tags: [{ name: `#a${unique()}` }] }))).body.tags[0]!;
    const nameB = `#b${unique()}`;
    await createAgent(bot, agentBody(bot, { tags: [{ name: nameB }] }));

    const response = await agentsOf(bot).create(
      agentBody(bot, { tags: [{ name: `#c${unique()}` }, { uuid: tagA.uuid, name: nameB }, { uuid: randomUUID(), name: tagA.name }] }),
    );

    const details = expectFieldErrors(response, ['tags.1.uuid', 'tags.2.uuid']);
    expect(details.map((d) => d.errorCode)).toEqual(['FIELD_INVALID', 'FIELD_INVALID']);
  });

  test('tags belong to one organization: the same name in another organization is another tag', async () => {
    const name = `#org${unique()}`;
    const globexBot = await freshBot({ orgIndex: 1 });
    const acmeTag = (await createAgent(bot, agentBody(bot, { tags: [{ name }] }))).body.tags[0]!;

    const response = await agentsOf(globexBot, adminClient(1)).create(agentBody(globexBot, { tags: [{ name }] }));

    expect(response.status).toBe(201);
    expect(response.body.tags).toEqual([{ uuid: expect.stringMatching(UUID), name }]);
    expect(response.body.tags[0]!.uuid).not.toBe(acmeTag.uuid);
  });

  test('concurrent creates with the same new name all get one tag', async () => {
    const name = `#race${unique()}`;

    const responses = await Promise.all(Array.from({ length: 5 }, () => agentsOf(bot).create(agentBody(bot, { tags: [{ name }] }))));

    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.tags[0]!.uuid)).size).toBe(1);
  });

  test('the same name twice in one body is a 422', async () => {
    const name = `#twice${unique()}`;

    const response = await agentsOf(bot).create(agentBody(bot, { tags: [{ name }, { name: name.toUpperCase() }] }));

    expectFieldErrors(response, ['tags.1.name']);
  });
});

describe('references to the bot’s resources', () => {
  test('a persona, function or collection of another bot is a 422 naming each field and index', async () => {
    const foreign = foreignBot();
    const body = agentBody(bot, {
      persona: { uuid: foreign.personas[0]!.uuid },
      functions: [{ uuid: bot.functions[0]!.uuid }, { uuid: foreign.functions[0]!.uuid }],
      knowledge: [{ uuid: foreign.collections[1]!.uuid }],
    });

    const response = await agentsOf(bot).create(body);

    const details = expectFieldErrors(response, ['persona.uuid', 'functions.1.uuid', 'knowledge.0.uuid']);
    expect(details.map((d) => d.errorCode)).toEqual(['FIELD_INVALID', 'FIELD_INVALID', 'FIELD_INVALID']);
  });

  test('uuids that exist nowhere are refused the same way', async () => {
    const body = agentBody(bot, { persona: { uuid: randomUUID() }, functions: [{ uuid: randomUUID() }], knowledge: [{ uuid: randomUUID() }] });

    expectFieldErrors(await agentsOf(bot).create(body), ['persona.uuid', 'functions.0.uuid', 'knowledge.0.uuid']);
  });

  test('a function listed twice is a 422', async () => {
    const fn = { uuid: bot.functions[0]!.uuid };

    const response = await agentsOf(bot).create(agentBody(bot, { functions: [fn, { uuid: bot.functions[1]!.uuid }, fn] }));

    expectFieldErrors(response, ['functions.2.uuid']);
  });

  test('a collection listed twice is a 422', async () => {
    const collection = { uuid: bot.collections[0]!.uuid };

    expectFieldErrors(await agentsOf(bot).create(agentBody(bot, { knowledge: [collection, collection] })), ['knowledge.1.uuid']);
  });
});
