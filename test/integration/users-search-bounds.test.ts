import { putItem, updateItem } from '../../shared/adapters/store/table';
import { fold } from '../../shared/kernel/text/matching';
import { SHORT_SEARCH_MAX_USERS } from '../../shared/app/users/user-queries';
import { NAME_RANGES, RANGED_READ_FROM, readPostings } from '../../shared/domain/users/user-index.repository';
import { expectFieldErrors } from '../support/error-body';
import { createViaApi, freshOrganization, type TestOrg } from '../support/user-helpers';
import { keys } from '../../shared/adapters/store/keys';

/**
 * A search whose every word is shorter than three characters has no posting to narrow it and reads
 * the listing partitions whole: bounded to SHORT_SEARCH_MAX_USERS users, beyond which it is refused
 * with a 422 rather than running past the function's time (a 500, measured at 100,000 users).
 */

let org: TestOrg;
const search = (terms: string, query = '') => org.admin.api.get<{ totalElements: number }>(org.url(`?searchTerms=${encodeURIComponent(terms)}${query}`));
/** Makes the organization count as `extra` users larger than it is (the count is what the bound reads). */
const grow = (status: 'ACTIVE' | 'DELETED', extra: number) =>
  updateItem({ Key: keys.userCount(org.orgUuid), UpdateExpression: 'ADD #s :n', ExpressionAttributeNames: { '#s': status }, ExpressionAttributeValues: { ':n': extra } });

beforeAll(async () => {
  org = await freshOrganization({ adminName: 'Orla Admin' });
});

test('at the bound a short search still runs; past it, only a search with a 3-character word does', async () => {
  // The ADMIN alone is active: the organization counts exactly the bound.
  await grow('ACTIVE', SHORT_SEARCH_MAX_USERS - 1);
  expect((await search('or ad')).status).toBe(200);
  expect((await search('or ad')).body.totalElements).toBe(1);

  await grow('DELETED', 1);
  expect((await search('or ad')).status).toBe(200);
  const refused = await search('or ad', '&status=ALL');
  expect((await search('orl ad', '&status=ALL')).body.totalElements).toBe(1);

  const [detail] = expectFieldErrors(refused, ['searchTerms']);
  expect(detail!.message).toBe('With more than 20,000 users, at least one search word must have 3 or more characters');
});

describe('quicksearch from RANGED_READ_FROM active users on, its names read by name range', () => {
  /** Names whose folded first letter falls at, just below or between the cuts, in every script the cuts name, and past the last. */
  const names = [
    '#Hash Tag', '007 Agent', 'Al Able', 'Bo Bright', 'Bé Béa', 'Cy Cole', 'Dee Dunn', 'Ed Eve', 'Fay Fox', 'Gus Gray', 'Hal Hart', 'Ivy Ince',
    'Jo Jett', 'Kim Kent', 'Lu Lane', 'Mo Moss', 'Ned Nash', 'Oz Orr', 'Pia Pope', 'Quinn Q', 'Rex Ray', 'Sal Shaw', 'Ty Tate', 'Uma Ude',
    'Vic Vale', 'Wes West', 'Zed Zane', 'Øyvind Øst', 'Ωmega Alpha', 'Борис Петров', 'שרה כהן', 'अमित शर्मा', 'さくら 山田', '张伟', '李娜', '陈静',
    '김민준', '𝒜lice Script', 'ｻｸﾗ Kana',
  ];
  const rangeOf = (name: string) => {
    const first = Array.from(fold(name))[0]!;
    return NAME_RANGES.filter((cut) => cut <= first).length;
  };

  test('every range holds one of the names, and each name is found', async () => {
    expect(new Set(names.map(rangeOf)).size).toBe(NAME_RANGES.length + 1);
    const ranged = await freshOrganization({ adminName: 'Ranged Admin' });
    for (const name of names) await createViaApi(ranged, { name });
    await updateItem({ Key: keys.userCount(ranged.orgUuid), UpdateExpression: 'ADD ACTIVE :n', ExpressionAttributeValues: { ':n': RANGED_READ_FROM } });

    for (const name of names) {
      const found = await ranged.admin.api.get<string[]>(ranged.url(`/quicksearch?name=${encodeURIComponent(name)}&limit=50`));
      expect({ name, status: found.status, found: found.body.includes(name) }).toEqual({ name, status: 200, found: true });
    }
    const withA = await ranged.admin.api.get<string[]>(ranged.url('/quicksearch?name=a&limit=50'));
    expect(withA.body).toEqual(expect.arrayContaining(['#Hash Tag', '007 Agent', 'Al Able', 'Ωmega Alpha', 'ｻｸﾗ Kana', 'Ranged Admin']));
  });
});

describe('a search from RANGED_READ_FROM users on, its postings read by uuid range', () => {
  test('postings at, below, between and past every cut are each read once, as one Query reads them', async () => {
    const ranged = await freshOrganization({ adminName: 'Postings Admin' });
    // Sort keys at and around each cut, uppercase and non-hex first characters, and past the last cut.
    const sortKeys = ['', ...'0123456789abcdef'].flatMap((first) => [first, `${first}0000000-0000-4000-8000-000000000000`, `${first}fffffff-ffff-4fff-bfff-ffffffffffff`]).filter(Boolean);
    sortKeys.push('A1b2c3d4-0000-4000-8000-000000000000', 'ZZ', '~tilde', '-dash', 'ffffffff');
    for (const uuid of sortKeys) {
      const key = keys.userPosting(ranged.orgUuid, 'qzx', uuid);
      await putItem({ ...key, type: 'USERTERM', uuid, name: `Posting ${uuid}`, email: `${uuid}@postings.example.test`, company: '', status: 'ACTIVE', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    }
    const byQuery = await readPostings(ranged.orgUuid, 'qzx', { consistent: true });
    const byRange = await readPostings(ranged.orgUuid, 'qzx', { consistent: true, ranged: true });
    expect(byQuery.map((entry) => entry.uuid).sort()).toEqual([...new Set(sortKeys)].sort());
    expect(byRange.map((entry) => entry.uuid).sort()).toEqual(byQuery.map((entry) => entry.uuid).sort());
  });

  test('through the API, a search finds each of its users once and pages them as the plain listing orders them', async () => {
    const ranged = await freshOrganization({ adminName: 'Ranged Searcher' });
    const made = [];
    for (let i = 0; i < 24; i++) made.push(await createViaApi(ranged, { name: `Rangeword ${String(i).padStart(2, '0')}`, company: 'Range Co' }));
    await updateItem({ Key: keys.userCount(ranged.orgUuid), UpdateExpression: 'ADD ACTIVE :n', ExpressionAttributeValues: { ':n': RANGED_READ_FROM } });

    const first = await ranged.admin.api.get<{ content: { uuid: string }[]; totalElements: number; nextPageToken?: string }>(ranged.url('?searchTerms=rangeword&orderBy=name&direction=ASC&linesPerPage=20'));
    expect(first.status).toBe(200);
    expect(first.body.totalElements).toBe(24);
    const next = await ranged.admin.api.get<{ content: { uuid: string }[] }>(ranged.url(`?searchTerms=rangeword&orderBy=name&direction=ASC&linesPerPage=20&pageToken=${encodeURIComponent(first.body.nextPageToken!)}`));
    expect([...first.body.content, ...next.body.content].map((user) => user.uuid)).toEqual(made.map((user) => user.uuid));
  });
});
