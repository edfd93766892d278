import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { config } from '../../shared/kernel/config';
import { keys } from '../../shared/adapters/store/keys';
import { getItem, updateItem } from '../../shared/adapters/store/table';
import { agentsUrl, freshBot, listAll, minimalAgentBody, userWithGrants, type FreshBot } from '../support/bot-helpers';
import { csvOf, rowFor, uploadCsv, type BulkErrorDto } from '../support/bulk-helpers';
import { expectError } from '../support/error-body';
import { userArea } from '../support/stack';
import type { ApiResponse } from '../support/http-client';
import { createViaApi, deleteViaApi, grantsFor, mailsTo, member, newUser, ownOrganization, readUser, uniqueEmail, usersWithEmail, type UserDto } from '../support/user-helpers';

/**
 * `Idempotency-Key` on `POST /users`, `PUT /users/activate`, `POST …/agents` and
 * `POST /users/bulk-create`, through the local stack: replays answer the first answer again and do
 * nothing more, a reused key with another request or while the first runs is refused, keys are the
 * calling user's, and error answers are not kept.
 */

const org = ownOrganization();

const key = () => `key-${randomUUID()}`;
const withKey = (value: string, headers: Record<string, string> = {}) => ({ 'Idempotency-Key': value, ...headers });
const createUser = (body: unknown, idempotencyKey?: string, client = org.admin.api) =>
  client.post(org.url(), body, idempotencyKey === undefined ? undefined : withKey(idempotencyKey));

/** The headers a route sets (the chain's own, such as the request id, differ on every answer). */
function routeHeaders(response: ApiResponse): Record<string, string> {
  const kept = ['content-type', 'etag', 'location', 'preference-applied'];
  return Object.fromEntries([...response.headers.entries()].filter(([name]) => kept.includes(name)));
}

/** The second answer is the first one again, marked as a replay; the first is not marked. */
function expectReplay(first: ApiResponse, second: ApiResponse): void {
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(second.headers.get('idempotent-replayed')).toBe('true');
  expect(second.status).toBe(first.status);
  expect(second.text).toBe(first.text);
  expect(routeHeaders(second)).toEqual(routeHeaders(first));
}

describe('POST /users with Idempotency-Key', () => {
  test('the same key and request replays the first answer: one user, one welcome e-mail', async () => {
    const body = newUser(org);
    const idempotencyKey = key();

    const first = await createUser(body, idempotencyKey);
    const second = await createUser(body, idempotencyKey);

    expect(first.status).toBe(200);
    expectReplay(first, second);
    expect((await usersWithEmail(org, body.email)).map((user) => user.uuid)).toEqual([first.body.uuid]);
    expect(await mailsTo(body.email)).toHaveLength(1);
  });

  test('the same JSON with other key order and spacing is the same request', async () => {
    const body = newUser(org);
    const idempotencyKey = key();
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);

    const first = await createUser(body, idempotencyKey);
    const second = await createUser(reordered, idempotencyKey);

    expectReplay(first, second);
  });

  test('the same key with another body is a 422 IDEMPOTENCY_KEY_REUSED, and nothing is created', async () => {
    const idempotencyKey = key();
    const first = await createUser(newUser(org), idempotencyKey);
    const other = newUser(org);

    const reused = await createUser(other, idempotencyKey);

    expect(first.status).toBe(200);
    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(await usersWithEmail(org, other.email)).toEqual([]);
    expect(await mailsTo(other.email)).toEqual([]);
  });

  test('the same key on another route (method and path) is a 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const idempotencyKey = key();
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);
    const body = newUser(org);
    expect((await createUser(body, idempotencyKey)).status).toBe(200);

    const reused = await org.admin.api.put(org.url('/activate'), { email: user.email }, withKey(idempotencyKey));

    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await readUser(org, user.uuid)).status).toBe('DELETED');
  });

  test("a key is the calling user's: another ADMIN with the same key gets an answer of its own", async () => {
    const otherAdmin = await member(org, 'ADMIN');
    const idempotencyKey = key();
    const mine = newUser(org);
    const theirs = newUser(org);

    const first = await createUser(mine, idempotencyKey);
    const second = await createUser(theirs, idempotencyKey, otherAdmin.api);
    const sameBodyOtherUser = await createUser(mine, idempotencyKey, otherAdmin.api);

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.email).toBe(theirs.email);
    // The other user's key already answered a different request: not the first user's answer.
    expectError(sameBodyOtherUser, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await usersWithEmail(org, theirs.email)).toHaveLength(1);
  });

  test('two requests racing with one key: one runs, the other is a 409 IDEMPOTENCY_IN_PROGRESS or a replay', async () => {
    const body = newUser(org);
    const idempotencyKey = key();

    const answers = await Promise.all([createUser(body, idempotencyKey), createUser(body, idempotencyKey)]);

    const ran = answers.filter((answer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers.filter((a) => a !== ran[0])) {
      if (answer.status === 409) expectError(answer, 409, 'IDEMPOTENCY_IN_PROGRESS');
      else expectReplay(ran[0]!, answer);
    }
    expect((await usersWithEmail(org, body.email)).map((user) => user.uuid)).toEqual([ran[0]!.body.uuid]);
    expect(await mailsTo(body.email)).toHaveLength(1);
    // Once the first has answered, the key replays it.
    expectReplay(ran[0]!, await createUser(body, idempotencyKey));
  });

  test.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a tab', 'key\twith-tab'],
    ['a non-ASCII character', 'clé'],
  ])('a malformed key (%s) is a 422 naming Idempotency-Key, and nothing is created', async (_name, value) => {
    const body = newUser(org);

    const response = await org.admin.api.post(org.url(), body, { 'Idempotency-Key': value });

    const error = expectError(response, 422, 'VALIDATION_FAILED');
    expect(error.details?.map((detail) => detail.fieldName)).toEqual(['Idempotency-Key']);
    expect(await usersWithEmail(org, body.email)).toEqual([]);
  });

  test('keys of 1 and of 255 printable characters are accepted', async () => {
    const longest = `${randomUUID()}${' !"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'.repeat(8)}`.slice(0, 255);

    // Keys are the user's, and the organization (so its ADMIN) is the run's: no earlier run used 'x'.
    const one = await createUser(newUser(org), 'x');
    const long = await createUser(newUser(org), longest);

    expect(longest).toHaveLength(255);
    expect(one.status).toBe(200);
    expect(long.status).toBe(200);
  });

  test('without a key nothing changes: two creates of distinct e-mails create two users', async () => {
    const [first, second] = [newUser(org), newUser(org)];

    const answers = [await createUser(first), await createUser(second)];

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.headers.get('idempotent-replayed'))).toEqual([null, null]);
    expect(await usersWithEmail(org, first.email)).toHaveLength(1);
    expect(await usersWithEmail(org, second.email)).toHaveLength(1);
  });

  test('an error answer is not kept: the same key and request run again once the cause is gone', async () => {
    const env = keys.environment(org.orgUuid, org.inactiveEnv);
    const body = newUser(org, { role: 'SUPERVISOR', permissions: [{ environmentUuid: org.inactiveEnv }] });
    const idempotencyKey = key();

    const refused = await createUser(body, idempotencyKey);
    const refusedAgain = await createUser(body, idempotencyKey);
    await updateItem({ Key: env, UpdateExpression: 'SET #active = :yes', ExpressionAttributeNames: { '#active': 'active' }, ExpressionAttributeValues: { ':yes': true } });
    const accepted = await createUser(body, idempotencyKey).finally(() =>
      updateItem({ Key: env, UpdateExpression: 'SET #active = :no', ExpressionAttributeNames: { '#active': 'active' }, ExpressionAttributeValues: { ':no': false } }),
    );

    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refusedAgain.status).toBe(refused.status);
    expect(refusedAgain.headers.get('idempotent-replayed')).toBeNull();
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
    expect(await usersWithEmail(org, body.email)).toHaveLength(1);
  });

  test("the record sits in the user's partition and expires through the table's TTL after 24 hours", async () => {
    const idempotencyKey = key();
    const before = Math.floor(Date.now() / 1000);

    expect((await createUser(newUser(org), idempotencyKey)).status).toBe(200);

    const records = await recordsOf(org.admin.uuid);
    const record = records.find((item) => Number(item.ttl) >= before + 24 * 3600);
    expect(record).toEqual(expect.objectContaining({ status: 'COMPLETED', ttl: expect.any(Number) }));
    expect(record!.SK).toMatch(/^IDEMPOTENCY#v1#/);
    expect(Number(record!.ttl)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 24 * 3600 + 1);
  });

  test('while the first request runs (its record in progress), the key is a 409 IDEMPOTENCY_IN_PROGRESS; once done, a replay', async () => {
    const body = newUser(org);
    const idempotencyKey = key();
    const first = await createUser(body, idempotencyKey);
    const record = (await recordsOf(org.admin.uuid)).find((item) => JSON.stringify(item.data).includes(first.body.uuid))!;
    const setStatus = (status: string) =>
      updateItem({
        Key: { PK: record.PK as string, SK: record.SK as string },
        UpdateExpression: 'SET #status = :status, #until = :until',
        ExpressionAttributeNames: { '#status': 'status', '#until': 'in_progress_expiration' },
        ExpressionAttributeValues: { ':status': status, ':until': Date.now() + 60_000 },
      });

    await setStatus('INPROGRESS');
    const running = await createUser(body, idempotencyKey);
    await setStatus('COMPLETED');
    const done = await createUser(body, idempotencyKey);

    expectError(running, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expectReplay(first, done);
    expect(await usersWithEmail(org, body.email)).toHaveLength(1);
  });
});

/** The user's idempotency records, whole (the store's readers leave `ttl` out). */
async function recordsOf(userUuid: string): Promise<Record<string, unknown>[]> {
  const prefix = keys.idempotencyRecord(userUuid, '');
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':sk': prefix.SK },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe('PUT /users/activate with Idempotency-Key', () => {
  test('a replay answers the reactivated user again and sends no second e-mail', async () => {
    const user = await createViaApi(org, { email: uniqueEmail('activate') });
    await deleteViaApi(org, user.uuid);
    const idempotencyKey = key();
    const activate = () => org.admin.api.put(org.url('/activate'), { email: user.email }, withKey(idempotencyKey));

    const first = await activate();
    const second = await activate();
    const withoutKey = await org.admin.api.put(org.url('/activate'), { email: user.email });

    expect(first.status).toBe(200);
    expectReplay(first, second);
    // Welcome and one reactivation e-mail; without the key, the request runs (and the user is active).
    expect(await mailsTo(user.email)).toHaveLength(2);
    expectError(withoutKey, 409, 'USER_ACTIVE');
  });
});

describe('POST …/agents with Idempotency-Key', () => {
  let bot: FreshBot;

  beforeAll(async () => {
    bot = await freshBot();
  });

  test('a replay answers the agent and its ETag again; the bot has one agent', async () => {
    const admin = await userWithGrants('ADMIN', [], 0);
    const body = minimalAgentBody(bot);
    const idempotencyKey = key();

    const first = await admin.api.post(agentsUrl(bot), body, withKey(idempotencyKey));
    const second = await admin.api.post(agentsUrl(bot), body, withKey(idempotencyKey));
    const reused = await admin.api.post(agentsUrl(bot), minimalAgentBody(bot), withKey(idempotencyKey));

    expect(first.status).toBe(201);
    expect(first.headers.get('etag')).toBeTruthy();
    expectReplay(first, second);
    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    const agents = await listAll(admin.api, bot, 'agents');
    expect(agents.map((agent) => agent.uuid)).toEqual([first.body.uuid]);
  });

  test('another user of the organization with the same key creates its own agent', async () => {
    const [one, two] = await Promise.all([userWithGrants('ADMIN', [], 0), userWithGrants('ADMIN', [], 0)]);
    const idempotencyKey = key();
    const body = minimalAgentBody(bot);

    const first = await one.api.post(agentsUrl(bot), body, withKey(idempotencyKey));
    const second = await two.api.post(agentsUrl(bot), body, withKey(idempotencyKey));

    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.uuid).not.toBe(first.body.uuid);
  });
});

describe('POST /users/bulk-create with Idempotency-Key', () => {
  test('a replay answers the job and its Location again: one job, one user, one welcome e-mail', async () => {
    const email = uniqueEmail('bulk');
    const invalid = uniqueEmail('bulk-invalid');
    const csv = csvOf([rowFor(org, 'VIEWER', email), rowFor(org, 'NOBODY', invalid)]);
    const idempotencyKey = key();

    // Each upload is a new multipart body (another boundary): the same file and fields are the same request.
    const first = await uploadCsv<BulkErrorDto[]>(org, csv, { headers: withKey(idempotencyKey) });
    const second = await uploadCsv<BulkErrorDto[]>(org, csv, { headers: withKey(idempotencyKey) });
    const otherFile = await uploadCsv(org, csvOf([rowFor(org, 'VIEWER', uniqueEmail('bulk-other'))]), { headers: withKey(idempotencyKey) });
    const dryRun = await uploadCsv(org, csv, { dryRun: true, headers: withKey(idempotencyKey) });

    expect(first.status).toBe(200);
    expect(first.headers.get('location')).toBeTruthy();
    expect(first.body.map((error) => error.email)).toEqual([invalid]);
    expectReplay(first, second);
    expectError(otherFile, 422, 'IDEMPOTENCY_KEY_REUSED');
    expectError(dryRun, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await usersWithEmail(org, email)).toHaveLength(1);
    expect(await mailsTo(email)).toHaveLength(1);
    const jobId = first.headers.get('location')!.split('/').pop()!;
    expect(await getItem(keys.bulkJob(org.orgUuid, jobId))).toBeDefined();
  });

  test('a long error list (kept compressed) replays whole', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => rowFor(org, 'NOBODY', uniqueEmail(`bulk-long-${i}`)));
    const csv = csvOf([rowFor(org, 'VIEWER', uniqueEmail('bulk-long')), ...rows]);
    const idempotencyKey = key();

    const first = await uploadCsv<BulkErrorDto[]>(org, csv, { headers: withKey(idempotencyKey) });
    const second = await uploadCsv<BulkErrorDto[]>(org, csv, { headers: withKey(idempotencyKey) });

    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(300);
    expect(first.text.length).toBeGreaterThan(16 * 1024);
    expectReplay(first, second);
    const stored = (await recordsOf(org.admin.uuid)).map((item) => item.data as { gzippedBody?: string; body?: string } | undefined);
    expect(stored.some((data) => data?.gzippedBody !== undefined && data.body === undefined)).toBe(true);
  });
});

/**
 * What a crash between a change and its answer's record leaves: Powertools' record still in progress,
 * its time up (the function stopped), and no answer kept.
 */
async function asIfCrashedAfterCommit(userUuid: string, resourceUuid: string): Promise<void> {
  const record = (await recordsOf(userUuid)).find((item) => JSON.stringify(item.data).includes(resourceUuid))!;
  await updateItem({
    Key: { PK: record.PK as string, SK: record.SK as string },
    UpdateExpression: 'SET #status = :status, #until = :until REMOVE #data',
    ExpressionAttributeNames: { '#status': 'status', '#until': 'in_progress_expiration', '#data': 'data' },
    ExpressionAttributeValues: { ':status': 'INPROGRESS', ':until': Date.now() - 1000 },
  });
}

describe('a keyed request whose change committed just before a crash', () => {
  test('POST /users retried with the key answers the user it created, not EMAIL_TAKEN, and sends no second e-mail', async () => {
    const body = newUser(org);
    const idempotencyKey = key();
    const first = await createUser(body, idempotencyKey);
    expect(first.status).toBe(200);
    await asIfCrashedAfterCommit(org.admin.uuid, first.body.uuid);

    const retried = await createUser(body, idempotencyKey);
    const again = await createUser(body, idempotencyKey);

    expectReplay(first, retried);
    expectReplay(first, again);
    expect((await usersWithEmail(org, body.email)).map((user) => user.uuid)).toEqual([first.body.uuid]);
    expect(await mailsTo(body.email)).toHaveLength(1);
  });

  test('the key sent with another request after the crash is still a 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const idempotencyKey = key();
    const first = await createUser(newUser(org), idempotencyKey);
    await asIfCrashedAfterCommit(org.admin.uuid, first.body.uuid);
    const other = newUser(org);

    const reused = await createUser(other, idempotencyKey);

    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await usersWithEmail(org, other.email)).toEqual([]);
  });

  test('POST …/agents retried with the key answers the agent it created with its ETag: the bot has one agent', async () => {
    const bot = await freshBot();
    const admin = await userWithGrants('ADMIN', [], 0);
    const body = minimalAgentBody(bot);
    const idempotencyKey = key();
    const first = await admin.api.post(agentsUrl(bot), body, withKey(idempotencyKey));
    expect(first.status).toBe(201);
    await asIfCrashedAfterCommit(admin.userUuid, first.body.uuid);

    const retried = await admin.api.post(agentsUrl(bot), body, withKey(idempotencyKey));

    expectReplay(first, retried);
    expect((await listAll(admin.api, bot, 'agents')).map((agent) => agent.uuid)).toEqual([first.body.uuid]);
  });
});

describe('a replay is authorized like a new request', () => {
  test('an ADMIN demoted to VIEWER gets the 403 of a new request, not its keyed POST /users answer', async () => {
    const formerAdmin = await member(org, 'ADMIN');
    const body = newUser(org);
    const idempotencyKey = key();
    expect((await createUser(body, idempotencyKey, formerAdmin.api)).status).toBe(200);
    const demote = await org.admin.api.put(org.url(`/${formerAdmin.uuid}`), {
      name: formerAdmin.name,
      email: formerAdmin.email,
      role: 'VIEWER',
      permissions: grantsFor(org, 'VIEWER'),
    });
    expect(demote.status).toBe(200);

    const replayed = await createUser(body, idempotencyKey, formerAdmin.api);
    const unkeyed = await createUser(newUser(org), undefined, formerAdmin.api);

    expectError(replayed, 403, 'FORBIDDEN');
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    expectError(unkeyed, 403, 'FORBIDDEN');
  });

  test("an EDITOR whose grant on the bot was revoked gets the 403 of a new request, not its keyed agent's 201", async () => {
    const bot = await freshBot();
    const otherBot = await freshBot({ envUuid: bot.envUuid, supervisor: false });
    const editor = await userWithGrants('EDITOR', [{ environmentUuid: bot.envUuid, botUuid: bot.botUuid }], 0);
    const body = minimalAgentBody(bot);
    const idempotencyKey = key();
    expect((await editor.api.post(agentsUrl(bot), body, withKey(idempotencyKey))).status).toBe(201);
    const admin = await userWithGrants('ADMIN', [], 0);
    const editorRecord = await admin.api.get(userArea(bot.orgUuid, `/users/${editor.userUuid}`));
    const revoke = await admin.api.put(userArea(bot.orgUuid, `/users/${editor.userUuid}`), {
      name: (editorRecord.body as unknown as UserDto).name,
      email: (editorRecord.body as unknown as UserDto).email,
      role: 'EDITOR',
      permissions: [{ environmentUuid: bot.envUuid, botUuid: otherBot.botUuid }],
    });
    expect(revoke.status).toBe(200);

    const replayed = await editor.api.post(agentsUrl(bot), body, withKey(idempotencyKey));
    const unkeyed = await editor.api.post(agentsUrl(bot), minimalAgentBody(bot));

    expectError(replayed, 403, 'FORBIDDEN');
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    expectError(unkeyed, 403, 'FORBIDDEN');
  });
});
