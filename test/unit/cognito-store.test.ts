import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournaledDataStoreFactory, loadState } from '../../infra/local/cognito-store';

/** The embedded Cognito's store: constant cost per write, whole after a crash. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cognito-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ctx = {};
const user = (name: string) => ({ Username: name, Attributes: [{ Name: 'email', Value: `${name}@example.test` }], UserCreateDate: new Date('2026-11-22T10:00:00Z') });
const open = (id = 'pool') => new JournaledDataStoreFactory(dir).create(ctx, id, { Users: {}, Options: { Id: id } });
const files = (id = 'pool') => ({ snapshot: join(dir, `${id}.json`), journal: join(dir, `${id}.journal`) });

test('reads what it wrote, as copies, with dates as dates, across a restart', async () => {
  const store = await open();
  await store.set(ctx, ['Users', 'a'], user('a'));
  const read = await store.get<ReturnType<typeof user>>(ctx, ['Users', 'a']);
  read!.Username = 'changed';
  expect(await store.get(ctx, ['Users', 'a'])).toEqual(user('a'));
  await store.delete(ctx, ['Users', 'missing']);
  expect(await store.get(ctx, ['Users', 'missing'], 'none')).toBe('none');

  const again = await open();
  expect(await again.get(ctx, ['Users', 'a'])).toEqual(user('a'));
  expect(((await again.get<ReturnType<typeof user>>(ctx, ['Users', 'a']))!.UserCreateDate as Date).toISOString()).toBe('2026-11-22T10:00:00.000Z');
  expect(await again.get(ctx, ['Options', 'Id'])).toBe('pool');
});

test('a write appends one line of its own size, whatever the size of the pool, and leaves the snapshot alone', async () => {
  const store = await open();
  const { snapshot, journal } = files();
  const appended = async (name: string) => {
    const before = statSync(journal).size;
    await store.set(ctx, ['Users', name], user(name));
    return statSync(journal).size - before;
  };
  const small = await appended('first-user');
  for (let i = 0; i < 5_000; i++) await store.set(ctx, ['Users', `u${String(i).padStart(6, '0')}`], user(`u${i}`));
  store.compact();
  const snapshotAt = statSync(snapshot);

  const large = await appended('other-user');

  expect(large).toBe(small);
  expect(statSync(snapshot).mtimeMs).toBe(snapshotAt.mtimeMs);
  expect(statSync(snapshot).size).toBe(snapshotAt.size);
});

test('a write cut short by a crash is dropped; every whole write before it is kept', async () => {
  const store = await open();
  await store.set(ctx, ['Users', 'a'], user('a'));
  await store.set(ctx, ['Users', 'b'], user('b'));
  await store.delete(ctx, ['Users', 'a']);
  appendFileSync(files().journal, '{"op":"set","key":["Users","c"],"value":{"Userna');

  const state = loadState(files().snapshot, files().journal, {});

  expect(Object.keys(state.Users as object)).toEqual(['b']);
});

test('a crash between writing the snapshot and emptying the journal replays to the same state', async () => {
  const store = await open();
  await store.set(ctx, ['Users', 'a'], user('a'));
  await store.delete(ctx, ['Users', 'a']);
  await store.set(ctx, ['Users', 'b'], user('b'));
  const journal = readFileSync(files().journal, 'utf8');
  store.compact();
  writeFileSync(files().journal, journal);

  const reopened = await open();

  expect(await reopened.getRoot()).toEqual({ Users: { b: user('b') }, Options: { Id: 'pool' } });
});

test("a user's record keeps only its last few refresh tokens, so it does not grow with its sign-ins", async () => {
  const store = await open();
  await store.set(ctx, ['Users', 'a'], { ...user('a'), RefreshTokens: Array.from({ length: 50 }, (_, i) => `t${i}`) });
  expect((await store.get<{ RefreshTokens: string[] }>(ctx, ['Users', 'a']))!.RefreshTokens).toEqual(['t45', 't46', 't47', 't48', 't49']);
});
