import { expectFieldErrors } from '../support/error-body';
import { listedOrganization, type ListedOrg } from '../support/listed-users';
import type { UserPage, UsersQuery } from '../support/user-helpers';

/**
 * `GET /users` (docs/api/users.md) as an ADMIN lists its organization: pages, sort orders, search terms
 * and the status filter, over an organization of the file's own whose users no test changes.
 */

let listed: ListedOrg;

beforeAll(async () => {
  listed = await listedOrganization();
});

const listing = (query: UsersQuery = {}) => listed.org.users.list(query);
/** A listing whose query the OpenAPI document refuses (another case, a wrong type), sent as written. */
const rawListing = (query: string) => listed.org.admin.api.get<UserPage>(listed.org.url(query));
const names = (page: { body: { content: { name: string }[] } }) => page.body.content.map((user) => user.name);

test('defaults: page 0 of 5 active users, newest first, with the Page fields', async () => {
  const response = await listing();

  expect(response.status).toBe(200);
  expect(names(response)).toEqual(['Alan Turing', 'Ada Lovelace', 'Albert Brown', 'Zoë Zimmer', 'Jane Doe']);
  const sort = { unsorted: false, sorted: true, empty: false };
  expect({ ...response.body, content: undefined }).toEqual({
    content: undefined,
    totalElements: 8,
    totalPages: 2,
    numberOfElements: 5,
    size: 5,
    number: 0,
    first: true,
    last: false,
    empty: false,
    pageable: { unpaged: false, paged: true, pageNumber: 0, pageSize: 5, offset: 0, sort },
    sort,
    nextPageToken: expect.any(String),
  });
});

test('a content item is the User (docs/api/users.md#the-user) (with role, permissions and status) and nothing internal', async () => {
  const response = await listing({ searchTerms: 'Jane' });

  expect(response.body.content).toEqual([
    {
      uuid: listed.users.jane.uuid,
      orgUUID: listed.org.orgUuid,
      name: 'Jane Doe',
      email: `xavier.${listed.run}@example.test`,
      image: null,
      company: 'Hooli',
      admin: false,
      role: 'VIEWER',
      permissions: [{ environmentUuid: listed.org.envA, botUuid: listed.org.botA1 }],
      status: 'ACTIVE',
      createdAt: listed.users.jane.createdAt,
    },
  ]);
});

test('pages are 0-based: page 1 is the last, page 2 is empty', async () => {
  const second = await listing({ page: 1 });
  const beyond = await listing({ page: 2 });

  expect(names(second)).toEqual(['John Doe', 'José Álvarez', 'Olga Admin']);
  expect(second.body).toMatchObject({ number: 1, first: false, last: true, empty: false, numberOfElements: 3, totalPages: 2 });
  expect(second.body.pageable).toMatchObject({ pageNumber: 1, pageSize: 5, offset: 5 });
  expect(beyond.status).toBe(200);
  expect(beyond.body).toMatchObject({ content: [], number: 2, first: false, last: true, empty: true, numberOfElements: 0, totalElements: 8 });
});

test('linesPerPage sets the page size: 3 per page gives 3 pages', async () => {
  const pages = await Promise.all([0, 1, 2].map((page) => listing({ linesPerPage: 3, page })));

  expect(pages.map(names)).toEqual([
    ['Alan Turing', 'Ada Lovelace', 'Albert Brown'],
    ['Zoë Zimmer', 'Jane Doe', 'John Doe'],
    ['José Álvarez', 'Olga Admin'],
  ]);
  expect(pages.map((page) => [page.body.totalPages, page.body.size, page.body.first, page.body.last])).toEqual([
    [3, 3, true, false],
    [3, 3, false, false],
    [3, 3, false, true],
  ]);
});

describe('orderBy and direction', () => {
  const byName = ['Ada Lovelace', 'Alan Turing', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin', 'Zoë Zimmer'];
  const byEmail = ['John Doe', 'Zoë Zimmer', 'Ada Lovelace', 'Alan Turing', 'Olga Admin', 'Albert Brown', 'José Álvarez', 'Jane Doe'];
  const byCompany = ['Olga Admin', 'José Álvarez', 'Ada Lovelace', 'Alan Turing', 'John Doe', 'Jane Doe', 'Zoë Zimmer', 'Albert Brown'];
  const byCreation = ['Olga Admin', 'José Álvarez', 'John Doe', 'Jane Doe', 'Zoë Zimmer', 'Albert Brown', 'Ada Lovelace', 'Alan Turing'];
  test.each<[UsersQuery['orderBy'], UsersQuery['direction'], string[]]>([
    ['name', 'ASC', byName],
    ['name', 'DESC', [...byName].reverse()],
    ['email', 'ASC', byEmail],
    ['email', 'DESC', [...byEmail].reverse()],
    ['company', 'ASC', byCompany],
    ['company', 'DESC', [...byCompany].reverse()],
    ['createdAt', 'ASC', byCreation],
    ['createdAt', 'DESC', [...byCreation].reverse()],
  ])('orderBy=%s direction=%s', async (orderBy, direction, expected) => {
    const response = await listing({ linesPerPage: 100, orderBy, direction });

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
  });

  test('direction is accepted in any case', async () => {
    const response = await rawListing('?linesPerPage=100&orderBy=name&direction=asc');

    expect(names(response)).toEqual(byName);
  });
});

describe('searchTerms', () => {
  test.each([
    ['jose', ['José Álvarez']],
    ['JOSÉ álvarez', ['José Álvarez']],
    ['zoe', ['Zoë Zimmer']],
    ['doe', ['Jane Doe', 'John Doe']],
    ['doe globex', ['John Doe']],
    ['globex doe', ['John Doe']],
    ['acme', ['José Álvarez']],
    ['xavier', ['Jane Doe']],
    ['  doe   hooli ', ['Jane Doe']],
    ['doe initech', []],
    ['nobody', []],
  ])('searchTerms=%j: every word must match name, e-mail or company', async (searchTerms, expected) => {
    const response = await listing({ linesPerPage: 100, searchTerms });

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
    expect(response.body.totalElements).toBe(expected.length);
  });

  test('a search term matching every e-mail finds every active user', async () => {
    const response = await listing({ linesPerPage: 100, searchTerms: listed.run });

    expect(response.body.totalElements).toBe(8);
  });

  test('a search without results is an empty page', async () => {
    const response = await listing({ searchTerms: 'nobody' });

    expect(response.body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, numberOfElements: 0, first: true, last: true, empty: true });
  });
});

describe('status', () => {
  test.each([
    ['', ['John Doe']],
    ['&status=ACTIVE', ['John Doe']],
    ['&status=DELETED', ['Mary Major']],
    ['&status=deleted', ['Mary Major']],
    ['&status=ALL', ['Mary Major', 'John Doe']],
  ])('status filter %j', async (status, expected) => {
    const response = await rawListing(`?searchTerms=globex${status}`);

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
  });

  test('a deleted user is listed with status DELETED', async () => {
    const response = await listing({ status: 'DELETED' });

    expect(response.body.content).toEqual([expect.objectContaining({ uuid: listed.users.mary.uuid, status: 'DELETED' })]);
  });
});

describe('bounds', () => {
  test.each([
    'page=-1',
    'page=abc',
    'page=1.5',
    'linesPerPage=0',
    'linesPerPage=101',
    'orderBy=updatedAt',
    'direction=UP',
    'status=GONE',
    'page=-1&linesPerPage=500&orderBy=x&direction=y&status=z',
  ])('%s is 422 naming each parameter', async (query) => {
    expectFieldErrors(await rawListing(`?${query}`), [...new URLSearchParams(query).keys()]);
  });

  test('linesPerPage=100 is the largest page', async () => {
    const response = await listing({ linesPerPage: 100 });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ size: 100, totalPages: 1, numberOfElements: 8 });
  });
});
