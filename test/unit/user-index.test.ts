import { entryOf, indexedWords, indexWrites, MAX_INDEXED_WORDS, postingMatches, sortKeyOf, wordsIn } from '../../shared/users/user-index';
import type { UserRecord } from '../../shared/users/user.entities';

const user = (fields: Partial<UserRecord> = {}): UserRecord & { countedStatus?: 'ACTIVE' | 'DELETED' } => ({
  uuid: '11111111-1111-4111-8111-111111111111',
  orgUuid: 'org-1',
  name: 'Ana Lima',
  email: 'ana.lima@example.test',
  company: 'Acme',
  role: 'VIEWER',
  permissions: [],
  status: 'ACTIVE',
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  ...fields,
});

describe('the users index', () => {
  test('orders names as the listing does: case and accents ignored, numbers naturally, shorter first', () => {
    const names = ['user 10', 'Úrsula', 'user 9', 'ana', 'Ana Lima', 'álvaro'];
    const sorted = [...names].sort((a, b) => {
      const [x, y] = [sortKeyOf('name', entryOf(user({ name: a }))), sortKeyOf('name', entryOf(user({ name: b })))];
      return x < y ? -1 : x > y ? 1 : 0;
    });
    expect(sorted).toEqual(['álvaro', 'ana', 'Ana Lima', 'Úrsula', 'user 9', 'user 10']);
  });

  test('a search word matches the beginning of a word of the name, e-mail or company', () => {
    const posting = { ...entryOf(user()), words: indexedWords(entryOf(user())) };
    expect(posting.words).toEqual(['ana', 'lima', 'example', 'test', 'acme']);
    for (const query of ['ana lim', 'ACME', 'example.test', 'lima@', 'Ána']) expect(postingMatches(posting, wordsIn(query))).toBe(true);
    for (const query of ['ima', 'ana bob']) expect(postingMatches(posting, wordsIn(query))).toBe(false);
  });

  test('indexes at most MAX_INDEXED_WORDS words of a user', () => {
    const name = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    expect(indexedWords(entryOf(user({ name })))).toHaveLength(MAX_INDEXED_WORDS);
  });

  test('a new user: its entries and postings put, and counted once', () => {
    const writes = indexWrites(user(), undefined);
    expect(writes.filter((w) => w.Delete)).toEqual([]);
    // 4 listing entries, 5 postings, and the name change quicksearch caches catch up with.
    expect(writes.filter((w) => w.Put)).toHaveLength(4 + 5 + 1);
    expect(writes.filter((w) => w.Put).at(-1)!.Put!.Item).toMatchObject({ PK: 'ORG#org-1#NAMECHANGES', name: 'Ana Lima', active: true });
    expect(writes.at(-1)!.Update!.ExpressionAttributeValues).toEqual({ ':c0': 1, ':c1': 1 });
    expect(writes.at(-1)!.Update!.ExpressionAttributeNames).toEqual({ '#c0': 'version', '#c1': 'ACTIVE' });
  });

  test('a deletion moves the entries to the other status and the count with them', () => {
    const before = { ...user(), countedStatus: 'ACTIVE' as const };
    const writes = indexWrites({ ...user({ status: 'DELETED' }), countedStatus: 'DELETED' }, before);
    expect(writes.filter((w) => w.Delete)).toHaveLength(4);
    expect(writes.filter((w) => w.Put).at(-1)!.Put!.Item).toMatchObject({ PK: 'ORG#org-1#NAMECHANGES', active: false });
    expect(writes.at(-1)!.Update!.ExpressionAttributeNames).toEqual({ '#c0': 'version', '#c1': 'DELETED', '#c2': 'ACTIVE' });
    expect(writes.at(-1)!.Update!.ExpressionAttributeValues).toEqual({ ':c0': 1, ':c1': 1, ':c2': -1 });
  });

  test('a write that changes neither name nor status files no name change', () => {
    const before = { ...user(), countedStatus: 'ACTIVE' as const };
    const writes = indexWrites({ ...user({ company: 'Other' }), countedStatus: 'ACTIVE' }, before);
    expect(writes.filter((w) => w.Put?.Item?.PK === 'ORG#org-1#NAMECHANGES')).toEqual([]);
  });

  test('a rename replaces only what changed; a user the index never counted is counted now', () => {
    const writes = indexWrites(user({ name: 'Ana Souza', email: 'ana@example.test' }), user());
    // The by-name and by-email entries and the `lim` posting go; nothing else is deleted.
    expect(writes.filter((w) => w.Delete).map((w) => w.Delete!.Key)).toEqual([
      { PK: 'ORG#org-1#USERS#ACTIVE#name', SK: expect.stringMatching(/^ana lima.2026-11-22T10/) },
      { PK: 'ORG#org-1#USERS#ACTIVE#email', SK: expect.stringMatching(/^ana\.lima@/) },
      { PK: 'ORG#org-1#TERM#lim', SK: user().uuid },
    ]);
    expect(writes.filter((w) => w.Put).map((w) => w.Put!.Item!.PK)).toContain('ORG#org-1#TERM#sou');
    expect(writes.at(-1)!.Update!.ExpressionAttributeNames).toEqual({ '#c0': 'version', '#c1': 'ACTIVE' });
  });
});
