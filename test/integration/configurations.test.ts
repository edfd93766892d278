import { bearer, createTestUser, expectStandardError, passwordToken } from '../support/auth-helpers';
import { stack, userArea } from '../support/stack';

/** A user of its own (entries are per user), with helpers to call the configuration routes. */
async function client(orgIndex = 0) {
  const user = await createTestUser({ orgIndex });
  const { access_token } = await passwordToken(user);
  const url = (path: string) => userArea(user.orgUuid, `/configurations${path}`);
  const headers = { ...bearer(access_token), 'content-type': 'application/json' };
  return {
    user,
    save: (body: unknown) => fetch(url(''), { method: 'POST', headers, body: JSON.stringify(body) }),
    get: (path: string) => fetch(url(path), { headers }),
  };
}

const botOf = (orgIndex: number, env = 0, bot = 0) => stack().orgs[orgIndex]!.environments[env]!.bots[bot]!.uuid;

test('POST creates an entry and, for the same key, updates it keeping its integer id', async () => {
  const me = await client();

  const first = await me.save({ key: 'theme', value: 'dark' });
  const second = await me.save({ key: 'theme', value: 'light' });

  expect(first.status).toBe(200);
  const created = (await first.json()) as { id: number };
  expect(created).toEqual({ id: expect.any(Number), key: 'theme', value: 'dark', botUuid: null });
  expect(Number.isInteger(created.id)).toBe(true);
  expect(await second.json()).toEqual({ id: created.id, key: 'theme', value: 'light', botUuid: null });
});

test('a bot-specific entry is separate from the general one with the same key', async () => {
  const me = await client();
  const bot = botOf(0);

  const general = (await (await me.save({ key: 'lang', value: 'en' })).json()) as { id: number };
  const specific = (await (await me.save({ key: 'lang', value: 'ja', botUUID: bot })).json()) as { id: number; botUuid: string };

  expect(specific.id).not.toBe(general.id);
  expect(specific.botUuid).toBe(bot);
  expect(await (await me.get('')).json()).toEqual([
    { id: general.id, key: 'lang', value: 'en', botUuid: null },
    { id: specific.id, key: 'lang', value: 'ja', botUuid: bot },
  ]);
  expect(await (await me.get(`/${bot}`)).json()).toEqual([{ id: specific.id, key: 'lang', value: 'ja', botUuid: bot }]);
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
  expect(await Promise.all(answers.map((r) => r.json()))).toEqual([true, false, true, false]);
});

test("entries are the caller's own: another user sees none of them", async () => {
  const me = await client();
  const other = await client();
  await me.save({ key: 'private', value: 'x' });

  expect(await (await other.get('')).json()).toEqual([]);
  expect(await (await other.get('/userHasConf?key=private')).json()).toBe(false);
});

test("a bot of another organization, or no bot at all, is a 404 and nothing is written", async () => {
  const me = await client(0);
  const foreignBot = botOf(1);

  await expectStandardError(await me.save({ key: 'k', value: 'v', botUUID: foreignBot }), 404, 'NOT_FOUND');
  await expectStandardError(await me.get(`/${foreignBot}`), 404, 'NOT_FOUND');
  await expectStandardError(await me.get(`/00000000-0000-4000-8000-000000000000/userHasConf?key=k`), 404, 'NOT_FOUND');
  expect(await (await me.get('')).json()).toEqual([]);
});

test('bad input is a 422 naming each field, and changes nothing', async () => {
  const me = await client();

  const response = await me.save({ key: '  ', value: 5, botUUID: 'nope', extra: true });
  const missing = await me.get('/userHasConf');
  const badBot = await me.get('/not-a-uuid');

  const body = await expectStandardError(response, 422, 'VALIDATION_FAILED');
  expect(body.details!.map((d) => d.fieldName).sort()).toEqual(['botUUID', 'extra', 'key', 'value']);
  expect((await expectStandardError(missing, 422, 'VALIDATION_FAILED')).details!.map((d) => d.fieldName)).toEqual(['key']);
  expect((await expectStandardError(badBot, 422, 'VALIDATION_FAILED')).details!.map((d) => d.fieldName)).toEqual(['botUUID']);
  expect(await (await me.get('')).json()).toEqual([]);
});

test('concurrent saves of one new key make one entry with one id', async () => {
  const me = await client();

  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => me.save({ key: 'race', value: String(i) })));

  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const ids = new Set(((await Promise.all(answers.map((r) => r.json()))) as { id: number }[]).map((e) => e.id));
  expect(ids.size).toBe(1);
  const entries = (await (await me.get('')).json()) as { key: string }[];
  expect(entries.filter((e) => e.key === 'race')).toHaveLength(1);
});

test('without a token every configuration route is a 401', async () => {
  const { orgs } = stack();

  const response = await fetch(userArea(orgs[0]!.uuid, '/configurations'));

  await expectStandardError(response, 401, 'UNAUTHENTICATED');
});
