import { createTestUser, passwordToken } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import { call, send } from '../support/http-client';
import { stack, userArea } from '../support/stack';

/** A user of its own (entries are per user), with helpers to call the configuration routes. */
async function client(orgIndex = 0) {
  const user = await createTestUser({ orgIndex });
  const { access_token } = await passwordToken(user);
  const url = (path: string) => userArea(user.orgUuid, `/configurations${path}`);
  return {
    user,
    save: (body: unknown) => call(access_token, 'POST', url(''), body),
    get: (path: string) => call(access_token, 'GET', url(path)),
  };
}

const botOf = (orgIndex: number, env = 0, bot = 0) => stack().orgs[orgIndex]!.environments[env]!.bots[bot]!.uuid;

test('POST creates an entry and, for the same key, updates it keeping its integer id', async () => {
  const me = await client();

  const first = await me.save({ key: 'theme', value: 'dark' });
  const second = await me.save({ key: 'theme', value: 'light' });

  expect(first.status).toBe(200);
  const created = first.body as { id: number };
  expect(created).toEqual({ id: expect.any(Number), key: 'theme', value: 'dark', botUuid: null });
  expect(Number.isInteger(created.id)).toBe(true);
  expect(second.body).toEqual({ id: created.id, key: 'theme', value: 'light', botUuid: null });
});

test('a bot-specific entry is separate from the general one with the same key', async () => {
  const me = await client();
  const bot = botOf(0);

  const general = (await me.save({ key: 'lang', value: 'en' })).body as { id: number };
  const specific = (await me.save({ key: 'lang', value: 'ja', botUUID: bot })).body as { id: number; botUuid: string };

  expect(specific.id).not.toBe(general.id);
  expect(specific.botUuid).toBe(bot);
  expect((await me.get('')).body).toEqual([
    { id: general.id, key: 'lang', value: 'en', botUuid: null },
    { id: specific.id, key: 'lang', value: 'ja', botUuid: bot },
  ]);
  expect((await me.get(`/${bot}`)).body).toEqual([{ id: specific.id, key: 'lang', value: 'ja', botUuid: bot }]);
});

test('userHasConf answers booleans, general and per bot', async () => {
  const me = await client();
  const bot = botOf(0, 1, 1);
  await me.save({ key: 'general-only', value: '1' });
  await me.save({ key: 'bot-only', value: '1', botUUID: bot });

  const answers = await Promise.all([
    me.get('/userHasConf?key=general-only'),
    me.get('/userHasConf?key=bot-only'),
    me.get(`/${bot}/userHasConf?key=bot-only`),
    me.get(`/${bot}/userHasConf?key=general-only`),
  ]);

  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  expect(answers.map((r) => r.body)).toEqual([true, false, true, false]);
});

test("entries are the caller's own: another user sees none of them", async () => {
  const me = await client();
  const other = await client();
  await me.save({ key: 'private', value: 'x' });

  expect((await other.get('')).body).toEqual([]);
  expect((await other.get('/userHasConf?key=private')).body).toBe(false);
});

test("a bot of another organization, or no bot at all, is a 404 and nothing is written", async () => {
  const me = await client(0);
  const foreignBot = botOf(1);

  expectError(await me.save({ key: 'k', value: 'v', botUUID: foreignBot }), 404, 'NOT_FOUND');
  expectError(await me.get(`/${foreignBot}`), 404, 'NOT_FOUND');
  expectError(await me.get(`/00000000-0000-4000-8000-000000000000/userHasConf?key=k`), 404, 'NOT_FOUND');
  expect((await me.get('')).body).toEqual([]);
});

test('bad input is a 422 naming each field, and changes nothing', async () => {
  const me = await client();

  const response = await me.save({ key: '  ', value: 5, botUUID: 'nope', extra: true });
  const missing = await me.get('/userHasConf');
  const badBot = await me.get('/not-a-uuid');

  const body = expectError(response, 422, 'VALIDATION_FAILED');
  expect(body.details!.map((d) => d.fieldName).sort()).toEqual(['botUUID', 'extra', 'key', 'value']);
  expect(expectError(missing, 422, 'VALIDATION_FAILED').details!.map((d) => d.fieldName)).toEqual(['key']);
  expect(expectError(badBot, 422, 'VALIDATION_FAILED').details!.map((d) => d.fieldName)).toEqual(['botUUID']);
  expect((await me.get('')).body).toEqual([]);
});

test('concurrent saves of one new key make one entry with one id', async () => {
  const me = await client();

  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => me.save({ key: 'race', value: String(i) })));

  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const ids = new Set((answers.map((r) => r.body) as { id: number }[]).map((e) => e.id));
  expect(ids.size).toBe(1);
  const entries = (await me.get('')).body as { key: string }[];
  expect(entries.filter((e) => e.key === 'race')).toHaveLength(1);
});

test('without a token every configuration route is a 401', async () => {
  const { orgs } = stack();

  const response = await send(userArea(orgs[0]!.uuid, '/configurations'));

  expectError(response, 401, 'UNAUTHENTICATED');
});
