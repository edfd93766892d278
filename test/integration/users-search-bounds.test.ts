import { updateItem } from '../../shared/store/table';
import { SHORT_SEARCH_MAX_USERS } from '../../shared/users/user-queries';
import { expectFieldErrors } from '../support/error-body';
import { freshOrganization, type TestOrg } from '../support/user-helpers';
import { keys } from '../../shared/store/keys';

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
