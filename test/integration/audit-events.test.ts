import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { config } from '../../shared/kernel/config';
import { keys } from '../../shared/adapters/store/keys';
import { userAuditWrites } from '../../shared/domain/users/user-audit.repository';
import { getUser, saveUser } from '../../shared/domain/users/user.repository';
import { TEST_PASSWORD } from '../support/auth-helpers';
import type { PageDto } from '../support/bot-helpers';
import { csvOf, rowFor, uploadCsv } from '../support/bulk-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { send, UUID } from '../support/http-client';
import { stack, tokenUrl, unique, userArea } from '../support/stack';
import { createBody, createViaApi, freshOrganization, member, uniqueEmail, type TestOrg } from '../support/user-helpers';
import { OTHER_PASSWORD, createRenameDelete, type AuditEventDto } from '../support/audit-helpers';

/**
 * Audit events of users, configuration entries, bulk jobs and sign-in lock-outs,
 * read through `GET …/audit-events` as an ADMIN investigating an incident would.
 */

type AuditPage = PageDto<AuditEventDto>;

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const eventsUrl = (target: TestOrg, query = '') => userArea(target.orgUuid, `/audit-events${query ? `?${query}` : ''}`);

async function eventsOf(query: string, target = org): Promise<AuditPage> {
  const response = await target.admin.api.get<AuditPage>(eventsUrl(target, query));
  expect(response.status).toBe(200);
  return response.body;
}

const rid = (tag: string) => `${tag}-${unique()}`;

test('each user change records one event: actor, the request id sent, and the patch of the user as the API shows it', async () => {
  const ids = { create: rid('create'), update: rid('update'), remove: rid('delete'), activate: rid('activate') };
  const user = await createRenameDelete(org, { name: 'Audited User', renamed: 'Audited Renamed' }, ids);
  const activated = await org.admin.api.put(org.url('/activate'), { email: user.email }, { 'x-request-id': ids.activate });
  expect(activated.status).toBe(200);

  const page = await eventsOf(`resourceUuid=${user.uuid}&linesPerPage=10`);

  const actor = { uuid: org.admin.uuid, email: org.admin.email };
  expect(page.totalElements).toBe(4);
  expect(page.content.map((event) => [event.action, event.requestId])).toEqual([
    ['USER_REACTIVATED', ids.activate],
    ['USER_DELETED', ids.remove],
    ['USER_UPDATED', ids.update],
    ['USER_CREATED', ids.create],
  ]);
  const [reactivated, deleted, update, create] = page.content;
  for (const event of page.content) {
    expect(event).toEqual({ id: expect.stringMatching(UUID), at: expect.any(String), actor, action: event.action, resource: { type: 'USER', uuid: user.uuid }, requestId: event.requestId, changes: expect.any(Array) });
  }
  expect(create!.changes).toEqual([
    { op: 'add', path: '', value: user },
    { op: 'add', path: '/password', value: '[REDACTED]' },
  ]);
  expect(update!.changes).toEqual([
    { op: 'replace', path: '/name', value: 'Audited Renamed' },
    { op: 'add', path: '/password', value: '[REDACTED]' },
  ]);
  expect(deleted!.changes).toEqual([{ op: 'replace', path: '/status', value: 'DELETED' }]);
  expect(reactivated!.changes).toEqual([{ op: 'replace', path: '/status', value: 'ACTIVE' }]);
  // No password, and no internal attribute of the stored user, ever appears.
  const text = JSON.stringify(page);
  for (const secret of [TEST_PASSWORD, OTHER_PASSWORD, 'countedStatus', 'updatedAt', 'PK', 'ttl', 'actorUuid']) expect(text).not.toContain(secret);
});

test('role and permission changes are USER_UPDATED with the patch of role, admin flag and permissions', async () => {
  const user = await createViaApi(org, { role: 'VIEWER' });
  const response = await org.admin.api.put(org.url(`/${user.uuid}`), { ...user, role: 'SUPERVISOR', permissions: [{ environmentUuid: org.envB }] });
  expect(response.status).toBe(200);

  const [event] = (await eventsOf(`resourceUuid=${user.uuid}&linesPerPage=1`)).content;

  expect(event).toMatchObject({ action: 'USER_UPDATED', requestId: expect.any(String) });
  expect(event!.changes).toEqual(
    expect.arrayContaining([
      { op: 'replace', path: '/role', value: 'SUPERVISOR' },
      { op: 'replace', path: '/permissions/0/environmentUuid', value: org.envB },
      { op: 'remove', path: '/permissions/0/botUuid' },
    ]),
  );
});

test('ADMIN only: 403 for another role of the organization, 404 for an ADMIN of another organization, 422 for a bad query', async () => {
  const viewer = await member(org, 'VIEWER');
  const supervisor = await member(org, 'SUPERVISOR');
  const other = await freshOrganization();

  expectError(await viewer.api.get(eventsUrl(org)), 403, 'FORBIDDEN');
  expectError(await supervisor.api.get(eventsUrl(org)), 403, 'FORBIDDEN');
  expectError(await other.admin.api.get(eventsUrl(org)), 404, 'NOT_FOUND');
  expect((await send(eventsUrl(org))).status).toBe(401);
  expectFieldErrors(await org.admin.api.get(eventsUrl(org, 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')), ['from']);
  expectFieldErrors(
    await org.admin.api.get(eventsUrl(org, 'resourceType=ROBOT&actor=someone&resourceUuid=1&from=yesterday&page=-1&linesPerPage=101')),
    ['actor', 'from', 'linesPerPage', 'page', 'resourceType', 'resourceUuid'],
  );
});

test('filters combine; pages are newest first with exact totals', async () => {
  const fresh = await freshOrganization();
  const before = new Date(Date.now() - 1).toISOString();
  const users = [];
  for (let i = 0; i < 3; i++) users.push(await createViaApi(fresh, { name: `Paged ${i}` }));
  const middle = new Date().toISOString();
  const renamed = await fresh.admin.api.put(fresh.url(`/${users[0]!.uuid}`), { ...users[0], name: 'Paged renamed' });
  expect(renamed.status).toBe(200);

  // The operator's creation of the ADMIN, three creations and an update.
  const all = await eventsOf('linesPerPage=2', fresh);
  expect(all).toMatchObject({ totalElements: 5, totalPages: 3, numberOfElements: 2, number: 0, size: 2, first: true, last: false });
  expect(all.content.map((event) => event.action)).toEqual(['USER_UPDATED', 'USER_CREATED']);
  const last = await eventsOf('linesPerPage=2&page=2', fresh);
  expect(last).toMatchObject({ totalElements: 5, numberOfElements: 1, number: 2, first: false, last: true });
  expect(last.content[0]).toMatchObject({ action: 'USER_CREATED', actor: { uuid: null, email: null }, resource: { uuid: fresh.admin.uuid } });
  const everything = await eventsOf('linesPerPage=100', fresh);
  const times = everything.content.map((event) => event.at);
  expect([...times].sort().reverse()).toEqual(times);
  expect((await eventsOf('page=9', fresh)).content).toEqual([]);

  expect((await eventsOf(`actor=${fresh.admin.uuid}`, fresh)).totalElements).toBe(4);
  expect((await eventsOf(`actor=${fresh.admin.uuid}&resourceUuid=${users[0]!.uuid}`, fresh)).totalElements).toBe(2);
  expect((await eventsOf(`resourceType=USER&resourceUuid=${users[1]!.uuid}`, fresh)).totalElements).toBe(1);
  expect((await eventsOf('resourceType=BULK_JOB', fresh)).totalElements).toBe(0);
  expect((await eventsOf(`from=${before}`, fresh)).totalElements).toBe(4);
  const range = await eventsOf(`from=${before}&to=${middle}`, fresh);
  expect(range.content.map((event) => event.resource.uuid).sort()).toEqual(users.map((user) => user.uuid).sort());
  expect((await eventsOf(`to=${encodeURIComponent(before.replace('Z', '+00:00'))}`, fresh)).totalElements).toBe(1);
  expect((await eventsOf(`from=${before}&to=${middle}&actor=${fresh.admin.uuid}&resourceUuid=${users[2]!.uuid}&resourceType=USER`, fresh)).totalElements).toBe(1);
});

test('a change that fails leaves no event: a duplicate e-mail (created or changed to), a stale write', async () => {
  const fresh = await freshOrganization();
  const user = await createViaApi(fresh);
  const total = (await eventsOf('', fresh)).totalElements;

  expectError(await fresh.admin.api.post(fresh.url(), createBody(fresh, { email: user.email })), 409, 'EMAIL_TAKEN');
  expectError(await fresh.admin.api.put(fresh.url(`/${user.uuid}`), { ...user, email: fresh.admin.email }), 409, 'EMAIL_TAKEN');
  // A write conditioned on a version of the user that is no longer the current one.
  const seen = (await getUser(fresh.orgUuid, user.uuid))!;
  const stale = { ...seen, updatedAt: '2000-01-01T00:00:00.000Z' };
  const next = { ...seen, name: 'Never written', updatedAt: new Date().toISOString() };
  expect(await saveUser(next, stale, { alongside: userAuditWrites('USER_UPDATED', seen, next) })).toBe(false);

  expect((await eventsOf('', fresh)).totalElements).toBe(total);
});

test('a bulk import is attributed to its author and the upload\'s request id, job start and finish included', async () => {
  const requestId = rid('bulk');
  const emails = [uniqueEmail('bulk-a'), uniqueEmail('bulk-b')];
  const csv = csvOf([rowFor(org, 'VIEWER', emails[0]!), rowFor(org, 'EDITOR', emails[1]!, { Password: 'short' })]);
  const response = await uploadCsv(org, csv, { headers: { 'x-request-id': requestId } });
  expect(response.status).toBe(200);
  const jobId = /\/bulk-jobs\/([0-9a-f-]{36})$/.exec(response.headers.get('location') ?? '')![1]!;

  const events = (await eventsOf('linesPerPage=100')).content.filter((event) => event.requestId === requestId);

  const actor = { uuid: org.admin.uuid, email: org.admin.email };
  expect(events.map((event) => event.action)).toEqual(['BULK_JOB_FINISHED', 'USER_CREATED', 'BULK_JOB_STARTED']);
  expect(events.every((event) => event.actor.uuid === actor.uuid && event.actor.email === actor.email)).toBe(true);
  const [finished, created, started] = events;
  expect(started).toMatchObject({ resource: { type: 'BULK_JOB', uuid: jobId } });
  expect(started!.changes).toEqual([{ op: 'add', path: '', value: { status: 'queued', dryRun: false, language: 'en' } }]);
  expect(created).toMatchObject({ resource: { type: 'USER' }, changes: [{ op: 'add', path: '', value: { email: emails[0], role: 'VIEWER' } }] });
  // The file gave no password: the generated one is nobody's choice, so no /password.
  expect(created!.changes).toHaveLength(1);
  expect(finished).toMatchObject({ resource: { type: 'BULK_JOB', uuid: jobId } });
  expect(finished!.changes).toEqual([
    { op: 'replace', path: '/status', value: 'done' },
    { op: 'add', path: '/counts', value: { rows: 2, created: 1, failed: 1 } },
  ]);
});

test('bulk permission changes and bulk deletion record USER_UPDATED and USER_DELETED in their request', async () => {
  const user = await createViaApi(org, { role: 'VIEWER' });
  const revokeId = rid('revoke');
  const deleteId = rid('bulk-delete');
  const revoke = await send(org.url('/bulk-permissions'), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/json', 'x-request-id': revokeId },
    body: JSON.stringify([{ email: user.email, environmentUuid: org.envA, bot: org.botA1 }]),
  });
  expect(revoke.status).toBe(200);
  const remove = await send(org.url('/bulk-delete'), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/json', 'x-request-id': deleteId },
    body: JSON.stringify([user.email]),
  });
  expect(remove.status).toBe(200);

  const page = await eventsOf(`resourceUuid=${user.uuid}`);

  expect(page.content.map((event) => [event.action, event.requestId])).toEqual([
    ['USER_DELETED', deleteId],
    ['USER_UPDATED', revokeId],
    ['USER_CREATED', expect.any(String)],
  ]);
  expect(page.content[1]!.changes).toEqual([{ op: 'remove', path: '/permissions/0' }]);
});

test('a configuration save records CONFIGURATION_SAVED under its user: the entry and that the value changed, never the value', async () => {
  const user = await member(org, 'EDITOR');
  const url = userArea(org.orgUuid, '/configurations');
  const first = await user.api.post<{ id: number }>(url, { key: 'apiToken', value: 'first-secret-value' }, { 'x-request-id': rid('conf') });
  expect(first.status).toBe(200);
  expect((await user.api.post(url, { key: 'apiToken', value: 'second-secret-value', botUUID: org.botA1 })).status).toBe(200);
  const changeId = rid('conf-change');
  expect((await user.api.post(url, { key: 'apiToken', value: 'third-secret-value' }, { 'x-request-id': changeId })).status).toBe(200);
  expect((await user.api.post(url, { key: 'apiToken', value: 'third-secret-value' })).status).toBe(200);

  const page = await eventsOf(`resourceType=CONFIGURATION&resourceUuid=${user.uuid}`);

  expect(page.totalElements).toBe(4);
  const [unchanged, changed, ofBot, created] = page.content;
  const actor = { uuid: user.uuid, email: user.email };
  expect(created).toMatchObject({ action: 'CONFIGURATION_SAVED', actor, resource: { type: 'CONFIGURATION', uuid: user.uuid } });
  expect(created!.changes).toEqual([
    { op: 'add', path: '', value: { id: first.body.id, key: 'apiToken', botUuid: null } },
    { op: 'add', path: '/value', value: '[REDACTED]' },
  ]);
  expect(ofBot!.changes).toEqual([
    { op: 'add', path: '', value: { id: expect.any(Number), key: 'apiToken', botUuid: org.botA1 } },
    { op: 'add', path: '/value', value: '[REDACTED]' },
  ]);
  expect(changed).toMatchObject({ requestId: changeId, actor });
  expect(changed!.changes).toEqual([
    { op: 'test', path: '/id', value: first.body.id },
    { op: 'test', path: '/key', value: 'apiToken' },
    { op: 'test', path: '/botUuid', value: null },
    { op: 'replace', path: '/value', value: '[REDACTED]' },
  ]);
  // Saved with the value it had: the entry is named, no value op.
  expect(unchanged!.changes).toHaveLength(3);
  expect(JSON.stringify(page)).not.toMatch(/secret-value/);
});

test('five bad passwords on the token endpoint lock the user: one USER_LOCKED_OUT, the user as actor, the request id of the fifth', async () => {
  const user = await member(org, 'VIEWER');
  const requestIds = Array.from({ length: 6 }, (_, i) => rid(`sign-in-${i}`));
  for (const requestId of requestIds) {
    const response = await fetch(tokenUrl(org.realm), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
      body: new URLSearchParams({ grant_type: 'password', client_id: stack().clientId, username: user.email, password: 'Wrong-passw0rd' }).toString(),
    });
    expect(response.status).toBe(400);
  }

  const page = await eventsOf(`resourceUuid=${user.uuid}&actor=${user.uuid}`);

  expect(page.totalElements).toBe(1);
  const [event] = page.content;
  expect(event).toMatchObject({ action: 'USER_LOCKED_OUT', actor: { uuid: user.uuid, email: user.email }, requestId: requestIds[4], resource: { type: 'USER', uuid: user.uuid } });
  expect(event!.changes).toEqual([
    { op: 'add', path: '/lockedUntil', value: expect.any(String) },
    { op: 'add', path: '/numFailures', value: 5 },
  ]);
  const lockedFor = Date.parse(event!.changes![0]!.value as string) - Date.parse(event!.at);
  expect(lockedFor).toBeGreaterThan(58_000);
  expect(lockedFor).toBeLessThanOrEqual(60_000);
});

test('an ADMIN clearing a lock records USER_UNLOCKED with what was cleared; clearing nothing records nothing', async () => {
  const user = await member(org, 'VIEWER');
  for (let i = 0; i < 5; i++) {
    const response = await fetch(tokenUrl(org.realm), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: stack().clientId, username: user.email, password: 'Wrong-passw0rd' }).toString(),
    });
    expect(response.status).toBe(400);
  }
  const lockUrl = userArea(org.orgUuid, `/attack-detection/brute-force/users/${user.uuid}`);
  const requestId = rid('unlock');

  expect((await org.admin.api.delete(lockUrl, { 'x-request-id': requestId })).status).toBe(204);
  expect((await org.admin.api.delete(lockUrl)).status).toBe(204);

  const page = await eventsOf(`resourceUuid=${user.uuid}`);
  expect(page.content.map((event) => event.action)).toEqual(['USER_UNLOCKED', 'USER_LOCKED_OUT', 'USER_CREATED']);
  const [unlocked] = page.content;
  expect(unlocked).toMatchObject({ actor: { uuid: org.admin.uuid, email: org.admin.email }, requestId, resource: { type: 'USER', uuid: user.uuid } });
  expect(unlocked!.changes).toEqual([
    { op: 'replace', path: '/lockedUntil', value: null },
    { op: 'replace', path: '/numFailures', value: 0 },
  ]);
});

test('retention: an event expires (TTL) 400 days after it happened, by default', async () => {
  const user = await createViaApi(org);
  const [event] = (await eventsOf(`resourceUuid=${user.uuid}`)).content;

  const { Item } = await documentClient().send(new GetCommand({ TableName: config().tableName, Key: keys.auditEvent(org.orgUuid, event!.at, event!.id) }));

  expect(Item).toMatchObject({ actorUuid: org.admin.uuid, resourceType: 'USER', resourceUuid: user.uuid });
  expect(Item!.ttl).toBe(Math.floor(Date.parse(event!.at) / 1000) + 400 * 86_400);
});
