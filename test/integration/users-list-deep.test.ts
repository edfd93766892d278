import type { AuditEventDto } from '../support/audit-helpers';
import { randomUUID } from 'node:crypto';
import { putItem } from '../../shared/adapters/store/table';
import { auditItem } from '../../shared/domain/audit/audit-event.repository';
import type { AuditEvent } from '../../shared/domain/audit/audit-event';
import { userArea } from '../support/stack';
import { csvOf, rowFor, uploadCsv } from '../support/bulk-helpers';
import { createViaApi, freshOrganization, type TestOrg, type UserDto, type UserPage } from '../support/user-helpers';

/**
 * Deep offset pages (from the 100th user on, docs/decisions/deep-pages-from-a-versioned-memo.md) answer
 * what the page tokens walk to, with the same totals, and follow every write at once: a deep listing
 * a container remembers is never served after the organization changed.
 */

const PEOPLE = 124;
let org: TestOrg;
let made: UserDto[];

beforeAll(async () => {
  org = await freshOrganization({ adminName: 'Zz Admin' });
  made = [];
  for (let from = 0; from < PEOPLE; from += 8) {
    made.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(8, PEOPLE - from) }, (_, i) => {
          const n = String(from + i).padStart(3, '0');
          return createViaApi(org, { name: `Deep ${n} Person`, email: `deep.${n}.${org.realm}@deepword.example.test`, company: n.endsWith('7') ? 'Sevens Ltd' : 'Plain Co' });
        }),
      )),
    );
  }
}, 240_000);

const page = async (query: string) => {
  const response = await org.admin.api.get<UserPage & { nextPageToken?: string }>(org.url(query));
  expect(response.status).toBe(200);
  return response.body;
};
const uuids = (body: UserPage) => body.content.map((user) => user.uuid);

/** Every user of a listing by page tokens (each page read after the last one's position, never by offset). */
async function walkUsers(query: string): Promise<UserDto[]> {
  const found: UserDto[] = [];
  let body = await page(`?linesPerPage=20${query}`);
  found.push(...body.content);
  while (body.nextPageToken) {
    body = await page(`?linesPerPage=20&pageToken=${encodeURIComponent(body.nextPageToken)}${query}`);
    found.push(...body.content);
  }
  return found;
}
const walk = async (query: string) => (await walkUsers(query)).map((user) => user.uuid);

describe('a deep page is the slice of the whole listing at its offset', () => {
  test.each(['&orderBy=name&direction=ASC', '&orderBy=email&direction=DESC', '&orderBy=createdAt&direction=ASC', '&status=ALL&orderBy=company&direction=ASC', '&searchTerms=deepword&orderBy=name&direction=DESC'])(
    '%s: pages 5 and 6 of 20, asked twice, match the page-token walk and the totals',
    async (query) => {
      const all = await walk(query);
      expect(all.length).toBeGreaterThanOrEqual(PEOPLE);
      for (let round = 0; round < 2; round++) {
        for (const number of [5, 6]) {
          const body = await page(`?linesPerPage=20&page=${number}${query}`);
          expect(uuids(body)).toEqual(all.slice(number * 20, number * 20 + 20));
          expect(body.totalElements).toBe(all.length);
          expect(body.number).toBe(number);
          expect(body.last).toBe(number * 20 + 20 >= all.length);
        }
      }
    },
  );
});

describe('a deep page follows every write at once', () => {
  test('a user created, renamed and deleted moves the deep pages and their totals at the next request', async () => {
    const query = '&orderBy=name&direction=ASC&searchTerms=deepword';
    const before = await page(`?linesPerPage=20&page=5${query}`);
    const first = await createViaApi(org, { name: 'Aaa Deep Person', email: `aaa.${org.realm}@deepword.example.test` });

    const afterCreate = await page(`?linesPerPage=20&page=5${query}`);
    expect(afterCreate.totalElements).toBe(before.totalElements + 1);
    // One user sorts before all of them: every entry moves one place on.
    expect(uuids(afterCreate).slice(1)).toEqual(uuids(before).slice(0, -1));
    expect(uuids(afterCreate)).toEqual((await walk(query)).slice(100, 120));

    const renamed = await org.admin.api.put(org.url(`/${first.uuid}`), { ...first, name: 'Zzz Deep Person', email: `zzz.${org.realm}@elsewhere.example.test` });
    expect(renamed.status).toBe(200);
    const afterRename = await page(`?linesPerPage=20&page=5${query}`);
    expect(afterRename.totalElements).toBe(before.totalElements);
    expect(uuids(afterRename)).toEqual(uuids(before));

    const gone = made.find((user) => user.name === 'Deep 050 Person')!;
    expect((await org.admin.api.delete(org.url(`/${gone.uuid}`))).status).toBe(204);
    const active = await page('?linesPerPage=20&page=5&orderBy=name&direction=ASC');
    const all = await page('?linesPerPage=20&page=5&orderBy=name&direction=ASC&status=ALL');
    const deleted = await page('?linesPerPage=5&page=0&status=DELETED');
    expect(uuids(active)).toEqual((await walk('&orderBy=name&direction=ASC')).slice(100, 120));
    expect(uuids(all)).toEqual((await walk('&orderBy=name&direction=ASC&status=ALL')).slice(100, 120));
    expect(all.totalElements).toBe(active.totalElements + deleted.totalElements);
    expect(uuids(deleted)).toContain(gone.uuid);
  }, 120_000);

  test('an e-mail or company change alone moves the user in the deep pages by e-mail and by company', async () => {
    const byEmail = '&orderBy=email&direction=ASC';
    const byCompany = '&orderBy=company&direction=DESC&searchTerms=deepword';
    await page(`?linesPerPage=20&page=5${byEmail}`);
    await page(`?linesPerPage=20&page=5${byCompany}`);
    const moved = made.find((user) => user.name === 'Deep 003 Person')!;
    const changed = await org.admin.api.put(org.url(`/${moved.uuid}`), { ...moved, email: `zz.deep.003.${org.realm}@deepword.example.test`, company: 'Aardvark Co' });
    expect(changed.status).toBe(200);

    const emailPage = await page(`?linesPerPage=20&page=5${byEmail}`);
    expect(uuids(emailPage)).toEqual((await walk(byEmail)).slice(100, 120));
    const companyPage = await page(`?linesPerPage=20&page=5${byCompany}`);
    const companyWalk = await walk(byCompany);
    expect(uuids(companyPage)).toEqual(companyWalk.slice(100, 120));
    // DESC by company: Aardvark Co comes last of all.
    expect(companyWalk.at(-1)).toBe(moved.uuid);
    expect(uuids(await page(`?linesPerPage=20&page=6${byCompany}`)).at(-1)).toBe(moved.uuid);
  }, 120_000);
});

describe('a deep page nearer the start is read from the start, one nearer the end from the end', () => {
  test('in an organization of 300 users, pages 5 to 15 of 20, and the page past the last, match the page-token walk in both directions', async () => {
    const large = await freshOrganization({ adminName: 'Large Admin' });
    for (let from = 0; from < 299; from += 100) {
      const rows = Array.from({ length: Math.min(100, 299 - from) }, (_, i) => rowFor(large, 'VIEWER', `large.${from + i}.${large.realm}@large.example.test`, { Name: `Large ${String(from + i).padStart(3, '0')}`, Password: 'Large-Passw0rd!' }));
      expect((await uploadCsv(large, csvOf(rows))).status).toBe(200);
    }
    for (const direction of ['ASC', 'DESC']) {
      const query = `&orderBy=name&direction=${direction}&status=ALL`;
      const all: string[] = [];
      let body = (await large.admin.api.get<UserPage & { nextPageToken?: string }>(large.url(`?linesPerPage=20${query}`))).body;
      all.push(...uuids(body));
      while (body.nextPageToken) {
        body = (await large.admin.api.get<UserPage & { nextPageToken?: string }>(large.url(`?linesPerPage=20&pageToken=${encodeURIComponent(body.nextPageToken)}${query}`))).body;
        all.push(...uuids(body));
      }
      expect(all).toHaveLength(300);
      for (const number of [5, 7, 8, 14, 15]) {
        const found = (await large.admin.api.get<UserPage>(large.url(`?linesPerPage=20&page=${number}${query}`))).body;
        expect({ number, uuids: uuids(found), total: found.totalElements, last: found.last }).toEqual({ number, uuids: all.slice(number * 20, number * 20 + 20), total: 300, last: number === 14 || number === 15 });
      }
      // The last page the query allows, far past the listing: empty, with the total, and no listing read for it.
      const far = (await large.admin.api.get<UserPage>(large.url(`?linesPerPage=20&page=1000000${query}`))).body;
      expect({ content: far.content, total: far.totalElements, last: far.last }).toEqual({ content: [], total: 300, last: true });
      const farSearch = (await large.admin.api.get<UserPage>(large.url(`?linesPerPage=20&page=1000000${query}&searchTerms=large`))).body;
      expect({ content: farSearch.content, total: farSearch.totalElements }).toEqual({ content: [], total: 300 });
    }
  }, 120_000);
});

describe("a search's every page, from the container's memory, follows every write at once", () => {
  const search = '&searchTerms=deepword&orderBy=name&direction=ASC';
  /** The plain listing (read from its partition past each page's position, never from memory) kept to the users whose e-mail holds the word. */
  const plainOracle = async () => (await walkUsers('&orderBy=name&direction=ASC')).filter((user) => user.email.includes('deepword')).map((user) => user.uuid);

  test('the page-token walk of a search is the plain listing in the same order, kept to its matches', async () => {
    const searched = await walk(search);
    expect(searched).toEqual(await plainOracle());
    expect(searched.length).toBeGreaterThanOrEqual(PEOPLE - 1);
  }, 120_000);

  test('the first page and a page token of a search see a user created, moved out of it and deleted at the next request', async () => {
    const before = await page(`?linesPerPage=20${search}`);
    const token = encodeURIComponent(before.nextPageToken!);
    const tokenPage = await page(`?linesPerPage=20&pageToken=${token}${search}`);
    const early = await createViaApi(org, { name: 'Aab Deep Person', email: `aab.${org.realm}@deepword.example.test` });
    const late = await createViaApi(org, { name: 'Zzy Deep Person', email: `zzy.${org.realm}@deepword.example.test` });

    const afterCreate = await page(`?linesPerPage=20${search}`);
    expect(afterCreate.totalElements).toBe(before.totalElements + 2);
    expect(uuids(afterCreate)).toEqual([early.uuid, ...uuids(before).slice(0, -1)]);
    // A page token is a position: the user sorted before it leaves the page after it as it was.
    expect(uuids(await page(`?linesPerPage=20&pageToken=${token}${search}`))).toEqual(uuids(tokenPage));
    expect((await walk(search)).at(-1)).toBe(late.uuid);

    const moved = await org.admin.api.put(org.url(`/${early.uuid}`), { ...early, email: `aab.${org.realm}@elsewhere.example.test` });
    expect(moved.status).toBe(200);
    const gone = made.find((user) => user.name === 'Deep 010 Person')!;
    expect((await org.admin.api.delete(org.url(`/${gone.uuid}`))).status).toBe(204);
    const afterwards = await page(`?linesPerPage=20${search}`);
    expect(afterwards.totalElements).toBe(before.totalElements);
    expect(uuids(afterwards)).not.toContain(early.uuid);
    expect(uuids(afterwards)).not.toContain(gone.uuid);
    const all = await page(`?linesPerPage=20&status=ALL${search}`);
    expect(uuids(all)).toContain(gone.uuid);
    expect(await walk(search)).toEqual(await plainOracle());
  }, 120_000);
});

describe('a deep page of audit events', () => {
  type EventPage = { content: AuditEventDto[]; totalElements: number; nextPageToken?: string };
  const events = async (query: string) => {
    const response = await org.admin.api.get<EventPage>(userArea(org.orgUuid, `/audit-events?${query}`));
    expect(response.status).toBe(200);
    return response.body;
  };
  const ids = (body: EventPage) => body.content.map((event) => event.id);
  async function walkEvents(query: string): Promise<string[]> {
    const found: string[] = [];
    let body = await events(`linesPerPage=20${query}`);
    found.push(...ids(body));
    while (body.nextPageToken) {
      body = await events(`linesPerPage=20&pageToken=${encodeURIComponent(body.nextPageToken)}${query}`);
      found.push(...ids(body));
    }
    return found;
  }

  test.each(['', '&resourceType=USER', `&from=2000-01-01T00:00:00Z`])('%s: pages 5 and 6 of 20 match the page-token walk, and an event filed since moves them at once', async (query) => {
    const all = await walkEvents(query);
    expect(all.length).toBeGreaterThan(120);
    const before = await events(`linesPerPage=20&page=5${query}`);
    expect(ids(before)).toEqual(all.slice(100, 120));
    expect(before.totalElements).toBe(all.length);
    expect(ids(await events(`linesPerPage=20&page=6${query}`))).toEqual(all.slice(120, 140));

    await createViaApi(org, { name: 'Audit Newcomer', email: `audit.${Date.now()}.${org.realm}@deepword.example.test` });
    const after = await events(`linesPerPage=20&page=5${query}`);
    expect(after.totalElements).toBe(before.totalElements + 1);
    expect(ids(after).slice(1)).toEqual(ids(before).slice(0, -1));
    expect(ids(after)).toEqual((await walkEvents(query)).slice(100, 120));
  }, 120_000);

  test('an event that expires leaves the numbered pages and their total at once, as a fresh read leaves it out', async () => {
    const before = await events('linesPerPage=20');
    const at = new Date().toISOString();
    const ttl = Math.floor(Date.now() / 1000) + 2;
    const event: AuditEvent = { id: randomUUID(), at, actor: { uuid: null, email: null }, action: 'USER_CREATED', resource: { type: 'USER', uuid: randomUUID() }, requestId: null, changes: [] };
    await putItem({ ...auditItem(org.orgUuid, event), ttl });

    const filed = await events('linesPerPage=20');
    expect(filed.totalElements).toBe(before.totalElements + 1);
    expect(ids(filed)[0]).toBe(event.id);

    while (Math.floor(Date.now() / 1000) <= ttl) await new Promise((resolve) => setTimeout(resolve, 200));
    const expired = await events('linesPerPage=20');
    expect(expired.totalElements).toBe(before.totalElements);
    expect(ids(expired)).not.toContain(event.id);
    expect(ids(expired)).toEqual(ids(before));
  }, 30_000);
});
