import { MEMO_MAX_ENTRIES, recall, remember, type Remembered } from '../../shared/app/users/listing-memo';
import { indexWrites } from '../../shared/domain/users/user-index.repository';
import type { UserRecord } from '../../shared/domain/users/user.entities';

const listing = (size: number, complete = false): Remembered => ({
  version: 1,
  entries: Array.from({ length: size }, (_, i) => ({ uuid: `u${i}`, key: String(i).padStart(9, '0') })),
  complete,
  readFrom: '2026-12-06T00:00:00.000Z',
  loadedAt: 0,
});

describe('the deep-page memo', () => {
  test('a listing is recalled when it holds the entries a page needs, or all of them', () => {
    remember('short', listing(150));
    remember('all', listing(150, true));
    expect(recall('short', 150)?.entries).toHaveLength(150);
    expect(recall('short', 151)).toBeUndefined();
    expect(recall('all', 10_000)?.entries).toHaveLength(150);
  });

  test('past its bound the least recently used listing goes first', () => {
    const third = Math.floor(MEMO_MAX_ENTRIES / 3);
    remember('a', listing(third));
    remember('b', listing(third));
    remember('c', listing(third));
    expect(recall('a', 1)).toBeDefined();
    remember('d', listing(third));
    // `b` was the least recently used (`a` was just read): it went, `a`, `c` and `d` stay.
    expect(recall('b', 1)).toBeUndefined();
    expect([recall('a', 1), recall('c', 1), recall('d', 1)].every(Boolean)).toBe(true);
  });
});

describe('what a deep-page memo catches up with', () => {
  const user = (fields: Partial<UserRecord> = {}): UserRecord & { countedStatus: 'ACTIVE' } => ({
    uuid: '11111111-1111-4111-8111-111111111111', orgUuid: 'org-1', name: 'Ana Lima', email: 'ana.lima@example.test', company: 'Acme',
    role: 'VIEWER', permissions: [], status: 'ACTIVE', createdAt: '2026-11-22T10:00:00.000Z', updatedAt: '2026-11-22T10:00:00.000Z', countedStatus: 'ACTIVE', ...fields,
  });
  const changes = (writes: ReturnType<typeof indexWrites>) => writes.flatMap((w) => (w.Put?.Item && /CHANGES$/.test(String(w.Put.Item.PK)) ? [w.Put.Item] : []));

  test('an e-mail or company change alone files a listing change with the entry as it is now', () => {
    const filed = changes(indexWrites(user({ email: 'ana@other.test' }), user()));
    expect(filed).toEqual([expect.objectContaining({ PK: 'ORG#org-1#LISTINGCHANGES', entry: expect.objectContaining({ email: 'ana@other.test', name: 'Ana Lima' }) })]);
  });

  test('a rename files one name change carrying the entry, and a role change files none', () => {
    expect(changes(indexWrites(user({ name: 'Ana Souza' }), user()))).toEqual([expect.objectContaining({ PK: 'ORG#org-1#NAMECHANGES', entry: expect.objectContaining({ name: 'Ana Souza' }) })]);
    expect(changes(indexWrites(user({ role: 'ADMIN' }), user()))).toEqual([]);
  });
});
