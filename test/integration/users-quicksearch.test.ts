import { expectFieldErrors } from '../support/error-body';
import { listedOrganization, type ListedOrg } from '../support/listed-users';

/**
 * `GET /users/quicksearch` (docs/api/users.md): the names of active users matching a term, over an
 * organization of the file's own whose users no test changes.
 */

let listed: ListedOrg;

beforeAll(async () => {
  listed = await listedOrganization();
});

const quicksearch = (name: string, limit?: number) => listed.org.users.quicksearch({ name, limit });
/** A quicksearch whose query the OpenAPI document refuses (no name, a limit that is no number), sent as written. */
const rawQuicksearch = (query: string) => listed.org.admin.api.get<string[]>(listed.org.url(`/quicksearch${query}`));

test.each([
  ['jdo', ['Jane Doe', 'John Doe']],
  ['doj', []],
  ['JOSE', ['José Álvarez']],
  ['alv', ['Ada Lovelace', 'José Álvarez']],
  ['álv', ['Ada Lovelace', 'José Álvarez']],
  ['j d', ['Jane Doe', 'John Doe']],
  ['maj', []],
])('name=%j answers the matching active names alphabetically', async (term, expected) => {
  const response = await quicksearch(term);

  expect(response.status).toBe(200);
  expect(response.body).toEqual(expected);
});

test('answers at most 6 names by default, the first alphabetically (deleted users never)', async () => {
  // `o` is in 7 active names and in the deleted Mary Major's, who would come sixth.
  const response = await quicksearch('o');

  expect(response.body).toEqual(['Ada Lovelace', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin']);
});

test('limit sets the count, up to 50', async () => {
  const two = await quicksearch('o', 2);
  const fifty = await quicksearch('o', 50);

  expect(two.body).toEqual(['Ada Lovelace', 'Albert Brown']);
  expect(fifty.body).toEqual(['Ada Lovelace', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin', 'Zoë Zimmer']);
});

test.each([
  ['?name=o&limit=51', 'limit'],
  ['?name=o&limit=0', 'limit'],
  ['?name=o&limit=x', 'limit'],
  ['', 'name'],
  ['?limit=3', 'name'],
])('%j is 422 naming %s', async (query, field) => {
  expectFieldErrors(await rawQuicksearch(query), [field]);
});

test('a missing name is reported as required', async () => {
  const [detail] = expectFieldErrors(await rawQuicksearch(''), ['name']);

  expect(detail!.errorCode).toBe('FIELD_REQUIRED');
});
