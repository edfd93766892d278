import jsonPatch, { type Operation } from 'fast-json-patch';
import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, getItem } from '../../shared/adapters/store/table';
import {
  adminApi,
  agentBody,
  agentsOf,
  agentsUrl,
  createAgent,
  freshBot,
  revisionsOf,
  seededBot,
  supervisorsOf,
  userWithGrants,
  type AgentDto,
  type FreshBot,
} from '../support/bot-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { stack } from '../support/stack';

/**
 * Revisions of agents and supervisors (list, read, diff, restore) through the typed client against the
 * local stack; values the OpenAPI document forbids go raw, and so do the requests of users with grants.
 */

const raw = adminApi();
/** A copy of `document` with a diff's RFC 6902 patch applied. */
const patched = (document: object, patch: object[]) => jsonPatch.applyPatch(structuredClone(document), patch as Operation[]).newDocument;
const adminEmail = () => stack().orgs[0]!.admin.email;
const etagOf = (response: { headers: Headers }) => response.headers.get('etag')!;
const versionOf = (etag: string) => Number(etag.replace(/^(W\/)?"|"$/g, ''));
/** The update body that sets an agent's content to what `agent` reads (its rule uuids kept). */
const bodyOf = (agent: AgentDto, overrides: Record<string, unknown> = {}) => ({
  role: agent.role,
  goal: agent.goal,
  ...(agent.instructions ? { instructions: agent.instructions } : {}),
  ...(agent.guardrails ? { guardrails: agent.guardrails } : {}),
  persona: { uuid: agent.persona!.uuid },
  inheritFromSupervisor: agent.inheritFromSupervisor,
  constraints: agent.constraints,
  tags: agent.tags,
  ...(agent.parameters ? { parameters: agent.parameters } : {}),
  functions: agent.functions.map(({ uuid }) => ({ uuid })),
  knowledge: agent.knowledge.map(({ uuid }) => ({ uuid })),
  ...overrides,
});

let bot: FreshBot;

beforeAll(async () => {
  bot = await freshBot();
});

/** An agent of the fresh bot with three revisions: created, a new goal, then no guardrails and one function. */
async function agentWithHistory() {
  const created = (await createAgent(bot, agentBody(bot))).body;
  const second = await agentsOf(bot).update(created.uuid, bodyOf(created, { goal: 'A second goal' }));
  expect(second.status).toBe(200);
  const { guardrails: _dropped, ...withoutGuardrails } = bodyOf(second.body, { functions: [{ uuid: bot.functions[2]!.uuid }] });
  const third = await agentsOf(bot).update(created.uuid, withoutGuardrails);
  expect(third.status).toBe(200);
  const url = agentsUrl(bot, `/${created.uuid}`);
  return { created, second: second.body, third: third.body, url, etag: etagOf(third), revisions: revisionsOf(bot, 'agent', created.uuid), read: () => agentsOf(bot).get(created.uuid) };
}

describe('revisions of an agent', () => {
  test('every write adds one revision numbered by its ETag version, listed newest first with author and action', async () => {
    const { revisions, etag } = await agentWithHistory();
    expect(versionOf(etag)).toBe(3);

    const page = await revisions.list();

    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalElements: 3, totalPages: 1, number: 1, size: 5, first: true, last: true, numberOfElements: 3 });
    expect(page.body.content.map((item) => [item.revision, item.action])).toEqual([
      [3, 'UPDATED'],
      [2, 'UPDATED'],
      [1, 'CREATED'],
    ]);
    for (const item of page.body.content) {
      expect(Object.keys(item).sort()).toEqual(['action', 'author', 'createdAt', 'revision']);
      expect(item.author).toEqual({ uuid: expect.any(String), email: adminEmail() });
    }
    const times = page.body.content.map((item) => Date.parse(item.createdAt));
    expect(times[0]).toBeGreaterThan(times[1]!);
    expect(times[1]).toBeGreaterThan(times[2]!);
  });

  test('pages from 1 with size, like the agent listings', async () => {
    const { revisions, url } = await agentWithHistory();

    const first = await revisions.list({ page: 1, size: 2 });
    const second = await revisions.list({ page: 2, size: 2 });
    const beyond = await revisions.list({ page: 3, size: 2 });

    expect(first.body.content.map((item) => item.revision)).toEqual([3, 2]);
    expect(first.body).toMatchObject({ totalElements: 3, totalPages: 2, first: true, last: false });
    expect(second.body.content.map((item) => item.revision)).toEqual([1]);
    expect(second.body).toMatchObject({ number: 2, first: false, last: true });
    expect(beyond.body).toMatchObject({ content: [], empty: true, totalElements: 3 });
    expectFieldErrors(await raw.get(`${url}/revisions?page=0`), ['page']);
    expectFieldErrors(await raw.get(`${url}/revisions?size=101`), ['size']);
  });

  test('a revision reads as the Agent did right after it; an unknown one is 404', async () => {
    const { created, second, third, revisions, url } = await agentWithHistory();

    for (const [n, expected] of [[1, created], [2, second], [3, third]] as const) {
      const response = await revisions.get(n);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expected);
    }
    expectError(await revisions.get(4), 404, 'NOT_FOUND');
    expectFieldErrors(await raw.get(`${url}/revisions/0`), ['revision']);
    expectFieldErrors(await raw.get(`${url}/revisions/abc`), ['revision']);
  });

  test('a diff is an RFC 6902 patch from the revision before (or `against`) that applies to give the revision', async () => {
    const { created, second, third, revisions, url } = await agentWithHistory();

    const diff = await revisions.diff(2);
    const across = await revisions.diff(3, { against: '1' });
    const backwards = await revisions.diff(1, { against: '3' });
    const first = await revisions.diff(1);

    expect(diff.status).toBe(200);
    expect(diff.body).toEqual({ from: 1, to: 2, patch: [{ op: 'replace', path: '/goal', value: 'A second goal' }] });
    expect(across.body.from).toBe(1);
    expect(patched(created, across.body.patch)).toEqual(third);
    expect(across.body.patch).toEqual(expect.arrayContaining([{ op: 'replace', path: '/guardrails', value: null }]));
    expect(patched(third, backwards.body.patch)).toEqual(created);
    expect(patched(created, diff.body.patch)).toEqual(second);
    // The creation has no revision before it: the patch adds the whole Agent.
    expect(first.body).toEqual({ from: null, to: 1, patch: [{ op: 'add', path: '', value: created }] });
    expectError(await revisions.diff(3, { against: '9' }), 404, 'NOT_FOUND');
    expectFieldErrors(await raw.get(`${url}/revisions/3/diff?against=-1`), ['against']);
  });

  test('a restore makes the content that of the revision, as a new RESTORED revision with its ETag', async () => {
    const { created, revisions, read, etag } = await agentWithHistory();

    const restored = await revisions.restore(1, etag);

    expect(restored.status).toBe(200);
    expect(versionOf(etagOf(restored))).toBe(4);
    expect(restored.body).toEqual(created);
    expect((await read()).body).toEqual(created);
    expect(etagOf(await read())).toBe(etagOf(restored));
    const page = await revisions.list({ size: 1 });
    expect(page.body.content[0]).toMatchObject({ revision: 4, action: 'RESTORED', author: { email: adminEmail() } });
    expect((await revisions.diff(4, { against: '1' })).body.patch).toEqual([]);
  });

  test('a restore with a stale If-Match is 409 and changes nothing', async () => {
    const { third, revisions, read } = await agentWithHistory();

    const stale = await revisions.restore(1, '"2"');

    expectError(stale, 409, 'VERSION_CONFLICT');
    expect((await read()).body).toEqual(third);
    expect((await revisions.list()).body.totalElements).toBe(3);
  });

  test('two restores racing with the same If-Match: one wins, the other is 409, one revision is added', async () => {
    const { created, second, revisions, read, etag } = await agentWithHistory();

    const answers = await Promise.all([revisions.restore(1, etag), revisions.restore(2, etag)]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers.find((answer) => answer.status === 200)!;
    expectError(answers.find((answer) => answer.status === 409)!, 409, 'VERSION_CONFLICT');
    expect([created, second]).toContainEqual(winner.body);
    expect((await read()).body).toEqual(winner.body);
    const page = await revisions.list();
    expect(page.body.totalElements).toBe(4);
    expect(page.body.content.filter((item) => item.action === 'RESTORED')).toHaveLength(1);
  });

  test('a restore whose references the bot no longer has is 422 naming them, and changes nothing', async () => {
    const fresh = await freshBot();
    const created = (await createAgent(fresh, agentBody(fresh))).body;
    const revisions = revisionsOf(fresh, 'agent', created.uuid);
    const updated = await agentsOf(fresh).update(created.uuid, bodyOf(created, { functions: [], knowledge: [] }));
    expect(updated.status).toBe(200);
    // The bot's function and collection of revision 1 are removed (by the console, say).
    await deleteItem({ Key: keys.botFunction(fresh.botUuid, created.functions[1]!.uuid) });
    await deleteItem({ Key: keys.collection(fresh.botUuid, created.knowledge[0]!.uuid) });

    const refused = await revisions.restore(1);

    expectFieldErrors(refused, ['functions.1.uuid', 'knowledge.0.uuid']);
    expect((await agentsOf(fresh).get(created.uuid)).body).toEqual(updated.body);
    expect((await revisions.list()).body.totalElements).toBe(2);
  });

  test('the revision item is a gzipped snapshot: stored apart from the agent, with no readable copy of the text', async () => {
    const { created } = await agentWithHistory();

    const item = await getItem<Record<string, unknown>>(keys.agentRevision(bot.botUuid, created.uuid, 1));

    expect(Object.keys(item!).sort()).toEqual(['action', 'author', 'body', 'createdAt', 'revision']);
    expect(item!.body).toBeInstanceOf(Uint8Array);
  });
});

describe('revisions of a supervisor', () => {
  test('the same four operations: list, read, diff and restore', async () => {
    const fresh = await freshBot();
    const supervisor = fresh.supervisor!.uuid;
    const revisions = revisionsOf(fresh, 'supervisor', supervisor);
    const original = await supervisorsOf(fresh).get(supervisor);
    const updated = await supervisorsOf(fresh).update(supervisor, { persona: { uuid: fresh.personas[1]!.uuid }, instructions: 'New instructions' });
    expect(updated.status).toBe(200);

    const page = await revisions.list();
    const diff = await revisions.diff(2);
    const restored = await revisions.restore(1, etagOf(updated));

    // Created by the operator's command line: no user is its author.
    expect(page.body.content.map((item) => [item.revision, item.action, item.author.email])).toEqual([
      [2, 'UPDATED', adminEmail()],
      [1, 'CREATED', null],
    ]);
    expect(patched(original.body, diff.body.patch)).toEqual(updated.body);
    expect(diff.body.patch).toEqual(expect.arrayContaining([{ op: 'replace', path: '/instructions', value: 'New instructions' }]));
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(original.body);
    expect(versionOf(etagOf(restored))).toBe(3);
    expectError(await revisions.get(9), 404, 'NOT_FOUND');
  });

  test("an agent's uuid is not a supervisor's, and a supervisor's is not an agent's", async () => {
    const fresh = await freshBot();
    const agent = (await createAgent(fresh, agentBody(fresh))).body;

    expectError(await revisionsOf(fresh, 'supervisor', agent.uuid).list(), 404, 'NOT_FOUND');
    expectError(await revisionsOf(fresh, 'agent', fresh.supervisor!.uuid).get(1), 404, 'NOT_FOUND');
    expectError(await revisionsOf(fresh, 'agent', fresh.supervisor!.uuid).restore(1), 404, 'NOT_FOUND');
  });
});

describe('who may read and restore revisions', () => {
  test('a reader of the bot reads revisions but may not restore; an editor restores; another organization gets 404', async () => {
    const { created, revisions, url } = await agentWithHistory();
    const viewer = await userWithGrants('VIEWER', [{ environmentUuid: bot.envUuid, botUuid: bot.botUuid }]);
    const editor = await userWithGrants('EDITOR', [{ environmentUuid: bot.envUuid, botUuid: bot.botUuid }]);
    const stranger = await userWithGrants('EDITOR', [{ environmentUuid: seededBot().envUuid, botUuid: seededBot().botUuid }]);
    const otherOrg = adminApi(1);

    expect((await viewer.api.get(`${url}/revisions`)).status).toBe(200);
    expect((await viewer.api.get(`${url}/revisions/1`)).body).toEqual(created);
    expect((await viewer.api.get(`${url}/revisions/2/diff`)).status).toBe(200);
    expectError(await viewer.api.post(`${url}/revisions/1/restore`, undefined), 403, 'FORBIDDEN');
    expectError(await stranger.api.get(`${url}/revisions`), 403, 'FORBIDDEN');
    for (const path of ['/revisions', '/revisions/1', '/revisions/2/diff']) expectError(await otherOrg.get(`${url}${path}`), 404, 'NOT_FOUND');
    expectError(await otherOrg.post(`${url}/revisions/1/restore`, undefined), 404, 'NOT_FOUND');
    expect((await revisions.list()).body.totalElements).toBe(3);

    const restored = await editor.api.post(`${url}/revisions/1/restore`, undefined);

    expect(restored.status).toBe(200);
    const page = await revisions.list({ size: 1 });
    expect(page.body.content[0]).toMatchObject({ revision: 4, action: 'RESTORED', author: { uuid: editor.userUuid } });
  });
});
