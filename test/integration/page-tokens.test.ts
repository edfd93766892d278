import { ValidationError } from '../../shared/kernel/errors';
import { PAGE_TOKEN_TTL_SECONDS, pageTokenOf, positionOf } from '../../shared/domain/requests/page-token.repository';
import { adminApi, agentBody, agentsUrl, botUrl, createAgent, freshBot, type AgentDto, type FreshBot, type PageDto } from '../support/bot-helpers';
import { expectFieldErrors } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { userArea } from '../support/stack';
import { createViaApi, freshOrganization, type TestOrg, type UserDto, type UserPage } from '../support/user-helpers';

/**
 * Cursor paging beside page numbers (docs/api/README.md#cursor-paging): every listing walked by
 * `pageToken` answers what its numbered pages answer, in the same order and filter; a token is bound
 * to its organization, listing, order and filter, and a token altered or used elsewhere is a 422.
 */

let org: TestOrg;
let other: TestOrg;
let bot: FreshBot;
const admin = adminApi();

beforeAll(async () => {
  [org, other] = await Promise.all([freshOrganization({ adminName: 'Zed Admin' }), freshOrganization()]);
  const names = ['Ana Lima', 'Bruno Costa', 'Carla Dias', 'Davi Nunes', 'Eva Rocha', 'Ana Souza', 'Bruna Alves'];
  for (const name of names) await createViaApi(org, { name });
  bot = await freshBot({ supervisor: false });
  for (const role of ['Echo', 'Alpha', 'Delta', 'Bravo', 'Charlie']) expect((await createAgent(bot, agentBody(bot, { role }))).status).toBe(201);
});

type Paged<T> = PageDto<T> & { nextPageToken: string | null };
const uuids = (items: { uuid: string }[]) => items.map((item) => item.uuid);
const nextLink = (response: ApiResponse) => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

/** Every page of a listing by number (`page` from `first`), then by cursor: the items of each walk and the cursor walk's answers. */
async function walk<T>(get: (url: string) => Promise<ApiResponse<Paged<T>>>, url: (query: string) => string, query: string, first: 0 | 1) {
  const byNumber: T[][] = [];
  for (let page = first; ; page++) {
    const response = await get(url(`${query}&page=${page}`));
    byNumber.push(response.body.content);
    if (response.body.last) break;
  }
  const answers: ApiResponse<Paged<T>>[] = [await get(url(query))];
  while (answers.at(-1)!.body.nextPageToken) answers.push(await get(nextLink(answers.at(-1)!)!));
  return { byNumber, answers, byCursor: answers.map((answer) => answer.body.content) };
}

describe('users', () => {
  const list = (query: string) => org.admin.api.get<Paged<{ uuid: string; name: string; status: string }>>(org.url(`?${query}`));

  test.each([
    ['by name, ascending', 'orderBy=name&direction=ASC&linesPerPage=3'],
    ['by e-mail, descending, all statuses', 'orderBy=email&direction=desc&status=ALL&linesPerPage=2'],
    ['a search, by name', 'searchTerms=ana&orderBy=name&direction=ASC&linesPerPage=1'],
  ])('%s: the cursor walk answers the numbered pages, page for page', async (_, query) => {
    const { byNumber, byCursor, answers } = await walk((url) => org.admin.api.get<Paged<UserDto>>(url), (q) => org.url(`?${q}`), query, 0);

    expect(byNumber.flat().length).toBeGreaterThan(1);
    expect(byCursor.map(uuids)).toEqual(byNumber.map(uuids));
    // The envelope counts as the numbered pages do; the last page has no next.
    expect(answers.map((answer) => [answer.body.number, answer.body.totalElements])).toEqual(byNumber.map((_, i) => [i, answers[0]!.body.totalElements]));
    expect(answers.at(-1)!.body).toMatchObject({ last: true, nextPageToken: null });
    expect(answers.at(-1)!.headers.get('link')).toBeNull();
  });

  test('the search and the order hold on every page: ascending names that match', async () => {
    const { byCursor } = await walk((url) => org.admin.api.get<Paged<UserDto>>(url), (q) => org.url(`?${q}`), 'searchTerms=ana&orderBy=name&direction=ASC&linesPerPage=1', 0);

    expect(byCursor.flat().map((user) => user.name)).toEqual(['Ana Lima', 'Ana Souza']);
  });

  test('the Link header is the full address of the next page: the same query with its pageToken, no page number', async () => {
    const first = await list('orderBy=name&direction=ASC&linesPerPage=3&page=0');
    const link = new URL(nextLink(first)!);

    expect(`${link.origin}${link.pathname}`).toBe(org.url());
    expect(Object.fromEntries(link.searchParams)).toEqual({ orderBy: 'name', direction: 'ASC', linesPerPage: '3', pageToken: first.body.nextPageToken });
    // A numbered page's token leads to the page after it.
    const second = await org.admin.api.get<UserPage>(link.toString());
    expect(uuids(second.body.content)).toEqual(uuids((await list('orderBy=name&direction=ASC&linesPerPage=3&page=1')).body.content));
  });

  test('an altered token is a 422 that says to start from the first page', async () => {
    const token = (await list('linesPerPage=2')).body.nextPageToken!;
    const flipped = `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;

    for (const altered of [flipped, `${token}x`, 'not-a-token', token.split('.')[0]!]) {
      const [detail] = expectFieldErrors(await list(`linesPerPage=2&pageToken=${encodeURIComponent(altered)}`), ['pageToken']);
      expect(detail!.message).toMatch(/start again from the first page, without pageToken/);
    }
  });

  test("another organization's token is a 422 and lists nothing", async () => {
    const token = (await list('linesPerPage=2')).body.nextPageToken!;
    const response = await other.admin.api.get<UserPage>(other.url(`?linesPerPage=2&pageToken=${encodeURIComponent(token)}`));

    expectFieldErrors(response, ['pageToken']);
    expect(response.text).not.toMatch(/Ana|Bruno|Carla/);
  });

  test('a token of another order, filter, page size or listing is a 422', async () => {
    const token = encodeURIComponent((await list('orderBy=name&linesPerPage=2')).body.nextPageToken!);

    for (const query of ['orderBy=email&linesPerPage=2', 'orderBy=name&direction=ASC&linesPerPage=2', 'orderBy=name&linesPerPage=2&status=ALL', 'orderBy=name&linesPerPage=2&searchTerms=ana', 'orderBy=name&linesPerPage=3']) {
      expectFieldErrors(await list(`${query}&pageToken=${token}`), ['pageToken']);
    }
    expectFieldErrors(await org.admin.api.get(userArea(org.orgUuid, `/audit-events?linesPerPage=2&pageToken=${token}`)), ['pageToken']);
  });

  test('page and pageToken together is a 422 on page', async () => {
    const token = encodeURIComponent((await list('linesPerPage=2')).body.nextPageToken!);

    const [detail] = expectFieldErrors(await list(`linesPerPage=2&page=0&pageToken=${token}`), ['page']);
    expect(detail!.message).toMatch(/either page or pageToken/);
  });
});

describe('audit events', () => {
  test('the cursor walk answers the numbered pages, newest first, with a filter', async () => {
    const url = (q: string) => userArea(org.orgUuid, `/audit-events?${q}`);
    const { byNumber, byCursor, answers } = await walk((u) => org.admin.api.get<Paged<{ uuid: string }>>(u), url, `linesPerPage=2&resourceType=USER&actor=${org.admin.uuid}`, 0);

    expect(byNumber.flat().length).toBeGreaterThanOrEqual(7);
    expect(byCursor.map(uuids)).toEqual(byNumber.map(uuids));
    expect(answers.map((answer) => answer.body.totalElements)).toEqual(answers.map(() => byNumber.flat().length));
  });
});

describe('agents and revisions', () => {
  test('agents by role: the cursor walk answers the numbered pages; a token of the supervisors listing is a 422', async () => {
    const { byNumber, byCursor } = await walk((u) => admin.get<Paged<{ uuid: string; role: string }>>(u), (q) => agentsUrl(bot, `?${q}`), 'orderBy=role&direction=ASC&size=2', 1);

    expect(byCursor.flat().map((agent) => agent.role)).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
    expect(byCursor.map(uuids)).toEqual(byNumber.map(uuids));
    const token = encodeURIComponent((await admin.get<Paged<unknown>>(agentsUrl(bot, '?orderBy=role&direction=ASC&size=2'))).body.nextPageToken!);
    expectFieldErrors(await admin.get(botUrl(bot, `/supervisors?orderBy=role&direction=ASC&size=2&pageToken=${token}`)), ['pageToken']);
  });

  test('revisions: the cursor walk answers the numbered pages, newest first', async () => {
    const agent = (await admin.get<Paged<{ uuid: string; role: string }>>(agentsUrl(bot, '?orderBy=role&direction=ASC&size=1'))).body.content[0]!;
    const read = (await admin.get<AgentDto>(agentsUrl(bot, `/${agent.uuid}`))).body;
    const body = {
      ...Object.fromEntries(Object.entries(read).filter(([name]) => ['role', 'instructions', 'guardrails', 'inheritFromSupervisor', 'constraints', 'tags', 'parameters'].includes(name) && read[name as keyof AgentDto] !== null)),
      persona: { uuid: read.persona!.uuid },
      functions: [],
      knowledge: [],
    };
    for (const goal of ['one', 'two', 'three', 'four']) {
      const updated = await admin.put(agentsUrl(bot, `/${agent.uuid}`), { ...body, goal });
      expect({ status: updated.status, text: updated.text }).toMatchObject({ status: 200 });
    }
    const { byNumber, byCursor } = await walk((u) => admin.get<Paged<{ revision: number }>>(u), (q) => agentsUrl(bot, `/${agent.uuid}/revisions?${q}`), 'size=2', 1);

    expect(byCursor.flat().map((r) => r.revision)).toEqual([5, 4, 3, 2, 1]);
    expect(byCursor).toEqual(byNumber);
  });
});

describe('the token itself', () => {
  const binding = { listing: 'users.list', owner: '00000000-0000-4000-8000-000000000000', query: { orderBy: 'name', linesPerPage: 2 } };

  test('reads back the position it was made for, whatever the order of the query parameters', async () => {
    const token = await pageTokenOf(binding, { number: 7, after: 'ana\u00012026#x' });

    await expect(positionOf(token, { ...binding, query: { linesPerPage: 2, orderBy: 'name' } })).resolves.toEqual({ number: 7, after: 'ana\u00012026#x' });
  });

  test(`expires after ${PAGE_TOKEN_TTL_SECONDS / 3600} hours, with a 422 that says so`, async () => {
    const token = await pageTokenOf(binding, { number: 1, after: 'x' }, Date.now() - PAGE_TOKEN_TTL_SECONDS * 1000 - 1000);

    const refused = await positionOf(token, binding).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details[0]!.message).toMatch(/has expired .* start again from the first page/);
  });
});
