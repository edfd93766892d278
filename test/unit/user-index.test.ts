import { entryOf, indexedWords, matchesSearch, MAX_INDEXED_WORDS, searchOf, sortKeyOf } from '../../shared/domain/users/user-index';
import { indexWrites } from '../../shared/domain/users/user-index.repository';
import type { UserRecord } from '../../shared/domain/users/user.entities';

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
    const entry = entryOf(user());
    expect(indexedWords(entry)).toEqual(['ana', 'lima', 'example', 'test', 'acme']);
    for (const query of ['ana lim', 'ACME', 'example.test', 'lima@', 'Ána', 'acme ana']) expect(matchesSearch(entry, searchOf(query))).toBe(true);
    for (const query of ['ima', 'ana bob']) expect(matchesSearch(entry, searchOf(query))).toBe(false);
  });

  describe('words joined by punctuation stand next to each other, in order, the last as a prefix', () => {
    const matches = (query: string, fields: Partial<UserRecord>) => matchesSearch(entryOf(user({ company: '', ...fields })), searchOf(query));

    test('a full e-mail finds its user and not the users whose e-mail only begins the same', () => {
      const email = 'ldjhvxzwkqjxn1@example.com';
      expect(matches(email, { email })).toBe(true);
      expect(matches(email.toUpperCase(), { email })).toBe(true);
      for (const other of ['ldjhvxzwkqjxn12@example.com', 'ldjhvxzwkqjxn1x@example.com', 'xldjhvxzwkqjxn1@example.com', 'ldjhvxzwkqjxn1@other.com', 'ldjhvxzwkqjxn1.a@example.com'])
        expect([other, matches(email, { email: other })]).toEqual([other, false]);
      // The last word is a prefix, as it is while one types.
      expect(matches('ana@example.com', { email: 'ana@example.community' })).toBe(true);
    });

    test.each(['abc.b', 'abc_b', 'abc%c', 'abc*c', 'a%c', 'abc.abc'])('%j is no wildcard: it does not match abcabc', (query) => {
      // Other words begin with b and c: the joined words must stand next to each other to match.
      expect(matches(query, { name: 'abcabc', email: 'abcabc@example.com', company: 'Blue Cloud' })).toBe(false);
    });

    test.each([
      ['john.doe', 'John Doe', 'jd@example.test', true],
      ['john.do', 'Jo', 'john.doe@example.test', true],
      ['john_doe', 'Jo', 'john.doe@example.test', true],
      ['JOHN.DOE@EXAMPLE', 'Jo', 'john.doe@example.test', true],
      ['josé.álv', 'Jose Alvarez', 'ja@example.test', true],
      ['doe.john', 'John Doe', 'jd@example.test', false],
      ['jo.doe', 'John Doe', 'jd@example.test', false],
      ['ohn.doe', 'John Doe', 'jd@example.test', false],
      ['john.smith', 'John Doe Smith', 'jd@example.test', false],
      // One field at a time: the name's last word and the e-mail's first are not next to each other.
      ['doe.jd', 'John Doe', 'jd@example.test', false],
    ])('%j with name %j and e-mail %j → %s', (query, name, email, expected) => {
      expect(matches(query, { name, email })).toBe(expected);
    });

    test('the phrase is looked for anywhere in the field, past the indexed words too', () => {
      const name = Array.from({ length: MAX_INDEXED_WORDS + 5 }, (_, i) => `w${i}`).join(' ');
      expect(matches(`w${MAX_INDEXED_WORDS + 2}.w${MAX_INDEXED_WORDS + 3}`, { name })).toBe(true);
      expect(matches('w3.w3', { name: 'w3 w4 w3' })).toBe(false);
      expect(matches('acme.corp', { company: 'Acme Acme Corp' })).toBe(true);
    });

    test('space-separated search words are independent: any order, each anywhere', () => {
      expect(matches('doe john.doe@', { name: 'Doe', email: 'john.doe@example.test' })).toBe(true);
      expect(matches('example.test john', { name: 'John Doe', email: 'jd@example.test' })).toBe(true);
      expect(matches('example.test mary', { name: 'John Doe', email: 'jd@example.test' })).toBe(false);
    });

    test('punctuation at the ends of a search word and search words of punctuation alone are ignored', () => {
      expect(searchOf(' .john.doe@  %  ** ann ')).toEqual([['john', 'doe'], ['ann']]);
      expect(searchOf('%_*')).toEqual([]);
    });
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
    // A posting carries the listing fields a search checks and shows, and nothing else.
    expect(writes.find((w) => w.Put?.Item?.PK === 'ORG#org-1#TERM#lim')!.Put!.Item).toEqual({
      PK: 'ORG#org-1#TERM#lim',
      SK: user().uuid,
      type: 'USERTERM',
      ...entryOf(user()),
    });
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
