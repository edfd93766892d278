import { keys } from '../../shared/adapters/store/keys';
import { queryPartition } from '../../shared/adapters/store/table';
import { adminApi, agentBody, agentsUrl, botUrl, createAgent, freshBot, type FreshBot, type PageDto } from '../support/bot-helpers';
import { expectError } from '../support/error-body';
import { stack, unique, userArea } from '../support/stack';
import type { AuditEventDto } from '../support/audit-helpers';

/**
 * Audit events of supervisors and agents: written in the transaction of the change,
 * read through `GET …/audit-events` as an incident responder would.
 */


const admin = adminApi();
const org = () => stack().orgs[0]!;
const eventsOf = async (query: string) => admin.get<PageDto<AuditEventDto>>(userArea(org().uuid, `/audit-events?${query}`));

let bot: FreshBot;

beforeAll(async () => {
  bot = await freshBot();
});

test('creating, updating and restoring an agent each record one event with actor, request id and the patch', async () => {
  const run = unique();
  const created = await admin.post(agentsUrl(bot), agentBody(bot), { 'x-request-id': `create-${run}` });
  expect(created.status).toBe(201);
  const agent = created.body;
  const url = agentsUrl(bot, `/${agent.uuid}`);
  const { uuid: _uuid, flowUUID: _flow, heirs: _heirs, ...rest } = agent;
  const updated = await admin.put(
    url,
    {
      ...rest,
      persona: { uuid: agent.persona!.uuid },
      functions: agent.functions.map(({ uuid }) => ({ uuid })),
      knowledge: agent.knowledge.map(({ uuid }) => ({ uuid })),
      goal: 'An audited goal',
    },
    { 'x-request-id': `update-${run}` },
  );
  expect(updated.status).toBe(200);
  const restored = await admin.post(`${url}/revisions/1/restore`, undefined, { 'x-request-id': `restore-${run}` });
  expect(restored.status).toBe(200);

  const page = await eventsOf(`resourceUuid=${agent.uuid}&linesPerPage=10`);

  expect(page.status).toBe(200);
  expect(page.body.totalElements).toBe(3);
  const [restore, update, create] = page.body.content;
  const actor = { uuid: expect.any(String), email: org().admin.email };
  expect(create).toMatchObject({ action: 'AGENT_CREATED', resource: { type: 'AGENT', uuid: agent.uuid }, requestId: `create-${run}`, actor });
  expect(create!.changes).toEqual([{ op: 'add', path: '', value: agent }]);
  expect(update).toMatchObject({ action: 'AGENT_UPDATED', requestId: `update-${run}`, actor });
  expect(update!.changes).toEqual([{ op: 'replace', path: '/goal', value: 'An audited goal' }]);
  expect(restore).toMatchObject({ action: 'AGENT_RESTORED', requestId: `restore-${run}`, actor });
  expect(restore!.changes).toEqual([{ op: 'replace', path: '/goal', value: agent.goal }]);
  expect(Date.parse(restore!.at)).toBeGreaterThanOrEqual(Date.parse(update!.at));
});

test('a supervisor update records SUPERVISOR_UPDATED; a refused or stale write records nothing', async () => {
  const fresh = await freshBot();
  const url = botUrl(fresh, `/supervisors/${fresh.supervisor!.uuid}`);
  const before = await admin.get(url);
  const updated = await admin.put(url, { persona: { uuid: fresh.personas[1]!.uuid } }, { 'if-match': before.headers.get('etag')! });
  expect(updated.status).toBe(200);
  expectError(await admin.put(url, { persona: { uuid: fresh.personas[0]!.uuid } }, { 'if-match': before.headers.get('etag')! }), 409, 'VERSION_CONFLICT');
  expect((await admin.put(url, { persona: { uuid: bot.personas[0]!.uuid } })).status).toBe(422);

  const page = await eventsOf(`resourceUuid=${fresh.supervisor!.uuid}&resourceType=SUPERVISOR`);

  // The operator's creation, then the one update that was written.
  expect(page.body.content.map((event) => [event.action, event.actor.email])).toEqual([
    ['SUPERVISOR_UPDATED', org().admin.email],
    ['SUPERVISOR_CREATED', null],
  ]);
  expect(page.body.content[0]!.changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/persona/uuid', value: fresh.personas[1]!.uuid })]));
});

test('each write is one transaction: as many events as revisions, under the organization', async () => {
  const fresh = await freshBot();
  const startedAt = new Date(Date.now() - 1_000).toISOString();
  const agent = (await createAgent(fresh, agentBody(fresh))).body;
  const writes = await Promise.all(
    Array.from({ length: 4 }, () => admin.post(agentsUrl(fresh, `/${agent.uuid}/revisions/1/restore`), undefined)),
  );
  expect(writes.every((write) => write.status === 200)).toBe(true);

  const events = (await queryPartition<AuditEventDto>(keys.auditEventsOf(fresh.orgUuid), { forward: true, after: startedAt })).filter(
    (event) => event.resource.uuid === agent.uuid,
  );
  const revisions = await admin.get<PageDto<{ revision: number }>>(agentsUrl(fresh, `/${agent.uuid}/revisions?size=100`));

  expect(revisions.body.totalElements).toBe(5);
  expect(events).toHaveLength(5);
  expect(events.filter((event) => event.action === 'AGENT_RESTORED')).toHaveLength(4);
});
