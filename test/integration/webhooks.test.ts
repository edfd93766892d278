import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { pingEvent } from '../../shared/domain/audit/cloud-event';
import { DEFAULT_EVENT_TYPE_PREFIX } from '../../shared/kernel/config';
import { ValidationError } from '../../shared/kernel/errors';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { getUser } from '../../shared/domain/users/user.repository';
import type { OrgScope } from '../../shared/domain/users/org-scope';
import { attemptDelivery } from '../../shared/app/webhooks/delivery-engine';
import { CONNECTION_FAILED } from '../../shared/adapters/http/outbound-http';
import { newDelivery } from '../../shared/domain/webhooks/delivery-schedule';
import { reserveBacklog } from '../../shared/domain/webhooks/webhook-backlog.repository';
import { enqueueDelivery, getDelivery, getWebhook, rescheduleDelivery } from '../../shared/domain/webhooks/webhook.repository';
import { createWebhook, deleteWebhook, listDeliveryAttempts, readWebhook, redeliver, rotateSecret, sendPing } from '../../shared/app/webhooks/webhook.service';
import type { WebhookBody } from '../../shared/domain/webhooks/webhook.schemas';
import type { AuditEventDto } from '../support/audit-helpers';
import { eventsWhen, ofOrg } from '../support/change-events-helpers';
import { expectFieldErrors } from '../support/error-body';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';
import { createViaApi, freshOrganization, member, type TestOrg } from '../support/user-helpers';
import { userArea } from '../support/stack';

/**
 * Webhook deliveries through the real path: a change committed through the API, its audit event read
 * from the table's stream by the `publisher` function, scheduled for each subscription and sent by the
 * sweep over HTTP to a receiver on 127.0.0.1, signed as Standard Webhooks specifies.
 */

const type = (short: string) => `${DEFAULT_EVENT_TYPE_PREFIX}.${short}`;
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function adminScope(org: TestOrg): Promise<OrgScope> {
  return { orgUuid: org.orgUuid, caller: (await getUser(org.orgUuid, org.admin.uuid))!, isAdmin: true };
}

const body = (url: string, overrides: Partial<WebhookBody> = {}): WebhookBody => ({ url, eventTypes: ['user.updated'], enabled: true, excludeActors: [], ...overrides });

async function rename(org: TestOrg, user: { uuid: string }, name: string, as = org.admin): Promise<void> {
  const current = await as.api.get(org.url(`/${user.uuid}`));
  const response = await as.api.put(org.url(`/${user.uuid}`), { ...current.body, name });
  expect(response.status).toBe(200);
}

let org: TestOrg;
let scope: OrgScope;
beforeAll(async () => {
  org = await freshOrganization();
  scope = await adminScope(org);
});

test('a change reaches the subscription signed: standardwebhooks verifies it with the secret shown at creation, webhook-id is the event id', async () => {
  const hook = await receiver();
  const { secret } = await createWebhook(scope, body(hook.url));
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const user = await createViaApi(org);

  await rename(org, user, 'Signed Rename');
  await eventually(() => hook.received.length >= 1, 'the delivery');

  const [delivery] = hook.received;
  const verified = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as Record<string, unknown>;
  expect(verified).toMatchObject({ specversion: '1.0', type: type('user.updated'), subject: `users/${user.uuid}` });
  expect(delivery!.headers['webhook-id']).toBe(verified.id);
  expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery!.body, delivery!.headers as Record<string, string>)).toThrow();
  // Only the types asked for: the user's creation was not sent.
  expect(hook.events().map((event) => event.type)).toEqual([type('user.updated')]);
});

test('one resource\'s events reach a subscription in order, even when the receiver is slow', async () => {
  const hook = await receiver(() => 204, { delayMs: 300 });
  await createWebhook(scope, body(hook.url));
  const user = await createViaApi(org);

  for (let i = 1; i <= 4; i++) await rename(org, user, `Ordered ${i}`);
  await eventually(() => hook.received.length >= 4, 'four deliveries');

  const names = hook.events('user.updated').map((event) => ((event.data as { changes: { value: string }[] }).changes[0]!.value));
  expect(names).toEqual(['Ordered 1', 'Ordered 2', 'Ordered 3', 'Ordered 4']);
});

test('a failing receiver is retried with growing delays until it answers 2xx; every attempt is listed', async () => {
  const hook = await receiver((index) => (index < 2 ? 503 : 200));
  const { webhook } = await createWebhook(scope, body(hook.url));
  const user = await createViaApi(org);

  await rename(org, user, 'Retried');
  await eventually(() => hook.received.length >= 3, 'the third attempt', 30_000);

  const ids = new Set(hook.received.map((entry) => entry.headers['webhook-id']));
  expect(ids.size).toBe(1);
  const gaps = [hook.received[1]!.at - hook.received[0]!.at, hook.received[2]!.at - hook.received[1]!.at];
  // The local stack's first retry waits 1 s ±10 %, the second 2 s ±10 %; a loaded machine only adds to either.
  expect(gaps[0]!).toBeGreaterThanOrEqual(900);
  expect(gaps[1]!).toBeGreaterThanOrEqual(1_800);
  await eventually(async () => (await listDeliveryAttempts(scope, webhook.id, 10)).length >= 3, 'the attempts listed');
  const attempts = await listDeliveryAttempts(scope, webhook.id, 10);
  expect(attempts.map((attempt) => [attempt.attempt, attempt.ok, attempt.httpStatus])).toEqual([
    [3, true, 200],
    [2, false, 503],
    [1, false, 503],
  ]);
  // What the receiver answered ("thanks") is not kept: only its status.
  expect(JSON.stringify(attempts)).not.toContain('thanks');
  expect(attempts[0]).not.toHaveProperty('answer');
});

test('a delivery read as due before it was rescheduled is not sent before its new time', async () => {
  const hook = await receiver();
  const { webhook } = await createWebhook(scope, body(hook.url));
  const event = pingEvent(org.orgUuid, webhook.id, randomUUID(), { uuid: null, email: null }, null);
  const due = newDelivery(webhook, event, 'ping', randomUUID());
  await reserveBacklog(org.orgUuid, webhook.id, 1, due.createdAt);
  await enqueueDelivery(due);
  // Retried meanwhile by another sweep: due in an hour; this sweep still holds what it read before.
  await rescheduleDelivery(due, new Date(Date.now() + 3_600_000).toISOString());

  await attemptDelivery(due);

  expect(hook.received).toEqual([]);
  expect(await getDelivery(org.orgUuid, webhook.id, due.id)).toMatchObject({ status: 'pending', attempts: 0 });
  await deleteWebhook(scope, webhook.id);
});

test('echo filter: changes made by an excluded user are not delivered, others are', async () => {
  const hook = await receiver();
  await createWebhook(scope, body(hook.url, { excludeActors: [org.admin.uuid] }));
  const other = await member(org, 'ADMIN');
  const user = await createViaApi(org);

  await rename(org, user, 'By the integration');
  await rename(org, user, 'By someone else', other);
  await eventually(() => hook.received.length >= 1, 'the other ADMIN\'s change');
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  expect(hook.events().map((event) => (event.data as { actor: { uuid: string } }).actor.uuid)).toEqual([other.uuid]);
});

test('rotation: the new secret is shown once, and both sign for the overlap; a redelivery keeps the webhook-id; a ping is webhook.ping', async () => {
  const hook = await receiver();
  const { webhook, secret: first } = await createWebhook(scope, body(hook.url));
  const { secret: second, webhook: rotated } = await rotateSecret(scope, webhook.id);
  expect(second).not.toBe(first);
  expect(rotated.secrets).toHaveLength(2);
  const user = await createViaApi(org);

  await rename(org, user, 'After rotation');
  await eventually(() => hook.received.length >= 1, 'the delivery');
  const [delivery] = hook.received;
  for (const secret of [first, second]) expect(() => new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).not.toThrow();

  await eventually(async () => (await listDeliveryAttempts(scope, webhook.id, 5)).some((attempt) => attempt.ok), 'the attempt listed');
  const [attempt] = await listDeliveryAttempts(scope, webhook.id, 5);
  await redeliver(scope, webhook.id, attempt!.deliveryId);
  await sendPing(scope, webhook.id);
  await eventually(() => hook.received.length >= 3, 'the redelivery and the ping');
  expect(hook.received.filter((entry) => entry.headers['webhook-id'] === delivery!.headers['webhook-id'])).toHaveLength(2);
  expect(hook.events('webhook.ping')).toHaveLength(1);
});

test('a subscription failing for 24 hours is disabled, and says why', async () => {
  const hook = await receiver(() => 500);
  const { webhook } = await createWebhook(scope, body(hook.url));
  // As if every attempt had failed since yesterday.
  await updateItem({ Key: keys.webhook(org.orgUuid, webhook.id), UpdateExpression: 'SET failingSince = :then', ExpressionAttributeValues: { ':then': new Date(Date.now() - 25 * 3600_000).toISOString() } });
  const user = await createViaApi(org);

  await rename(org, user, 'Never delivered');
  await eventually(async () => !(await readWebhook(scope, webhook.id)).enabled, 'the subscription disabled');

  const disabled = await readWebhook(scope, webhook.id);
  expect(disabled.disabledReason).toMatch(/every delivery failed since .*The receiver answered 500/);
});

test('a receiver that hangs holds up neither another subscription nor another organization', async () => {
  const hanging = await receiver(() => 'hang');
  const prompt = await receiver();
  await createWebhook(scope, body(hanging.url));
  const other = await freshOrganization();
  await createWebhook(await adminScope(other), body(prompt.url));
  const [mine, theirs] = await Promise.all([createViaApi(org), createViaApi(other)]);

  await rename(org, mine, 'Hanging');
  await eventually(() => hanging.received.length >= 1, 'the hanging delivery');
  const started = Date.now();
  await rename(other, theirs, 'Prompt');
  await eventually(() => prompt.received.length >= 1, 'the other organization\'s delivery', 8_000);

  expect(Date.now() - started).toBeLessThan(8_000);
});

test('refused URLs: not https, private, loopback, link-local (metadata), unresolvable, with credentials; and the same check at delivery', async () => {
  const refusals: [string, RegExp][] = [
    ['http://example.com/hook', /must be https/],
    ['https://10.1.2.3/hook', /private, loopback, link-local or reserved/],
    ['https://169.254.169.254/latest/meta-data', /private, loopback, link-local or reserved/],
    ['https://[::1]/hook', /private, loopback, link-local or reserved/],
    ['https://localhost/hook', /^The host localhost resolves to a private, loopback, link-local or reserved address/],
    ['https://user:pass@example.com/hook', /credentials/],
    ['https://no-such-host.invalid/hook', /does not resolve/],
  ];
  for (const [url, message] of refusals) {
    const refused = await createWebhook(scope, body(url)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details).toEqual([expect.objectContaining({ fieldName: 'url', message: expect.stringMatching(message) })]);
    // The rule, never the address a host resolved to.
    if (url.includes('localhost')) expect((refused as ValidationError).details[0]!.message).not.toMatch(/127\.0\.0\.1|::1/);
  }
  // A subscription whose host now resolves elsewhere (as after DNS rebinding) is refused at delivery.
  const hook = await receiver();
  const { webhook } = await createWebhook(scope, body(hook.url));
  await updateItem({ Key: keys.webhook(org.orgUuid, webhook.id), UpdateExpression: 'SET #url = :url', ExpressionAttributeNames: { '#url': 'url' }, ExpressionAttributeValues: { ':url': 'https://127.0.0.1:8443/hook' } });
  await sendPing(scope, webhook.id);
  await eventually(async () => (await listDeliveryAttempts(scope, webhook.id, 5)).length >= 1, 'the refused attempt');
  const [attempt] = await listDeliveryAttempts(scope, webhook.id, 5);
  expect(attempt).toMatchObject({ ok: false, httpStatus: null, error: expect.stringMatching(/private, loopback, link-local or reserved/) });
  expect(attempt!.error).not.toContain('127.0.0.1');
  expect(hook.received).toEqual([]);
});

describe('outbound rules', () => {
  // An organization of their own: these subscriptions take every event type and fail on purpose.
  let org: TestOrg;
  let scope: OrgScope;
  beforeAll(async () => {
    org = await freshOrganization();
    scope = await adminScope(org);
  });

  test('outbound calls reach ports 443 and 8443 only: another port is refused at creation and change naming the rule, and again at delivery', async () => {
    const portRule = /^The URL's port must be 443 or 8443 \(or none\): outbound calls reach those ports only$/;
    for (const url of ['https://example.com:8080/hook', 'https://93.184.215.14:22/', 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:6379/']) {
      const refused = await createWebhook(scope, body(url)).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).details).toEqual([{ fieldName: 'url', errorCode: 'WEBHOOK_URL_REFUSED', message: expect.stringMatching(portRule) }]);
    }
    const hook = await receiver();
    const created = await org.admin.api.post<{ id: string; url: string }>(userArea(org.orgUuid, '/webhooks'), { url: hook.url, eventTypes: ['*'] });
    expect(created.status).toBe(201);
    const moved = await org.admin.api.put<{ details: { fieldName: string; message: string }[] }>(userArea(org.orgUuid, `/webhooks/${created.body.id}`), {
      url: 'https://example.com:8080/hook',
      eventTypes: ['*'],
    });
    expect(moved.status).toBe(422);
    expect(moved.body.details).toEqual([expect.objectContaining({ fieldName: 'url', message: expect.stringMatching(portRule) })]);
    expect((await readWebhook(scope, created.body.id)).url).toBe(hook.url);

    // A URL kept from before the rule is held to it on every attempt, before any connection.
    await updateItem({ Key: keys.webhook(org.orgUuid, created.body.id), UpdateExpression: 'SET #url = :url', ExpressionAttributeNames: { '#url': 'url' }, ExpressionAttributeValues: { ':url': 'https://93.184.215.14:8080/hook' } });
    await sendPing(scope, created.body.id);
    await eventually(async () => (await listDeliveryAttempts(scope, created.body.id, 5)).length >= 1, 'the refused attempt');
    const [attempt] = await listDeliveryAttempts(scope, created.body.id, 5);
    expect(attempt).toMatchObject({ ok: false, httpStatus: null, error: expect.stringMatching(portRule) });
  });

  describe("a receiver's failure is recorded in the rule's words, never what answered", () => {
    const MARK = 'internal-detail-7f3a';
    const servers: Array<{ close(): void; closeAllConnections?(): void }> = [];
    afterAll(() => {
      for (const server of servers) {
        server.closeAllConnections?.();
        server.close();
      }
    });
    async function listening<S extends NetServer>(server: S): Promise<string> {
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    }
    /** The attempts of a ping to `url`, once the first is recorded, as the API lists them. */
    async function attemptsAt(url: string): Promise<Record<string, unknown>[]> {
      const created = await org.admin.api.post<{ id: string }>(userArea(org.orgUuid, '/webhooks'), { url, eventTypes: ['*'] });
      expect(created.status).toBe(201);
      await sendPing(scope, created.body.id);
      await eventually(async () => (await listDeliveryAttempts(scope, created.body.id, 5)).length >= 1, 'the failed attempt');
      const listed = await org.admin.api.get<Record<string, unknown>[]>(userArea(org.orgUuid, `/webhooks/${created.body.id}/deliveries`));
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain(MARK);
      expect(listed.text).not.toMatch(/ECONN|EPIPE|HPE_|socket hang up|Parse Error|SSH-2\.0|Internal Server Error/);
      return listed.body;
    }

    test('a 500 with a body and a reason phrase: its status only', async () => {
      const url = await listening(createServer((_request, response) => response.writeHead(500, `Oops ${MARK}`, { 'x-detail': MARK }).end(`stack trace at ${MARK}`)));
      const [attempt] = await attemptsAt(url);
      expect(attempt).toEqual(expect.objectContaining({ ok: false, httpStatus: 500, error: 'The receiver answered 500, not 2xx' }));
      expect(attempt).not.toHaveProperty('answer');
    });

    test('a server that is not HTTP (an SSH banner), a connection reset, a closed port: one sentence for all', async () => {
      const banner = await listening(createNetServer((socket) => socket.end(`SSH-2.0-OpenSSH_9.6 ${MARK}\r\n`)));
      const cut = await listening(createNetServer((socket) => socket.once('data', () => socket.resetAndDestroy())));
      const closedServer = createNetServer();
      await new Promise<void>((resolve) => closedServer.listen(0, '127.0.0.1', resolve));
      const closed = `http://127.0.0.1:${(closedServer.address() as AddressInfo).port}/hook`;
      await new Promise((resolve) => closedServer.close(resolve));

      for (const url of [banner, cut, closed]) {
        const [attempt] = await attemptsAt(url);
        expect(attempt).toEqual(expect.objectContaining({ ok: false, httpStatus: null, error: CONNECTION_FAILED }));
      }
    });
  });
});

test('at most 20 subscriptions per organization', async () => {
  const fresh = await freshOrganization();
  const freshScope = await adminScope(fresh);
  const hook = await receiver();
  for (let i = 0; i < 20; i++) await createWebhook(freshScope, body(hook.url));
  const refused = await createWebhook(freshScope, body(hook.url)).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ValidationError);
  expect((refused as ValidationError).details).toEqual([expect.objectContaining({ errorCode: 'WEBHOOK_LIMIT' })]);
});

describe('the API: ADMIN only, the secret shown once, bad bodies answered 422 with details', () => {
  const url = (path = '') => userArea(org.orgUuid, `/webhooks${path}`);

  test('create (201, with the secret), read, list, update, rotate, delete; no read shows a secret', async () => {
    const hook = await receiver();
    const created = await org.admin.api.post<Record<string, unknown>>(url(), { url: hook.url, eventTypes: ['agent.updated'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: hook.url, eventTypes: [type('agent.updated')], enabled: true, excludeActors: [], status: 'active', secret: expect.stringMatching(/^whsec_/) });
    const id = created.body.id as string;
    const read = await org.admin.api.get<Record<string, unknown>>(url(`/${id}`));
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(JSON.stringify((await org.admin.api.get(url())).body)).not.toContain(created.body.secret as string);
    const updated = await org.admin.api.put<Record<string, unknown>>(url(`/${id}`), { url: hook.url, eventTypes: ['*'], enabled: false });
    expect(updated.body).toMatchObject({ eventTypes: ['*'], enabled: false, status: 'disabled' });
    const rotated = await org.admin.api.post<Record<string, unknown>>(url(`/${id}/rotate`), undefined);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.previousSecretExpiresAt).toEqual(expect.any(String));
    expect((await org.admin.api.delete(url(`/${id}`))).status).toBe(204);
    expect((await org.admin.api.get(url(`/${id}`))).status).toBe(404);
  });

  test('the answers that carry a secret (create, rotate) are stored by no cache; the others carry no such header', async () => {
    const hook = await receiver();
    const created = await org.admin.api.post<{ id: string }>(url(), { url: hook.url, eventTypes: ['*'] });
    const rotated = await org.admin.api.post(url(`/${created.body.id}/rotate`), undefined);
    for (const answer of [created, rotated]) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('pragma')).toBe('no-cache');
    }
    expect((await org.admin.api.get(url(`/${created.body.id}`))).headers.get('pragma')).toBeNull();
  });

  test("event types: the events' own type or its alias without the prefix, kept without it and answered as events carry it", async () => {
    const hook = await receiver();
    const created = await org.admin.api.post<{ id: string; eventTypes: string[] }>(url(), { url: hook.url, eventTypes: [type('user.updated'), 'user.deleted', 'user.updated'] });
    expect(created.status).toBe(201);
    expect(created.body.eventTypes).toEqual([type('user.updated'), type('user.deleted')]);
    expect((await org.admin.api.get<{ eventTypes: string[] }>(url(`/${created.body.id}`))).body.eventTypes).toEqual([type('user.updated'), type('user.deleted')]);
    expect((await getWebhook(org.orgUuid, created.body.id))!.eventTypes).toEqual(['user.updated', 'user.deleted']);

    const user = await createViaApi(org);
    await rename(org, user, 'Asked for by its full type');
    await eventually(() => hook.events('user.updated').length >= 1, 'the delivery of the full type');
    expect(hook.events().map((event) => event.type)).toEqual([type('user.updated')]);

    // What the API answered goes back unchanged.
    const replaced = await org.admin.api.put<{ eventTypes: string[] }>(url(`/${created.body.id}`), { url: hook.url, eventTypes: created.body.eventTypes });
    expect(replaced.body.eventTypes).toEqual(created.body.eventTypes);
  });

  test("event types: another prefix than the events' is refused, saying theirs", async () => {
    const refused = await org.admin.api.post(url(), { url: 'https://hooks.example.com/in', eventTypes: ['com.example.user.created'] });
    const [detail] = expectFieldErrors(refused, ['eventTypes.0']);
    expect(detail!.message).toBe(`Event types here begin with ${DEFAULT_EVENT_TYPE_PREFIX}: use ${type('user.created')}, or its alias user.created`);
  });

  test("a subscription's URL shows in its audit and change events as its origin only; its ADMIN reads it whole", async () => {
    const hook = await receiver();
    const secretUrl = `${hook.url}/T0KEN-of-the-chat?sig=s3cr3t`;
    const created = await org.admin.api.post<{ id: string; url: string }>(url(), { url: secretUrl, eventTypes: ['*'] });
    expect(created.body.url).toBe(secretUrl);
    expect((await org.admin.api.get<{ url: string }>(url(`/${created.body.id}`))).body.url).toBe(secretUrl);
    const moved = `${hook.url}/another-T0KEN`;
    expect((await org.admin.api.put(url(`/${created.body.id}`), { url: moved, eventTypes: ['*'] })).status).toBe(200);

    const origin = new URL(hook.url).origin;
    const audit = await org.admin.api.get<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${created.body.id}&linesPerPage=10`));
    const changes = await eventsWhen((event) => ofOrg(org.orgUuid)(event) && event.detail.data.resource.uuid === created.body.id, 2, { settleMs: 0 });
    const records = [...audit.body.content.map((event) => event.changes), ...changes.map((event) => event.detail.data.changes)];
    expect(records).toHaveLength(4);
    for (const record of records) expect(JSON.stringify(record)).not.toMatch(/T0KEN|s3cr3t|\/hook/);
    const created_ = audit.body.content.find((event) => event.action === 'WEBHOOK_CREATED')!;
    expect(created_.changes).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'add', path: '', value: expect.objectContaining({ url: origin }) })]));
    const updated = audit.body.content.find((event) => event.action === 'WEBHOOK_UPDATED')!;
    expect(updated.changes).toEqual(expect.arrayContaining([{ op: 'replace', path: '/url', value: origin }]));
  });

  test('another role gets 403, another organization 404', async () => {
    const viewer = await member(org, 'VIEWER');
    const other = await freshOrganization();
    expect((await viewer.api.get(url())).status).toBe(403);
    expect((await other.admin.api.get(url())).status).toBe(404);
  });

  test('422 with details: an unknown event type, a URL over 2,048 characters, a URL refused', async () => {
    const bad = await org.admin.api.post<{ details: { fieldName: string }[] }>(url(), { url: `https://example.com/${'a'.repeat(2048)}`, eventTypes: ['agent.exploded'] });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((detail) => detail.fieldName).sort()).toEqual(['eventTypes.0', 'url']);
    const refused = await org.admin.api.post<{ details: { fieldName: string; message: string }[] }>(url(), { url: 'https://169.254.169.254/latest', eventTypes: ['*'] });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual([expect.objectContaining({ fieldName: 'url', message: expect.stringMatching(/link-local/) })]);
  });
});
