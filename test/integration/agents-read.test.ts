import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SORTED,
  SUMMARY_FIELDS,
  adminApi,
  agentsOf,
  agentsUrl,
  createAgent,
  freshBot,
  listAll,
  minimalAgentBody,
  type AgentDto,
  type FreshBot,
  type PageDto,
} from '../support/bot-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { unique } from '../support/stack';

/**
 * GET /agents/{uuid}, GET /agents (the listing: pages, order, search) and GET /agents/quicksearch.
 * Queries the OpenAPI document does not name as they are (lower-case directions, values out of range) go
 * through the raw client.
 */

const raw = adminApi();

describe('GET /agents/{uuid}', () => {
  let bot: FreshBot;

  beforeAll(async () => {
    bot = await freshBot();
  });

  test('an unknown uuid is a 404', async () => {
    expectError(await agentsOf(bot).get(randomUUID()), 404, 'NOT_FOUND');
  });

  test('a uuid in the path is read without regard to case, as UUIDs are', async () => {
    const agent = await createAgent(bot, minimalAgentBody(bot));

    const response = await agentsOf(bot).get(agent.body.uuid.toUpperCase());

    expect(response.status).toBe(200);
    expect(response.body).toEqual(agent.body);
  });

  test("the bot's supervisor is not an agent: 404", async () => {
    expectError(await agentsOf(bot).get(bot.supervisor!.uuid), 404, 'NOT_FOUND');
  });

  test('an agent of another bot is not found under this bot', async () => {
    const elsewhere = await freshBot();
    const agent = await createAgent(elsewhere, minimalAgentBody(elsewhere));

    expectError(await agentsOf(bot).get(agent.body.uuid), 404, 'NOT_FOUND');
  });
});

/**
 * The listing bot's roles in the order they are created, each with its place in alphabetical order,
 * which ignores case and accents.
 */
const ROLES: [role: string, alphabetical: number][] = [
  ['Réservations', 12],
  ['billing helper', 1],
  ['Claims desk', 2],
  ['delivery tracker', 3],
  ['Escalations', 4],
  ['feedback collector', 5],
  ['Gift cards', 6],
  ['hotel desk', 7],
  ['Invoices', 8],
  ['journey planner', 9],
  ['Order assistant', 11],
  ['loyalty points', 10],
];
const CREATED = ROLES.map(([role]) => role);
const ALPHABETICAL = [...ROLES].sort((a, b) => a[1] - b[1]).map(([role]) => role);

describe('GET /agents (listing) on a bot of 12 agents', () => {
  let listed: FreshBot;
  let vipTag: string;
  const agents: AgentDto[] = [];

  beforeAll(async () => {
    listed = await freshBot();
    vipTag = `#vip${unique()}`;
    for (const [i, role] of CREATED.entries()) {
      const tags = role === 'Gift cards' || role === 'hotel desk' ? [{ name: vipTag }] : [];
      const goal = role === 'Invoices' ? 'Explain the WARRANTY terms on invoices' : `Goal number ${i}`;
      agents.push((await createAgent(listed, minimalAgentBody(listed, { role, goal, tags, inheritFromSupervisor: i % 2 === 0 }))).body);
      // Distinct creation times, so creation order is the createdAt order.
      await sleep(3);
    }
  });

  const listRaw = (query: string) => raw.get<PageDto>(agentsUrl(listed, query));
  const roles = (page: PageDto) => page.content.map((item) => item.role);

  test('defaults to page 1 of 5, most recently updated first, with every Page field', async () => {
    const everything = await listAll(raw, listed, 'agents');

    const response = await agentsOf(listed).list();

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      content: everything.slice(0, 5),
      pageable: { unpaged: false, paged: true, pageNumber: 1, pageSize: 5, offset: 0, sort: SORTED },
      totalElements: 12,
      totalPages: 3,
      numberOfElements: 5,
      size: 5,
      number: 1,
      first: true,
      last: false,
      empty: false,
      sort: SORTED,
      nextPageToken: expect.any(String),
    });
    expect(roles(response.body)).toEqual([...CREATED].reverse().slice(0, 5));
  });

  test('content items are summaries with exactly uuid, role, goal, tags, inheritFromSupervisor, createdAt, updatedAt', async () => {
    const everything = await listAll(raw, listed, 'agents');

    expect(everything).toHaveLength(12);
    for (const item of everything) {
      expect(Object.keys(item).sort()).toEqual(SUMMARY_FIELDS);
      const agent = agents.find((a) => a.uuid === item.uuid)!;
      expect(item).toEqual({
        uuid: agent.uuid,
        role: agent.role,
        goal: agent.goal,
        tags: agent.tags,
        inheritFromSupervisor: agent.inheritFromSupervisor,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        updatedAt: item.createdAt,
      });
    }
  });

  test('page 3 of size 5 holds the last 2 and is last', async () => {
    const response = await agentsOf(listed).list({ page: 3, size: 5 });

    expect(response.body).toMatchObject({ numberOfElements: 2, number: 3, first: false, last: true, empty: false, totalPages: 3 });
    expect(response.body.pageable).toMatchObject({ pageNumber: 3, pageSize: 5, offset: 10 });
    expect(roles(response.body)).toEqual([CREATED[1], CREATED[0]]);
  });

  test('a page past the end is an empty page, not an error', async () => {
    const response = await agentsOf(listed).list({ page: 4, size: 5 });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ content: [], numberOfElements: 0, number: 4, empty: true, last: true, totalElements: 12, totalPages: 3 });
  });

  test.each(['ASC', 'asc', 'Asc'])('orderBy=role direction=%s is alphabetical, ignoring case and accents', async (direction) => {
    const response = await listRaw(`?orderBy=role&direction=${direction}&size=100`);

    expect(response.status).toBe(200);
    expect(roles(response.body)).toEqual(ALPHABETICAL);
  });

  test('orderBy=role DESC is reverse alphabetical', async () => {
    expect(roles((await listRaw('?orderBy=role&direction=desc&size=12')).body)).toEqual([...ALPHABETICAL].reverse());
  });

  test('orderBy=createdAt ASC is creation order, and DESC its reverse', async () => {
    const ascending = await agentsOf(listed).list({ orderBy: 'createdAt', direction: 'ASC', size: 100 });
    const descending = await agentsOf(listed).list({ orderBy: 'createdAt', size: 100 });

    expect(roles(ascending.body)).toEqual(CREATED);
    expect(roles(descending.body)).toEqual([...CREATED].reverse());
  });

  test('pages of a sorted listing follow each other without gaps or repeats', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => agentsOf(listed).list({ orderBy: 'role', direction: 'ASC', size: 5, page })));

    expect(pages.flatMap((page) => roles(page.body))).toEqual(ALPHABETICAL);
  });

  test.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['orderBy=name', 'orderBy'],
    ['orderBy=goal', 'orderBy'],
    ['direction=up', 'direction'],
  ])('%s is a 422 naming %s', async (query, field) => {
    expect(expectFieldErrors(await listRaw(`?${query}`), [field])[0]!.errorCode).toBe('FIELD_INVALID');
  });

  test('a searchTerm over 200 characters is a 422 naming searchTerm', async () => {
    expectFieldErrors(await listRaw(`?searchTerm=${'x'.repeat(201)}`), ['searchTerm']);
  });

  test('several bad parameters are all named at once', async () => {
    expectFieldErrors(await listRaw('?page=0&size=101&orderBy=name&direction=up'), ['page', 'size', 'orderBy', 'direction']);
  });

  test('size=100 is allowed', async () => {
    expect((await agentsOf(listed).list({ size: 100 })).body).toMatchObject({ size: 100, numberOfElements: 12, totalPages: 1, last: true });
  });

  test.each(['reservations', 'RÉSERVATIONS', 'Reserv', 'ÉSERVA'])('searchTerm %j finds the role Réservations', async (term) => {
    const response = await agentsOf(listed).list({ searchTerm: term });

    expect(roles(response.body)).toEqual(['Réservations']);
    expect(response.body.totalElements).toBe(1);
  });

  test('searchTerm matches goals', async () => {
    expect(roles((await agentsOf(listed).list({ searchTerm: 'warranty' })).body)).toEqual(['Invoices']);
  });

  test('searchTerm matches tag names, with or without the hash, in any case', async () => {
    const withHash = await listRaw(`?searchTerm=${encodeURIComponent(vipTag.toUpperCase())}&orderBy=role&direction=asc`);
    const withoutHash = await listRaw(`?searchTerm=${vipTag.slice(1)}&orderBy=role&direction=asc`);

    expect(roles(withHash.body)).toEqual(['Gift cards', 'hotel desk']);
    expect(roles(withoutHash.body)).toEqual(['Gift cards', 'hotel desk']);
  });

  test('a searchTerm that matches nothing is an empty page', async () => {
    expect((await agentsOf(listed).list({ searchTerm: 'nothing-like-this' })).body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, empty: true });
  });

  test('supervisors are not listed as agents', async () => {
    const everything = await listAll(raw, listed, 'agents');

    expect(everything.map((item) => item.uuid)).not.toContain(listed.supervisor!.uuid);
    expect((await agentsOf(listed).list({ searchTerm: 'supervisor' })).body.totalElements).toBe(0);
  });

  describe('quicksearch', () => {
    const quicksearchRaw = (query: string) => raw.get<undefined>(agentsUrl(listed, `/quicksearch${query}`));
    const lines = (response: ApiResponse<unknown>) => (response.text === '' ? [] : response.text.split('\n'));

    test('answers text/plain, the matching roles alphabetically, at most 6 by default', async () => {
      const response = await agentsOf(listed).quicksearch({ name: 'e' });

      expect(response.status).toBe(200);
      expect(response.contentType).toMatch(/^text\/plain/);
      expect(lines(response)).toEqual(['billing helper', 'Claims desk', 'delivery tracker', 'Escalations', 'feedback collector', 'hotel desk']);
    });

    test('answers at most limit roles', async () => {
      expect(lines(await agentsOf(listed).quicksearch({ name: 'e', limit: 3 }))).toEqual(['billing helper', 'Claims desk', 'delivery tracker']);
      expect(lines(await agentsOf(listed).quicksearch({ name: 'e', limit: 50 }))).toHaveLength(10);
    });

    test('matches greedily left to right: "oas" finds Order assistant, the reverse "sao" does not', async () => {
      expect(lines(await agentsOf(listed).quicksearch({ name: 'oas' }))).toEqual(['loyalty points', 'Order assistant']);
      expect(lines(await agentsOf(listed).quicksearch({ name: 'sao' }))).toEqual(['Escalations', 'Réservations']);
    });

    test.each(['reservations', 'RÉSERVATIONS', 'rsrvtns'])('ignores accents and case: %j finds Réservations', async (name) => {
      expect(lines(await agentsOf(listed).quicksearch({ name }))).toEqual(['Réservations']);
    });

    test('no match is an empty body; supervisors are not searched', async () => {
      const response = await agentsOf(listed).quicksearch({ name: 'supervisor' });

      expect(response.status).toBe(200);
      expect(response.text).toBe('');
    });

    test('limit above 50 or below 1 is a 422 naming limit', async () => {
      expectFieldErrors(await quicksearchRaw('?name=e&limit=51'), ['limit']);
      expectFieldErrors(await quicksearchRaw('?name=e&limit=0'), ['limit']);
    });

    test('name is required', async () => {
      expect(expectFieldErrors(await quicksearchRaw(''), ['name'])[0]!.errorCode).toBe('FIELD_REQUIRED');
    });
  });
});
