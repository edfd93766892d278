import { randomUUID } from 'node:crypto';
import { NO_OPTIONAL_LISTS } from '../support/bot-fixtures';
import {
  adminApi,
  agentBody,
  agentsOf,
  agentsUrl,
  createAgent,
  foreignBot,
  freshBot,
  minimalAgentBody,
  type AgentDto,
  type BotAddress,
  type FreshBot,
} from '../support/bot-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { UUID } from '../support/http-client';

/** PUT /agents/{uuid}: rules kept by uuid, a whole replacement, ETags and If-Match, concurrent writes, what it refuses. */

const raw = adminApi();

/** The listing summary of one agent, found by its (unique) role. */
async function summaryOf(bot: BotAddress, agent: AgentDto) {
  const response = await agentsOf(bot).list({ searchTerm: agent.role, size: 100 });
  const summary = response.body.content.find((item) => item.uuid === agent.uuid);
  if (!summary) throw new Error(`No summary for ${agent.uuid}`);
  return summary;
}

let bot: FreshBot;
beforeAll(async () => {
  bot = await freshBot();
});

describe('PUT /agents/{uuid}', () => {
  test('keeps a rule given with its uuid (new text), adds one without, removes those left out', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const [kept, dropped] = agent.constraints;

    const response = await agentsOf(bot).update(
      agent.uuid,
      agentBody(bot, { role: agent.role, constraints: [{ uuid: kept!.uuid, value: 'Changed text' }, { value: 'Brand new rule' }] }),
    );

    expect(response.status).toBe(200);
    expect(response.body.constraints).toEqual([
      { uuid: kept!.uuid, value: 'Changed text' },
      { uuid: expect.stringMatching(UUID), value: 'Brand new rule' },
    ]);
    expect([kept!.uuid, dropped!.uuid]).not.toContain(response.body.constraints[1]!.uuid);
    expect((await agentsOf(bot).get(agent.uuid)).body).toEqual(response.body);
  });

  test("a rule uuid that is not this agent's is a 422 naming constraints.N.uuid, and nothing changes", async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const otherRule = (await createAgent(bot, agentBody(bot))).body.constraints[0]!;

    const response = await agentsOf(bot).update(
      agent.body.uuid,
      agentBody(bot, { goal: 'Changed', constraints: [{ uuid: agent.body.constraints[0]!.uuid, value: 'a' }, { uuid: otherRule.uuid, value: 'b' }] }),
    );

    expectFieldErrors(response, ['constraints.1.uuid']);
    const after = await agentsOf(bot).get(agent.body.uuid);
    expect(after.body).toEqual(agent.body);
    expect(after.headers.get('etag')).toBe(agent.headers.get('etag'));
  });

  test('the same rule uuid twice is a 422', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const rule = agent.constraints[0]!;

    const response = await agentsOf(bot).update(agent.uuid, agentBody(bot, { constraints: [{ uuid: rule.uuid, value: 'a' }, { uuid: rule.uuid, value: 'b' }] }));

    expectFieldErrors(response, ['constraints.1.uuid']);
  });

  test('replaces the agent: optional fields left out are cleared', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const body = minimalAgentBody(bot, { role: 'Replaced role', goal: 'Replaced goal', persona: { uuid: bot.personas[1]!.uuid }, inheritFromSupervisor: false });

    const response = await agentsOf(bot).update(agent.uuid, body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...agent,
      role: 'Replaced role',
      goal: 'Replaced goal',
      instructions: null,
      guardrails: null,
      persona: expect.objectContaining({ uuid: bot.personas[1]!.uuid, name: 'Second persona' }),
      inheritFromSupervisor: false,
      ...NO_OPTIONAL_LISTS,
    });
    expect((await agentsOf(bot).get(agent.uuid)).body).toEqual(response.body);
  });

  test('keeps uuid and flowUUID and sets every field it is given', async () => {
    const agent = (await createAgent(bot, minimalAgentBody(bot))).body;
    const body = agentBody(bot, { knowledge: [{ uuid: bot.collections[1]!.uuid }], functions: [{ uuid: bot.functions[2]!.uuid }] });

    const response = await agentsOf(bot).update(agent.uuid, body);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      uuid: agent.uuid,
      flowUUID: agent.flowUUID,
      role: body.role,
      instructions: 'Be brief.',
      functions: [{ uuid: bot.functions[2]!.uuid, name: 'fnThree' }],
      knowledge: [{ uuid: bot.collections[1]!.uuid, name: 'FAQ', description: '', documentCount: 0 }],
      tags: [{ name: body.tags[0]!.name }],
    });
  });

  test('updatedAt and the ETag change on every update, createdAt does not', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const original = await summaryOf(bot, agent.body);

    const first = await agentsOf(bot).update(agent.body.uuid, agentBody(bot, { role: agent.body.role, goal: 'First update' }));
    const afterFirst = await summaryOf(bot, agent.body);
    const second = await agentsOf(bot).update(agent.body.uuid, agentBody(bot, { role: agent.body.role, goal: 'First update' }));
    const afterSecond = await summaryOf(bot, agent.body);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(Date.parse(afterFirst.updatedAt)).toBeGreaterThan(Date.parse(original.updatedAt));
    expect(Date.parse(afterSecond.updatedAt)).toBeGreaterThan(Date.parse(afterFirst.updatedAt));
    expect([afterFirst.createdAt, afterSecond.createdAt]).toEqual([original.createdAt, original.createdAt]);
    const etags = [agent, first, second].map((r) => r.headers.get('etag'));
    expect(new Set(etags).size).toBe(3);
    expect((await agentsOf(bot).get(agent.body.uuid)).headers.get('etag')).toBe(etags[2]);
  });

  test('If-Match with the current ETag succeeds', async () => {
    const agent = await createAgent(bot, agentBody(bot));

    const response = await agentsOf(bot).update(agent.body.uuid, agentBody(bot, { goal: 'Matched' }), agent.headers.get('etag')!);

    expect(response.status).toBe(200);
    expect(response.body.goal).toBe('Matched');
  });

  test('a stale If-Match is a 409 VERSION_CONFLICT and changes nothing', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const staleEtag = agent.headers.get('etag')!;
    const current = await agentsOf(bot).update(agent.body.uuid, agentBody(bot, { role: agent.body.role, goal: 'Newer' }));

    const response = await agentsOf(bot).update(agent.body.uuid, agentBody(bot, { goal: 'Lost update' }), staleEtag);

    expectError(response, 409, 'VERSION_CONFLICT');
    const after = await agentsOf(bot).get(agent.body.uuid);
    expect(after.body).toEqual(current.body);
    expect(after.headers.get('etag')).toBe(current.headers.get('etag'));
  });

  test('without If-Match the last write wins', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const second = agentBody(bot, { goal: 'Second write', inheritFromSupervisor: false });

    await agentsOf(bot).update(agent.uuid, agentBody(bot, { goal: 'First write' }));
    await agentsOf(bot).update(agent.uuid, second);

    expect((await agentsOf(bot).get(agent.uuid)).body).toMatchObject({ role: second.role, goal: 'Second write', inheritFromSupervisor: false });
  });

  test('concurrent writes without If-Match never fail with a server error and one of them is the final state', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const bodies = Array.from({ length: 6 }, (_, i) => agentBody(bot, { goal: `Concurrent ${i}` }));

    const responses = await Promise.all(bodies.map((body) => agentsOf(bot).update(agent.uuid, body)));

    expect(responses.filter((r) => r.status >= 500)).toEqual([]);
    const final = (await agentsOf(bot).get(agent.uuid)).body;
    expect(bodies.map((b) => b.goal)).toContain(final.goal);
    expect(bodies.find((b) => b.goal === final.goal)!.role).toBe(final.role);
  });

  test('concurrent writes without If-Match all succeed (last write wins, none is refused)', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    const bodies = Array.from({ length: 6 }, (_, i) => agentBody(bot, { goal: `Racing ${i}` }));

    const responses = await Promise.all(bodies.map((body) => agentsOf(bot).update(agent.uuid, body)));

    expect(responses.map((r) => ({ status: r.status, errorCode: (r.body as { errorCode?: string }).errorCode }))).toEqual(
      bodies.map(() => ({ status: 200, errorCode: undefined })),
    );
  });

  test('references of another bot are refused on update too, each named', async () => {
    const agent = await createAgent(bot, agentBody(bot));
    const foreign = foreignBot();

    const response = await agentsOf(bot).update(
      agent.body.uuid,
      agentBody(bot, {
        persona: { uuid: foreign.personas[1]!.uuid },
        functions: [{ uuid: foreign.functions[2]!.uuid }],
        knowledge: [{ uuid: bot.collections[0]!.uuid }, { uuid: foreign.collections[0]!.uuid }],
      }),
    );

    expectFieldErrors(response, ['persona.uuid', 'functions.0.uuid', 'knowledge.1.uuid']);
    expect((await agentsOf(bot).get(agent.body.uuid)).body).toEqual(agent.body);
  });

  test('a foreign rule uuid and a foreign reference are reported together', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const response = await agentsOf(bot).update(
      agent.uuid,
      agentBody(bot, { constraints: [{ uuid: randomUUID(), value: 'x' }], functions: [{ uuid: foreignBot().functions[0]!.uuid }] }),
    );

    expectFieldErrors(response, ['constraints.0.uuid', 'functions.0.uuid']);
  });

  test('validation applies to updates: several problems at once', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const response = await raw.put(
      agentsUrl(bot, `/${agent.uuid}`),
      agentBody(bot, { role: '', color: 'blue', parameters: { requestTimeout: 0, temperature: 1, topP: 1, presencePenalty: 0, frequencyPenalty: 0 } }),
    );

    expectFieldErrors(response, ['role', 'color', 'parameters.requestTimeout']);
  });

  test('an unknown agent is a 404, and so is the supervisor', async () => {
    expectError(await agentsOf(bot).update(randomUUID(), agentBody(bot)), 404, 'NOT_FOUND');
    expectError(await agentsOf(bot).update(bot.supervisor!.uuid, agentBody(bot)), 404, 'NOT_FOUND');
  });

  test('unparseable JSON is a 400 MALFORMED_JSON', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    expectError(await raw.put(agentsUrl(bot, `/${agent.uuid}`), 'not json'), 400, 'MALFORMED_JSON');
  });
});

test('an update moves the agent to the top of the default listing', async () => {
  const own = await freshBot();
  const oldest = (await createAgent(own, minimalAgentBody(own))).body;
  await createAgent(own, minimalAgentBody(own));
  await createAgent(own, minimalAgentBody(own));

  await agentsOf(own).update(oldest.uuid, minimalAgentBody(own, { role: oldest.role }));

  const first = (await agentsOf(own).list()).body.content[0]!;
  expect(first.uuid).toBe(oldest.uuid);
  expect(Date.parse(first.updatedAt)).toBeGreaterThan(Date.parse(first.createdAt));
});
