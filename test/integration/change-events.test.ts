import { DEFAULT_EVENT_TYPE_PREFIX } from '../../shared/kernel/config';
import { OTHER_PASSWORD, createRenameDelete, type AuditEventDto } from '../support/audit-helpers';
import { adminApi, agentBody, agentsUrl, botUrl, freshBot, type PageDto } from '../support/bot-helpers';
import { csvOf, rowFor, uploadCsv } from '../support/bulk-helpers';
import { eventsWhen, ofOrg, ofRequest, receivedEvents, type ReceivedChange } from '../support/change-events-helpers';
import { expectError } from '../support/error-body';
import { UUID } from '../support/http-client';
import { stack, unique, userArea } from '../support/stack';
import { eventually, startReceiver } from '../support/webhook-receiver';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { createBody, freshOrganization, member, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * Change events: each committed change's audit event, read from the table's stream by the `events`
 * function and put on the (local) EventBridge bus as one CloudEvent; nothing for a refused write.
 */

const type = (short: string) => `${DEFAULT_EVENT_TYPE_PREFIX}.${short}`;
const rid = (tag: string) => `${tag}-${unique()}`;

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

/** The one event of a request: exactly one arrives, and no second one after it. */
async function onlyEventOf(requestId: string): Promise<ReceivedChange> {
  const events = await eventsWhen(ofRequest(requestId), 1);
  expect(events).toHaveLength(1);
  return events[0]!;
}

test('a user created, updated and deleted: one event each, CloudEvents 1.0, with the audit event id, actor, request id and patch; no password', async () => {
  const ids = { create: rid('create'), update: rid('update'), remove: rid('delete') };
  const user = await createRenameDelete(org, { name: 'Evented User', renamed: 'Evented Renamed' }, ids);

  const create = await onlyEventOf(ids.create);
  const update = await onlyEventOf(ids.update);
  const remove = await onlyEventOf(ids.remove);

  const actor = { uuid: org.admin.uuid, email: org.admin.email };
  expect(create).toMatchObject({ source: DEFAULT_EVENT_TYPE_PREFIX, detailType: type('user.created') });
  expect(create.detail).toEqual({
    specversion: '1.0',
    id: expect.stringMatching(UUID),
    source: `/org/${org.orgUuid}`,
    type: type('user.created'),
    subject: `users/${user.uuid}`,
    time: expect.any(String),
    datacontenttype: 'application/json',
    sequence: expect.any(String),
    data: {
      resource: { type: 'USER', uuid: user.uuid },
      actor,
      requestId: ids.create,
      changes: [
        { op: 'add', path: '', value: user },
        { op: 'add', path: '/password', value: '[REDACTED]' },
      ],
    },
  });
  expect(update.detail).toMatchObject({ type: type('user.updated'), subject: `users/${user.uuid}` });
  expect(update.detail.data.changes).toEqual([
    { op: 'replace', path: '/name', value: 'Evented Renamed' },
    { op: 'add', path: '/password', value: '[REDACTED]' },
  ]);
  expect(remove.detail).toMatchObject({ type: type('user.deleted'), data: { changes: [{ op: 'replace', path: '/status', value: 'DELETED' }] } });
  // One resource's events order by their sequence, as they happened.
  const sequences = [create, update, remove].map((event) => event.detail.sequence);
  expect([...sequences].sort()).toEqual(sequences);
  for (const text of [JSON.stringify([create, update, remove])]) {
    for (const secret of [TEST_PASSWORD, OTHER_PASSWORD, 'countedStatus', 'actorUuid', '"PK"', 'ttl']) expect(text).not.toContain(secret);
  }

  // The event's id is its audit event's: the same change, whichever way it is read.
  const audit = await org.admin.api.get<PageDto<AuditEventDto>>(userArea(org.orgUuid, `/audit-events?resourceUuid=${user.uuid}`));
  expect(audit.body.content.map((event) => event.id).sort()).toEqual([create, update, remove].map((event) => event.detail.id).sort());
});

test('an agent update is agent.updated under its bot with the patch from the previous revision; a supervisor update is supervisor.updated', async () => {
  const admin = adminApi();
  const bot = await freshBot();
  const created = await admin.post(agentsUrl(bot), agentBody(bot));
  expect(created.status).toBe(201);
  const agent = created.body;
  const { uuid: _uuid, flowUUID: _flow, heirs: _heirs, ...rest } = agent;
  const updateId = rid('agent-update');
  const updated = await admin.put(
    agentsUrl(bot, `/${agent.uuid}`),
    { ...rest, persona: { uuid: agent.persona!.uuid }, functions: agent.functions.map(({ uuid }) => ({ uuid })), knowledge: agent.knowledge.map(({ uuid }) => ({ uuid })), goal: 'An evented goal' },
    { 'x-request-id': updateId },
  );
  expect(updated.status).toBe(200);
  const supervisorUrl = botUrl(bot, `/supervisors/${bot.supervisor!.uuid}`);
  const supervisorId = rid('supervisor-update');
  expect((await admin.put(supervisorUrl, { persona: { uuid: bot.personas[1]!.uuid } }, { 'x-request-id': supervisorId })).status).toBe(200);

  const agentEvent = await onlyEventOf(updateId);
  const supervisorEvent = await onlyEventOf(supervisorId);

  expect(agentEvent.detail).toMatchObject({
    type: type('agent.updated'),
    source: `/org/${bot.orgUuid}`,
    subject: `env/${bot.envUuid}/bot/${bot.botUuid}/agents/${agent.uuid}`,
    data: {
      resource: { type: 'AGENT', uuid: agent.uuid },
      environmentUuid: bot.envUuid,
      botUuid: bot.botUuid,
      requestId: updateId,
      changes: [{ op: 'replace', path: '/goal', value: 'An evented goal' }],
    },
  });
  expect(supervisorEvent.detail).toMatchObject({
    type: type('supervisor.updated'),
    subject: `env/${bot.envUuid}/bot/${bot.botUuid}/supervisors/${bot.supervisor!.uuid}`,
    data: { resource: { type: 'SUPERVISOR', uuid: bot.supervisor!.uuid } },
  });
  expect(supervisorEvent.detail.data.changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/persona/uuid', value: bot.personas[1]!.uuid })]));
});

test('a configuration save is configuration.saved under its user, naming the entry and never its value', async () => {
  const user = await member(org, 'EDITOR');
  const saveId = rid('conf');
  const saved = await user.api.post(userArea(org.orgUuid, '/configurations'), { key: 'apiToken', value: 'evented-secret-value' }, { 'x-request-id': saveId });
  expect(saved.status).toBe(200);

  const event = await onlyEventOf(saveId);

  expect(event.detail).toMatchObject({
    type: type('configuration.saved'),
    subject: `users/${user.uuid}/configurations`,
    data: { resource: { type: 'CONFIGURATION', uuid: user.uuid }, actor: { uuid: user.uuid, email: user.email } },
  });
  expect(event.detail.data.changes).toEqual([
    { op: 'add', path: '', value: { id: expect.any(Number), key: 'apiToken', botUuid: null } },
    { op: 'add', path: '/value', value: '[REDACTED]' },
  ]);
  expect(JSON.stringify(event)).not.toContain('evented-secret-value');
});

test('a bulk import: bulk.job.started, the user created, then bulk.job.completed with its counts, all in the upload\'s request', async () => {
  const requestId = rid('bulk');
  const response = await uploadCsv(org, csvOf([rowFor(org, 'VIEWER', uniqueEmail('evented-bulk'))]), { headers: { 'x-request-id': requestId } });
  expect(response.status).toBe(200);
  const jobId = /\/bulk-jobs\/([0-9a-f-]{36})$/.exec(response.headers.get('location') ?? '')![1]!;

  const events = await eventsWhen(ofRequest(requestId), 3);

  expect(events.map((event) => event.detail.type).sort()).toEqual([type('bulk.job.completed'), type('bulk.job.started'), type('user.created')]);
  const completed = events.find((event) => event.detail.type === type('bulk.job.completed'))!;
  expect(completed.detail).toMatchObject({
    subject: `users/bulk-jobs/${jobId}`,
    data: { resource: { type: 'BULK_JOB', uuid: jobId }, changes: [{ op: 'replace', path: '/status', value: 'done' }, { op: 'add', path: '/counts', value: { rows: 1, created: 1, failed: 0 } }] },
  });
});

test('a refused write publishes nothing: a duplicate e-mail, a stale version', async () => {
  const fresh = await freshOrganization();
  const existing = await fresh.admin.api.post(fresh.url(), createBody(fresh));
  expect(existing.status).toBe(200);
  await eventsWhen(ofOrg(fresh.orgUuid), 2);
  const duplicate = rid('duplicate');
  expectError(await fresh.admin.api.post(fresh.url(), createBody(fresh, { email: existing.body.email }), { 'x-request-id': duplicate }), 409, 'EMAIL_TAKEN');
  // A change committed after the refused one: once its event is out, the refused one would have been too.
  const after = rid('after');
  expect((await fresh.admin.api.put(fresh.url(`/${existing.body.uuid}`), { ...existing.body, name: 'After' }, { 'x-request-id': after })).status).toBe(200);

  await onlyEventOf(after);

  expect((await receivedEvents()).filter(ofRequest(duplicate))).toEqual([]);
  // The operator's creation of the ADMIN, the user, the update: nothing else for this organization.
  expect((await receivedEvents()).filter(ofOrg(fresh.orgUuid)).map((event) => event.detail.type)).toEqual([type('user.created'), type('user.created'), type('user.updated')]);
});

test('a crash of the publisher function part-way through a batch loses no change; a change sent twice keeps its event id and webhook-id', async () => {
  const crashed = await freshOrganization();
  // The receiver's first delivery is read and then its connection dropped: the sweep sends it again.
  const hook = await startReceiver((index) => (index === 0 ? 'drop' : 204));
  try {
    const created = await crashed.admin.api.post(userArea(crashed.orgUuid, '/webhooks'), { url: hook.url, eventTypes: ['user.created', 'bulk.job.completed'], enabled: true });
    expect(created.status).toBe(201);
    // The organization's earlier changes are out (one shard, in order), so the fault meets the import's.
    expect(await eventsWhen((event) => ofOrg(crashed.orgUuid)(event) && event.detail.type === type('webhook.created'), 1, { settleMs: 0 })).toHaveLength(1);
    // The bus keeps this organization's next calls past its first two entries and never answers
    // them, three times (each of the SDK's attempts): the function's invocation fails after its
    // events went out, and the stream's poller hands the batch (split in halves) to it again.
    const source = `/org/${crashed.orgUuid}`;
    const faults = new URL('/faults', stack().eventsUrl);
    expect((await fetch(faults, { method: 'POST', body: JSON.stringify({ source, acceptEntries: 2, cutCalls: 3 }) })).status).toBe(201);
    const requestId = rid('crash');
    const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`crash-${i}`));
    const upload = await uploadCsv(crashed, csvOf(emails.map((email) => rowFor(crashed, 'VIEWER', email))), { headers: { 'x-request-id': requestId } });
    expect(upload.status).toBe(200);

    // Every change of the import reaches the bus: the job started, each user, the job completed.
    const distinct = async () => new Map((await receivedEvents()).filter(ofRequest(requestId)).map((event) => [event.detail.id, event]));
    await eventually(async () => (await distinct()).size >= 14, 'every change of the import on the bus', 60_000);
    const armed = (await (await fetch(faults)).json()) as { faults: { source: string; cutCalls: number }[] };
    expect(armed.faults.find((fault) => fault.source === source)?.cutCalls).toBe(0);
    const onBus = (await receivedEvents()).filter(ofRequest(requestId));
    const byId = await distinct();
    expect([...byId.values()].map((event) => event.detail.type).sort()).toEqual(
      [type('bulk.job.completed'), type('bulk.job.started'), ...emails.map(() => type('user.created'))].sort(),
    );
    // The crash sent some events more than once, each time the same CloudEvent, id and all.
    expect(onBus.length).toBeGreaterThan(byId.size);
    for (const event of onBus) expect(event.detail).toEqual(byId.get(event.detail.id)!.detail);

    // Every wanted change reaches the subscription; a delivery seen twice has the same webhook-id and body.
    const wanted = [...byId.values()].filter((event) => event.detail.type !== type('bulk.job.started')).map((event) => event.detail.id);
    const deliveredIds = () => new Set(hook.received.map((delivery) => delivery.headers['webhook-id']));
    // The dropped delivery is recorded when read, so its retry is the delivery past the wanted count.
    await eventually(() => wanted.every((id) => deliveredIds().has(id)) && hook.received.length > wanted.length, 'every wanted change at the receiver, the dropped one twice', 60_000);
    expect([...deliveredIds()].sort()).toEqual([...wanted].sort());
    expect(hook.received.filter((delivery) => delivery.headers['webhook-id'] === hook.received[0]!.headers['webhook-id']).length).toBeGreaterThan(1);
    for (const delivery of hook.received) {
      const event = JSON.parse(delivery.body) as { id: string };
      expect(delivery.headers['webhook-id']).toBe(event.id);
      expect(event).toEqual(byId.get(event.id)!.detail);
    }
  } finally {
    await hook.close();
  }
});
