import { unique } from '../support/stack';
import { createViaApi, freshOrganization, type TestOrg, type UserDto, type UserPage } from '../support/user-helpers';

/**
 * `searchTerms` finds what people type (docs/data-model.md#the-search-rule): a full e-mail finds exactly
 * its user among many whose e-mails begin alike, words joined by punctuation must stand next to each
 * other in that order, and no punctuation is a wildcard. One organization of the file's own.
 */

let org: TestOrg;
let domain: string;
/** Local parts that each extend the one before by a digit: samepre1, samepre12, …, 30 of them. */
const locals = Array.from({ length: 30 }, (_, i) => `samepre${'1234567890'.repeat(3).slice(0, i + 1)}`);
const samePrefix: UserDto[] = [];
let elsewhere: UserDto;

const search = (terms: string, query = '') => org.admin.api.get<UserPage>(org.url(`?searchTerms=${encodeURIComponent(terms)}${query}`));
const namesFound = async (terms: string) => {
  const response = await search(terms, '&linesPerPage=100&orderBy=name&direction=ASC');
  expect(response.status).toBe(200);
  return response.body.content.map((user) => user.name);
};

/** Creates users through the API a few at a time (each is a Cognito user, a transaction and an e-mail). */
async function createAll(bodies: Record<string, unknown>[]): Promise<UserDto[]> {
  const created: UserDto[] = [];
  for (let i = 0; i < bodies.length; i += 8) created.push(...(await Promise.all(bodies.slice(i, i + 8).map((body) => createViaApi(org, body)))));
  return created;
}

beforeAll(async () => {
  org = await freshOrganization({ adminName: 'Sol Admin' });
  domain = `${unique()}.example.test`;
  samePrefix.push(...(await createAll(locals.map((local, i) => ({ name: `Same Prefix ${i + 1}`, email: `${local}@${domain}` })))));
  const [first] = await createAll([
    // The first local part at another domain: its e-mail differs only after the `@`.
    { name: 'Same Elsewhere', email: `${locals[0]}@other.${domain}` },
    // Words beginning with b and c beside it: `abc.b` and `abc%c` are not Abcabc's words next to each other.
    { name: 'Abcabc', email: `abcabc@${domain}`, company: 'Blue Cloud' },
    { name: 'John Doe', email: `jd@${domain}` },
    { name: 'Jo Smith', email: `john.doe@${domain}` },
    { name: 'Doe John', email: `dj@${domain}` },
  ]);
  elsewhere = first!;
});

test('each of 30 users whose e-mails begin alike is found exactly, on the first page, by its full e-mail', async () => {
  const found = await Promise.all(
    samePrefix.map(async (user) => {
      const response = await search(user.email);
      return { email: user.email, status: response.status, total: response.body.totalElements, uuids: response.body.content.map((u) => u.uuid) };
    }),
  );

  expect(found).toEqual(samePrefix.map((user) => ({ email: user.email, status: 200, total: 1, uuids: [user.uuid] })));
});

test('a full e-mail is found in any case, and the same local part at another domain only by its own e-mail', async () => {
  expect((await search(samePrefix[4]!.email.toUpperCase())).body.content.map((u) => u.uuid)).toEqual([samePrefix[4]!.uuid]);
  expect((await search(elsewhere.email)).body.content.map((u) => u.uuid)).toEqual([elsewhere.uuid]);
});

test('a plain word still finds every user with a word it begins', async () => {
  expect((await search(locals[0]!)).body.totalElements).toBe(31);
  expect((await search(locals[28]!)).body.totalElements).toBe(2);
});

test.each(['abc.b', 'abc_b', 'abc%c', 'abc*c', 'abc.abc'])('%j is no wildcard: it does not find Abcabc', async (terms) => {
  expect(await namesFound(terms)).toEqual([]);
});

test.each([
  ['abc', ['Abcabc']],
  ['john.doe', ['Jo Smith', 'John Doe']],
  ['john.do', ['Jo Smith', 'John Doe']],
  ['john_doe', ['Jo Smith', 'John Doe']],
  ['doe.john', ['Doe John']],
  ['john doe', ['Doe John', 'Jo Smith', 'John Doe']],
  ['smith john.doe@', ['Jo Smith']],
])('%j finds %j: joined words stand next to each other in that order, spaced ones anywhere', async (terms, expected) => {
  expect(await namesFound(terms)).toEqual(expected);
});
