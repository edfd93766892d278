import { operatorScope } from '../../shared/domain/agents/bot-scope';
import { createAgent as createAgentDirectly } from '../../shared/app/agents/agent-write.service';
import { findBot } from '../../shared/domain/org/org.repository';
import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, getItem, putItem } from '../../shared/adapters/store/table';
import type { AuditEventDto } from '../support/audit-helpers';
import {
  adminApi,
  agentBody,
  botUrl,
  createAgent,
  freshBot,
  revisionsOf,
  userWithGrants,
  type FreshBot,
  type PageDto,
} from '../support/bot-helpers';
import { expectError } from '../support/error-body';
import { stack, unique, userArea } from '../support/stack';

/** Bundles of a bot's configuration: export, plan and apply, through the API against the local stack. */

interface Entry {
  role: string;
  goal: string;
  default?: boolean;
  knowledge: { name: string }[];
  [field: string]: unknown;
}
interface BundleDto {
  formatVersion: number;
  supervisors: Entry[];
  agents: Entry[];
}
interface Change {
  kind: 'supervisor' | 'agent';
  role: string;
  action: 'create' | 'update' | 'unchanged' | 'untouched';
  patch: { op: string; path: string; value?: unknown }[];
}
interface PlanDto {
  baseVersion: string;
  version?: string;
  changes: Change[];
}

const admin = adminApi();
const bundleUrl = (bot: FreshBot, path = '') => botUrl(bot, `/bundle${path}`);
const exportOf = async (bot: FreshBot, query = '', headers: Record<string, string> = {}) => {
  const response = await admin.get<BundleDto>(bundleUrl(bot, query), headers);
  expect(response.status).toBe(200);
  return response;
};
const plan = (bot: FreshBot, body: unknown, headers: Record<string, string> = {}) => admin.post<PlanDto>(bundleUrl(bot, '/plan'), body, headers);
const apply = (bot: FreshBot, body: unknown, headers: Record<string, string> = {}) => admin.post<PlanDto>(bundleUrl(bot, '/apply'), body, headers);
const actions = (changes: Change[]) => changes.map(({ kind, role, action }) => `${kind} ${role}: ${action}`);
const revisionTotal = async (bot: FreshBot, uuid: string) => (await revisionsOf(bot, 'agent', uuid).list()).body.totalElements;

/** A bot of a new environment with agents of every kind of field; the same resource names as every fresh bot. */
async function botWithAgents(roles: string[]): Promise<{ bot: FreshBot; uuids: Record<string, string> }> {
  const bot = await freshBot();
  const uuids: Record<string, string> = {};
  for (const role of roles) {
    const body = agentBody(bot, { role, goal: `Goal of ${role}`, knowledge: [{ uuid: bot.collections[1]!.uuid }] });
    uuids[role] = (await createAgent(bot, body)).body.uuid;
  }
  return { bot, uuids };
}

describe('a promotion from one bot to a bot of another environment', () => {
  let source: FreshBot;
  let target: FreshBot;
  let targetUuids: Record<string, string>;

  beforeAll(async () => {
    source = (await botWithAgents(['Billing', 'Returns', 'Shipping'])).bot;
    ({ bot: target, uuids: targetUuids } = await botWithAgents(['Only in target', 'RETURNS']));
  });

  test('exports are sorted and byte-identical, reference by name, and carry the configuration version as ETag', async () => {
    const first = await exportOf(source);
    const second = await exportOf(source);
    expect(second.text).toBe(first.text);
    expect(first.headers.get('etag')).toBe(second.headers.get('etag'));
    expect(first.headers.get('etag')).toMatch(/^"[\w-]{22}"$/);
    expect(first.body.formatVersion).toBe(1);
    expect(first.body.agents.map((agent) => agent.role)).toEqual(['Billing', 'Returns', 'Shipping']);
    expect(first.body.agents[0]).toEqual({
      role: 'Billing',
      goal: 'Goal of Billing',
      instructions: 'Be brief.',
      guardrails: 'Never promise refunds.',
      persona: { name: 'Test guide' },
      inheritFromSupervisor: expect.any(Boolean),
      constraints: expect.any(Array),
      tags: expect.any(Array),
      parameters: expect.any(Object),
      functions: expect.any(Array),
      knowledge: [{ name: 'FAQ' }],
    });
    expect(first.text).not.toMatch(/uuid|createdAt|updatedAt|"version"/i);
    const yaml = await exportOf(source, '', { accept: 'application/yaml' });
    expect(yaml.contentType).toMatch(/^application\/yaml/);
    expect(yaml.text).toMatch(/^formatVersion: 1\n/);
  });

  test('the plan shows each change without making it; the apply makes exactly it, and B exports as A except what A lacks', async () => {
    const bundle = (await exportOf(source)).body;
    const before = await exportOf(target);
    const planned = await plan(target, bundle);
    expect(planned.status).toBe(200);
    expect(planned.body.baseVersion).toBe(before.headers.get('etag')!.slice(1, -1));
    expect(actions(planned.body.changes)).toEqual([
      'supervisor Test supervisor: unchanged',
      'agent Billing: create',
      'agent Only in target: untouched',
      'agent Returns: update',
      'agent Shipping: create',
    ]);
    const returns = planned.body.changes.find((change) => change.role === 'Returns')!;
    expect(returns.patch).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/role', value: 'Returns' },
        { op: 'replace', path: '/goal', value: 'Goal of Returns' },
      ]),
    );
    expect((await exportOf(target)).text).toBe(before.text);

    const applied = await apply(target, bundle, { 'if-match': `"${planned.body.baseVersion}"`, 'x-request-id': `apply-${unique()}` });
    expect(applied.status).toBe(200);
    expect(actions(applied.body.changes)).toEqual(actions(planned.body.changes));
    const after = await exportOf(target);
    expect(after.headers.get('etag')).toBe(`"${applied.body.version}"`);
    expect(after.body.supervisors).toEqual(bundle.supervisors);
    expect(after.body.agents.filter((agent) => agent.role !== 'Only in target')).toEqual(bundle.agents);
    expect(after.body.agents.find((agent) => agent.role === 'Only in target')).toEqual(
      before.body.agents.find((agent) => agent.role === 'Only in target'),
    );

    // The updated agent kept its uuid and got a revision and an audit event of the request.
    expect(await revisionTotal(target, targetUuids.RETURNS!)).toBe(2);
    expect(await revisionTotal(target, targetUuids['Only in target']!)).toBe(1);
    const events = await admin.get<PageDto<AuditEventDto>>(userArea(target.orgUuid, `/audit-events?resourceUuid=${targetUuids.RETURNS}`));
    expect(events.body.content[0]).toMatchObject({ action: 'AGENT_UPDATED', requestId: expect.stringMatching(/^apply-/) });
  });

  test('applying a bundle a bot exported is a no-op: nothing changes, no revision is written', async () => {
    const exported = await exportOf(target);
    const revisions = await revisionTotal(target, targetUuids.RETURNS!);
    const applied = await apply(target, exported.body);
    expect(applied.status).toBe(200);
    expect(new Set(applied.body.changes.map((change) => change.action))).toEqual(new Set(['unchanged']));
    expect(`"${applied.body.version}"`).toBe(exported.headers.get('etag'));
    expect(await revisionTotal(target, targetUuids.RETURNS!)).toBe(revisions);
  });

  test('YAML in is YAML out: a YAML bundle plans as its JSON does', async () => {
    const yaml = (await exportOf(source, '', { accept: 'application/yaml' })).text;
    const planned = await plan(target, yaml, { 'content-type': 'application/yaml' });
    expect(planned.status).toBe(200);
    expect(planned.body.changes.filter((change) => change.action !== 'unchanged').map((change) => change.action)).toEqual(['untouched']);
  });

  test('a stale If-Match is a 409 and changes nothing', async () => {
    const bundle = (await exportOf(source)).body;
    const changed = { ...bundle, agents: bundle.agents.map((agent) => ({ ...agent, goal: `${agent.goal} (stale)` })) };
    const before = await exportOf(target);
    expectError(await apply(target, changed, { 'if-match': '"not-the-version"' }), 409, 'VERSION_CONFLICT');
    expect((await exportOf(target)).text).toBe(before.text);
  });

  test('Idempotency-Key: a repeated apply answers the first answer again', async () => {
    const bundle = (await exportOf(source)).body;
    const changed = { ...bundle, agents: bundle.agents.map((agent) => ({ ...agent, goal: `${agent.goal} (keyed)` })) };
    const key = `bundle-${unique()}`;
    const first = await apply(target, changed, { 'idempotency-key': key });
    const second = await apply(target, changed, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(first.body.changes.filter((change) => change.action === 'update')).toHaveLength(3);
  });

  test('?at= exports the configuration as it stood then; applying it rolls back', async () => {
    const then = new Date().toISOString();
    const before = await exportOf(target);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const bundle = before.body;
    await apply(target, { ...bundle, agents: bundle.agents.map((agent) => ({ ...agent, goal: `${agent.goal} (later)` })) });
    const past = await exportOf(target, `?at=${encodeURIComponent(then)}`);
    expect(past.headers.get('etag')).toBeNull();
    expect(past.text).toBe(before.text);
    expect((await apply(target, past.body)).status).toBe(200);
    expect((await exportOf(target)).text).toBe(before.text);
  });
});

test("the seeded bots of an organization take each other's bundles: Staging's support bot plans against Production's", async () => {
  const [production, staging] = stack().orgs[0]!.environments;
  const address = (env: typeof production) => ({ orgUuid: stack().orgs[0]!.uuid, envUuid: env!.uuid, botUuid: env!.bots[1]!.uuid }) as FreshBot;
  const bundle = (await exportOf(address(staging))).body;
  expect(bundle.agents.map((agent) => agent.role)).toEqual(expect.arrayContaining(['Order assistant', 'Product expert']));
  const planned = await plan(address(production), bundle);
  expect(planned.status).toBe(200);
  expect(planned.body.changes.find((change) => change.kind === 'supervisor')).toMatchObject({ action: 'update', role: 'Supervisor' });
});

describe('bundles the target cannot take', () => {
  let bot: FreshBot;
  let bundle: BundleDto;

  beforeAll(async () => {
    ({ bot } = await botWithAgents(['Alpha', 'Beta']));
    bundle = (await exportOf(bot)).body;
  });

  test('names the bot lacks are 422s, one detail per name with its path; nothing is written', async () => {
    const agents = bundle.agents.map((agent, i) => (i === 1 ? { ...agent, knowledge: [{ name: 'Nope' }], persona: { name: 'Nobody' } } : agent));
    for (const send of [plan, apply]) {
      const response = await send(bot, { ...bundle, agents });
      expectError(response, 422, 'VALIDATION_FAILED');
      expect(response.body).toMatchObject({
        details: [
          { fieldName: 'agents.1.persona.name', errorCode: 'FIELD_INVALID' },
          { fieldName: 'agents.1.knowledge.0.name', errorCode: 'FIELD_INVALID' },
        ],
      });
    }
  });

  test('two entries with one role (without case or accents) and unknown fields are 422s', async () => {
    const twice = { ...bundle, agents: [bundle.agents[0], { ...bundle.agents[1], role: 'ÁLPHA' }] };
    const duplicate = await plan(bot, twice);
    expectError(duplicate, 422, 'VALIDATION_FAILED');
    expect(duplicate.body).toMatchObject({ details: [{ fieldName: 'agents.1.role' }] });
    const unknown = await apply(bot, { ...bundle, agents: [{ ...bundle.agents[0], uuid: 'x' }] });
    expect(unknown.body).toMatchObject({ details: [{ fieldName: 'agents.0.uuid', errorCode: 'FIELD_UNKNOWN' }] });
  });

  test('unreadable text and unknown format versions are 400s; over 6 MB a 413', async () => {
    expectError(await plan(bot, '{"formatVersion": 1,'), 400, 'MALFORMED_BUNDLE');
    expectError(await plan(bot, 'agents: [unclosed', { 'content-type': 'application/yaml' }), 400, 'MALFORMED_BUNDLE');
    expectError(await apply(bot, { ...bundle, formatVersion: 2 }), 400, 'BUNDLE_FORMAT_UNKNOWN');
    expectError(await apply(bot, '[]'), 400, 'MALFORMED_BUNDLE');
    expectError(await plan(bot, JSON.stringify(bundle), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  // Aliases that would expand a few lines into millions of values are refused, not expanded.
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)];
  expectError(await plan(bot, `${bomb.join('\n')}\nformatVersion: 1\n`, { 'content-type': 'application/yaml' }), 400, 'MALFORMED_BUNDLE');
  const huge = await apply(bot, { ...bundle, padding: 'x'.repeat(6.5 * 1024 * 1024) });
    expect(huge.status).toBe(413);
  });

  test('while a bundle holds the bot, other writes of its agents and another apply wait (409)', async () => {
    const lease = keys.bundleLease(bot.botUuid);
    await putItem({ ...lease, type: 'BUNDLE_LEASE', leaseId: 'held-by-a-test', expiresAt: Date.now() + 60_000 });
    try {
      const agent = (await createAgent(bot, agentBody(bot)).catch((error: Error) => error)) as Error;
      expect(agent.message).toMatch(/409/);
      expectError(await apply(bot, bundle), 409, 'BUNDLE_IN_PROGRESS');
    } finally {
      await deleteItem({ Key: lease });
    }
  });
});

test('all or nothing: a transaction failing late undoes every change already written', async () => {
  const bot = await freshBot();
  const scope = operatorScope((await findBot(bot.botUuid))!);
  // 40 agents: three items each, so two transactions; the last role is written by the second.
  const roles = Array.from({ length: 40 }, (_, i) => `Agent ${String(i).padStart(2, '0')}`);
  const created = await Promise.all(
    roles.map((role) =>
      createAgentDirectly(scope, { role, goal: `Goal of ${role}`, persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false }),
    ),
  );
  const before = await exportOf(bot);
  const bundle = before.body;
  // A created agent too, sorted first: written by the first transaction, so the undo must delete it.
  const created0 = { ...bundle.agents[0]!, role: 'Aardvark desk' };
  const changed = { ...bundle, agents: [created0, ...bundle.agents.map((agent) => ({ ...agent, goal: `${agent.goal}, promoted` }))] };
  // A revision item already where the last agent's next revision goes: its write's condition fails.
  const last = created.find((view) => view.record.role === 'Agent 39')!.record;
  const stray = keys.agentRevision(bot.botUuid, last.uuid, last.version + 1);
  await putItem({ ...stray, type: 'AGENT_REVISION', revision: last.version + 1 });

  const first = created.find((view) => view.record.role === 'Agent 00')!.record;
  const requestId = `atomic-${unique()}`;
  expectError(await apply(bot, changed, { 'x-request-id': requestId }), 409, 'CONFLICT');

  expect((await exportOf(bot)).text).toBe(before.text);
  expect(await getItem(keys.agentRevision(bot.botUuid, first.uuid, first.version + 1))).toBeUndefined();
  const events = await admin.get<PageDto<AuditEventDto>>(userArea(bot.orgUuid, `/audit-events?resourceUuid=${first.uuid}`));
  expect(events.body.content.map((event) => event.requestId)).not.toContain(requestId);
  expect(await getItem(keys.bundleLease(bot.botUuid))).toBeUndefined();

  // Once the stray item is gone, the same bundle applies whole.
  await deleteItem({ Key: stray });
  const applied = await apply(bot, changed);
  expect(applied.status).toBe(200);
  expect(applied.body.changes.filter((change) => change.action === 'update')).toHaveLength(40);
  expect((await exportOf(bot)).body.agents).toEqual(changed.agents.sort((a, b) => a.role.localeCompare(b.role)));
});

describe('who may use bundles', () => {
  let bot: FreshBot;
  let bundle: BundleDto;

  beforeAll(async () => {
    ({ bot } = await botWithAgents(['Gamma']));
    bundle = (await exportOf(bot)).body;
  });

  test('a VIEWER of the bot exports and plans but may not apply; an EDITOR applies', async () => {
    const grant = [{ environmentUuid: bot.envUuid, botUuid: bot.botUuid }];
    const viewer = (await userWithGrants('VIEWER', grant)).api;
    expect((await viewer.get(bundleUrl(bot))).status).toBe(200);
    expect((await viewer.post(bundleUrl(bot, '/plan'), bundle)).status).toBe(200);
    expectError(await viewer.post(bundleUrl(bot, '/apply'), bundle), 403, 'FORBIDDEN');
    const editor = (await userWithGrants('EDITOR', grant)).api;
    expect((await editor.post(bundleUrl(bot, '/apply'), bundle)).status).toBe(200);
  });

  test("another organization's bot is a 404 for every bundle route", async () => {
    const other = adminApi(1);
    expect(stack().orgs[1]).toBeDefined();
    expectError(await other.get(bundleUrl(bot)), 404, 'NOT_FOUND');
    expectError(await other.post(bundleUrl(bot, '/plan'), bundle), 404, 'NOT_FOUND');
    expectError(await other.post(bundleUrl(bot, '/apply'), bundle), 404, 'NOT_FOUND');
  });
});
