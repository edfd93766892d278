import { TEST_PASSWORD } from '../support/auth-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { UUID, type ApiResponse } from '../support/http-client';
import { unique } from '../support/stack';
import {
  createBody,
  createViaApi,
  deleteViaApi,
  freshOrganization,
  listAllUsers,
  mailsTo,
  member,
  onlyMailTo,
  refresh,
  signIn,
  tokenOf,
  uniqueEmail,
  usersApi,
  type TestOrg,
  type UserDto,
  type UserPage,
  expectTemporaryPassword,
  readUser,
} from '../support/user-helpers';

/**
 * The users routes (docs/api/users.md) as an ADMIN uses them: listing, quicksearch, create, read, update,
 * delete and activate, with their validation, e-mails and sign-in effects. Two organizations of the
 * file's own: `listed` holds a fixed set of users for listing and quicksearch assertions and is never
 * changed by a test; `org` is where the tests create, change and delete users.
 */

let org: TestOrg;
let listed: TestOrg;
let run: string;

/** The users of `listed`, by a short name, as the API created them (creation order is this order). */
const people = {
  jose: { name: 'José Álvarez', email: 'pepe', company: 'Acme Corp' },
  john: { name: 'John Doe', email: 'bravo', company: 'Globex' },
  jane: { name: 'Jane Doe', email: 'xavier', company: 'Hooli' },
  zoe: { name: 'Zoë Zimmer', email: 'charlie', company: 'Initech' },
  albert: { name: 'Albert Brown', email: 'mike', company: 'Umbrella' },
  ada: { name: 'Ada Lovelace', email: 'echo', company: 'Analytical Engines' },
  alan: { name: 'Alan Turing', email: 'golf', company: 'Bletchley Park' },
  mary: { name: 'Mary Major', email: 'delta', company: 'Globex' },
};
const listedUsers = {} as Record<keyof typeof people, UserDto>;

beforeAll(async () => {
  run = unique();
  [org, listed] = await Promise.all([
    freshOrganization(),
    freshOrganization({ adminName: 'Olga Admin', adminEmail: `kilo.${run}@example.test` }),
  ]);
  // One after the other, so that creation order (the default sort) is the order above.
  for (const [key, person] of Object.entries(people)) {
    listedUsers[key as keyof typeof people] = await createViaApi(listed, {
      name: person.name,
      email: `${person.email}.${run}@example.test`,
      company: person.company,
    });
  }
  await deleteViaApi(listed, listedUsers.mary.uuid);
});

const names = (page: ApiResponse<UserPage>) => page.body.content.map((user) => user.name);
const listing = (query = '') => listed.admin.api.get<UserPage>(listed.url(query));
const quicksearch = (query: string) => listed.admin.api.get<string[]>(listed.url(`/quicksearch${query}`));

// ---------------------------------------------------------------------------------------------------
describe('GET /users (listing)', () => {
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
    const response = await listing(`?searchTerms=${encodeURIComponent('Jane')}`);

    expect(response.body.content).toEqual([
      {
        uuid: listedUsers.jane.uuid,
        orgUUID: listed.orgUuid,
        name: 'Jane Doe',
        email: `xavier.${run}@example.test`,
        image: null,
        company: 'Hooli',
        admin: false,
        role: 'VIEWER',
        permissions: [{ environmentUuid: listed.envA, botUuid: listed.botA1 }],
        status: 'ACTIVE',
        createdAt: listedUsers.jane.createdAt,
      },
    ]);
  });

  test('pages are 0-based: page 1 is the last, page 2 is empty', async () => {
    const second = await listing('?page=1');
    const beyond = await listing('?page=2');

    expect(names(second)).toEqual(['John Doe', 'José Álvarez', 'Olga Admin']);
    expect(second.body).toMatchObject({ number: 1, first: false, last: true, empty: false, numberOfElements: 3, totalPages: 2 });
    expect(second.body.pageable).toMatchObject({ pageNumber: 1, pageSize: 5, offset: 5 });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toMatchObject({ content: [], number: 2, first: false, last: true, empty: true, numberOfElements: 0, totalElements: 8 });
  });

  test('linesPerPage sets the page size: 3 per page gives 3 pages', async () => {
    const pages = await Promise.all([0, 1, 2].map((page) => listing(`?linesPerPage=3&page=${page}`)));

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

  const byName = ['Ada Lovelace', 'Alan Turing', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin', 'Zoë Zimmer'];
  const byEmail = ['John Doe', 'Zoë Zimmer', 'Ada Lovelace', 'Alan Turing', 'Olga Admin', 'Albert Brown', 'José Álvarez', 'Jane Doe'];
  const byCompany = ['Olga Admin', 'José Álvarez', 'Ada Lovelace', 'Alan Turing', 'John Doe', 'Jane Doe', 'Zoë Zimmer', 'Albert Brown'];
  const byCreation = ['Olga Admin', 'José Álvarez', 'John Doe', 'Jane Doe', 'Zoë Zimmer', 'Albert Brown', 'Ada Lovelace', 'Alan Turing'];
  test.each([
    ['name', 'ASC', byName],
    ['name', 'DESC', [...byName].reverse()],
    ['email', 'ASC', byEmail],
    ['email', 'DESC', [...byEmail].reverse()],
    ['company', 'ASC', byCompany],
    ['company', 'DESC', [...byCompany].reverse()],
    ['createdAt', 'ASC', byCreation],
    ['createdAt', 'DESC', [...byCreation].reverse()],
  ])('orderBy=%s direction=%s', async (orderBy, direction, expected) => {
    const response = await listing(`?linesPerPage=100&orderBy=${orderBy}&direction=${direction}`);

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
  });

  test('direction is accepted in any case', async () => {
    const response = await listing('?linesPerPage=100&orderBy=name&direction=asc');

    expect(names(response)).toEqual(byName);
  });

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
  ])('searchTerms=%j: every word must match name, e-mail or company', async (terms, expected) => {
    const response = await listing(`?linesPerPage=100&searchTerms=${encodeURIComponent(terms)}`);

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
    expect(response.body.totalElements).toBe(expected.length);
  });

  test('a search term matching every e-mail finds every active user', async () => {
    const response = await listing(`?linesPerPage=100&searchTerms=${run}`);

    expect(response.body.totalElements).toBe(8);
  });

  test('a search without results is an empty page', async () => {
    const response = await listing('?searchTerms=nobody');

    expect(response.body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, numberOfElements: 0, first: true, last: true, empty: true });
  });

  test.each([
    ['', ['John Doe']],
    ['&status=ACTIVE', ['John Doe']],
    ['&status=DELETED', ['Mary Major']],
    ['&status=deleted', ['Mary Major']],
    ['&status=ALL', ['Mary Major', 'John Doe']],
  ])('status filter %j', async (status, expected) => {
    const response = await listing(`?searchTerms=globex${status}`);

    expect(response.status).toBe(200);
    expect(names(response)).toEqual(expected);
  });

  test('a deleted user is listed with status DELETED', async () => {
    const response = await listing('?status=DELETED');

    expect(response.body.content).toEqual([expect.objectContaining({ uuid: listedUsers.mary.uuid, status: 'DELETED' })]);
  });

  test.each([
    ['page=-1', ['page']],
    ['page=abc', ['page']],
    ['page=1.5', ['page']],
    ['linesPerPage=0', ['linesPerPage']],
    ['linesPerPage=101', ['linesPerPage']],
    ['orderBy=updatedAt', ['orderBy']],
    ['direction=UP', ['direction']],
    ['status=GONE', ['status']],
    ['page=-1&linesPerPage=500&orderBy=x&direction=y&status=z', ['page', 'linesPerPage', 'orderBy', 'direction', 'status']],
  ])('%s is 422 naming the field', async (query, fields) => {
    expectFieldErrors(await listing(`?${query}`), fields);
  });

  test('linesPerPage=100 is the largest page', async () => {
    const response = await listing('?linesPerPage=100');

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ size: 100, totalPages: 1, numberOfElements: 8 });
  });
});

// ---------------------------------------------------------------------------------------------------
describe('GET /users/quicksearch', () => {
  test.each([
    ['jdo', ['Jane Doe', 'John Doe']],
    ['doj', []],
    ['JOSE', ['José Álvarez']],
    ['alv', ['Ada Lovelace', 'José Álvarez']],
    ['álv', ['Ada Lovelace', 'José Álvarez']],
    ['j d', ['Jane Doe', 'John Doe']],
    ['maj', []],
  ])('name=%j answers the matching active names alphabetically', async (term, expected) => {
    const response = await quicksearch(`?name=${encodeURIComponent(term)}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual(expected);
  });

  test('answers at most 6 names by default, the first alphabetically (deleted users never)', async () => {
    // `o` is in 7 active names and in the deleted Mary Major's, who would come sixth.
    const response = await quicksearch('?name=o');

    expect(response.body).toEqual(['Ada Lovelace', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin']);
  });

  test('limit sets the count, up to 50', async () => {
    const two = await quicksearch('?name=o&limit=2');
    const fifty = await quicksearch('?name=o&limit=50');

    expect(two.body).toEqual(['Ada Lovelace', 'Albert Brown']);
    expect(fifty.body).toEqual(['Ada Lovelace', 'Albert Brown', 'Jane Doe', 'John Doe', 'José Álvarez', 'Olga Admin', 'Zoë Zimmer']);
  });

  test.each([
    ['?name=o&limit=51', ['limit']],
    ['?name=o&limit=0', ['limit']],
    ['?name=o&limit=x', ['limit']],
    ['', ['name']],
    ['?limit=3', ['name']],
  ])('%j is 422 naming the field', async (query, fields) => {
    expectFieldErrors(await quicksearch(query), fields);
  });

  test('a missing name is reported as required', async () => {
    const [detail] = expectFieldErrors(await quicksearch(''), ['name']);

    expect(detail!.errorCode).toBe('FIELD_REQUIRED');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('POST /users (create)', () => {
  const signInStatus = async (email: string, password: string) => (await signIn(org.realm, email, password)).status;

  test('creates a user that can sign in, answers the User, and GET reads it back', async () => {
    const email = uniqueEmail('created');
    const body = createBody(org, {
      name: '  Carla Created ',
      email,
      image: 'https://images.example.test/carla.png',
      company: 'Initech',
      role: 'EDITOR',
      permissions: [
        { environmentUuid: org.envA, botUuid: org.botA1 },
        { environmentUuid: org.envB, botUuid: org.botB1 },
      ],
    });

    const response = await org.admin.api.post(org.url(), body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      uuid: expect.stringMatching(UUID),
      orgUUID: org.orgUuid,
      name: 'Carla Created',
      email,
      image: 'https://images.example.test/carla.png',
      company: 'Initech',
      admin: false,
      role: 'EDITOR',
      permissions: [
        { environmentUuid: org.envA, botUuid: org.botA1 },
        { environmentUuid: org.envB, botUuid: org.botB1 },
      ],
      status: 'ACTIVE',
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(response.body.createdAt) - Date.now())).toBeLessThan(60_000);
    const read = await org.admin.api.get(org.url(`/${response.body.uuid}`));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
    expect(await signInStatus(email, TEST_PASSWORD)).toBe(200);
    expect(await signInStatus(email, 'Wrong-Passw0rd')).toBe(400);
  });

  test('the welcome e-mail (English by default) names the user, the organization, the sign-in e-mail and the given password', async () => {
    const email = uniqueEmail('welcome-en');
    const password = `Given-${unique()}1`;

    await createViaApi(org, { name: 'Wendy Welcome', email, password, confirmPassword: password });

    const mail = await onlyMailTo(email);
    expect(mail.subject).toContain(org.realm);
    expect(mail.subject).toMatch(/account/i);
    expect(mail.body.text).toContain('Hello Wendy Welcome');
    expect(mail.body.text).toContain(email);
    expect(mail.body.text).toContain(password);
    expect(mail.body.html).toContain('<html lang="en">');
    expect(mail.body.html).toContain(email);
    expect(mail.body.html).toContain(password);
  });

  test('the language header chooses the e-mail language (any case); each language has its own subject', async () => {
    const run = unique();
    const emails = { en: `lang-en-${run}@example.test`, es: `lang-es-${run}@example.test`, ja: `lang-ja-${run}@example.test`, pt: `lang-pt-${run}@example.test` };

    await createViaApi(org, { name: 'Lena English', email: emails.en }, { language: 'en' });
    await createViaApi(org, { name: 'Lucía Española', email: emails.es }, { language: 'ES' });
    await createViaApi(org, { name: 'Rei Nihon', email: emails.ja }, { language: 'ja' });
    await createViaApi(org, { name: 'Luís Português', email: emails.pt }, { language: ' pt ' });

    const [en, es, ja, pt] = await Promise.all([emails.en, emails.es, emails.ja, emails.pt].map(onlyMailTo));
    expect(new Set([en!.subject, es!.subject, ja!.subject, pt!.subject]).size).toBe(4);
    for (const mail of [en!, es!, ja!, pt!]) expect(mail.subject).toContain(org.realm);
    expect(es!.subject).toMatch(/cuenta/);
    expect(es!.body.text).toContain('Hola, Lucía Española');
    expect(es!.body.text).toContain(emails.es);
    expect(es!.body.html).toContain('<html lang="es">');
    expect(ja!.body.text).toContain('Rei Nihon');
    expect(ja!.body.html).toContain('<html lang="ja">');
    expect(pt!.body.text).toContain('Luís Português');
    expect(pt!.body.html).toContain('<html lang="pt">');
  });

  test('without a password, a 16-character temporary one meeting the policy is generated and mailed', async () => {
    const email = uniqueEmail('generated');

    const created = await createViaApi(org, { email, password: undefined, confirmPassword: undefined });

    const mail = await onlyMailTo(email);
    const password = /Temporary password: (\S+)/.exec(mail.body.text ?? '')?.[1];
    expect(password).toHaveLength(16);
    expect(password).toMatch(/\p{Lu}/u);
    expect(password).toMatch(/\p{Ll}/u);
    expect(password).toMatch(/[^\p{L}]/u);
    expect(mail.body.html).toContain(password!);
    // It is the user's password, good only for choosing one of its own on the account page.
    await expectTemporaryPassword(org.realm, email, password!);
    expect((await readUser(org, created.uuid)).email).toBe(email);
  });

  test('admin: true without a role makes an ADMIN with no permissions, who administers users', async () => {
    const email = uniqueEmail('new-admin');

    const created = await createViaApi(org, { email, role: undefined, admin: true, permissions: undefined });

    expect(created).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
    const token = await tokenOf(org.realm, email, TEST_PASSWORD);
    expect((await usersApi(token.access_token).get<UserPage>(org.url())).status).toBe(200);
  });

  test('role ADMIN with admin: true is an ADMIN', async () => {
    const created = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });

    expect(created).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
  });

  test('a SUPERVISOR may be granted a whole environment or one bot', async () => {
    const created = await createViaApi(org, {
      role: 'SUPERVISOR',
      admin: false,
      permissions: [{ environmentUuid: org.envA }, { environmentUuid: org.envB, botUuid: org.botB1 }],
    });

    expect(created).toMatchObject({
      role: 'SUPERVISOR',
      admin: false,
      permissions: [{ environmentUuid: org.envA }, { environmentUuid: org.envB, botUuid: org.botB1 }],
    });
  });

  test('an empty company or image is stored as none', async () => {
    const created = await createViaApi(org, { company: '', image: '  ' });

    expect(created).toMatchObject({ company: null, image: null });
  });

  test('a 6-character password with a special character instead of a digit meets the policy', async () => {
    const email = uniqueEmail('special');

    await createViaApi(org, { email, password: 'Abcde!', confirmPassword: 'Abcde!' });

    expect(await signInStatus(email, 'Abcde!')).toBe(200);
  });

  const invalidBodies: [string, (o: TestOrg) => Record<string, unknown>, string[]][] = [
    ['no name', () => ({ name: undefined }), ['name']],
    ['a blank name', () => ({ name: '   ' }), ['name']],
    ['no e-mail', () => ({ email: undefined }), ['email']],
    ['an invalid e-mail', () => ({ email: 'not-an-email' }), ['email']],
    ['an unknown field', () => ({ nickname: 'x' }), ['nickname']],
    ['an unknown role', () => ({ role: 'OWNER' }), ['role']],
    ['no role and no admin flag', () => ({ role: undefined }), ['role']],
    ['admin: false and no role', () => ({ role: undefined, admin: false }), ['role']],
    ['role ADMIN with admin: false', () => ({ role: 'ADMIN', admin: false, permissions: [] }), ['admin']],
    ['role VIEWER with admin: true', () => ({ admin: true }), ['admin']],
    ['an ADMIN with permissions', (o) => ({ role: 'ADMIN', permissions: [{ environmentUuid: o.envA }] }), ['permissions']],
    ['a SUPERVISOR without permissions', () => ({ role: 'SUPERVISOR', permissions: [] }), ['permissions']],
    ['a SUPERVISOR with no permissions field', () => ({ role: 'SUPERVISOR', permissions: undefined }), ['permissions']],
    ['an EDITOR without permissions', () => ({ role: 'EDITOR', permissions: [] }), ['permissions']],
    ['a VIEWER with no permissions field', () => ({ permissions: undefined }), ['permissions']],
    ['an EDITOR granted a whole environment', (o) => ({ role: 'EDITOR', permissions: [{ environmentUuid: o.envA }] }), ['permissions.0.botUuid']],
    [
      'a VIEWER whose second grant names no bot',
      (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botA1 }, { environmentUuid: o.envB }] }),
      ['permissions.1.botUuid'],
    ],
    ['an unknown environment', (o) => ({ permissions: [{ environmentUuid: crypto.randomUUID(), botUuid: o.botA1 }] }), ['permissions.0.environmentUuid']],
    ['an inactive environment', (o) => ({ role: 'SUPERVISOR', permissions: [{ environmentUuid: o.inactiveEnv }] }), ['permissions.0.environmentUuid']],
    ['an unknown bot', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: crypto.randomUUID() }] }), ['permissions.0.botUuid']],
    ['an inactive bot', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.inactiveBot }] }), ['permissions.0.botUuid']],
    ['a bot of another environment', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botB1 }] }), ['permissions.0.botUuid']],
    ['an environment that is not a uuid', () => ({ role: 'SUPERVISOR', permissions: [{ environmentUuid: 'env-1' }] }), ['permissions.0.environmentUuid']],
    ['a password shorter than 6', () => ({ password: 'Ab1!x', confirmPassword: 'Ab1!x' }), ['password']],
    ['a password without upper case', () => ({ password: 'abcdef1', confirmPassword: 'abcdef1' }), ['password']],
    ['a password without lower case', () => ({ password: 'ABCDEF1', confirmPassword: 'ABCDEF1' }), ['password']],
    ['a password of letters only', () => ({ password: 'Abcdefgh', confirmPassword: 'Abcdefgh' }), ['password']],
    ['a confirmPassword that differs', () => ({ confirmPassword: 'Other-Passw0rd' }), ['confirmPassword']],
    ['a password without confirmPassword', () => ({ confirmPassword: undefined }), ['confirmPassword']],
    ['a confirmPassword without password', () => ({ password: undefined }), ['password']],
  ];
  test.each(invalidBodies)('%s is 422 naming the field, and creates nothing', async (_what, overrides, fields) => {
    const email = uniqueEmail('invalid');
    const body = createBody(org, { email, ...overrides(org) });

    const response = await org.admin.api.post(org.url(), body);

    expectFieldErrors(response, fields);
    expect(await mailsTo(email)).toEqual([]);
    if (typeof body.email === 'string' && body.email === email) {
      // The e-mail was not taken: a valid create with it succeeds.
      await createViaApi(org, { email });
    }
  });

  test('a grant the template requires is reported as FIELD_REQUIRED, a bad reference as FIELD_INVALID', async () => {
    const required = await org.admin.api.post(org.url(), createBody(org, { role: 'EDITOR', permissions: [{ environmentUuid: org.envA }] }));
    const invalid = await org.admin.api.post(org.url(), createBody(org, { permissions: [{ environmentUuid: org.envA, botUuid: org.botB1 }] }));

    expect(expectFieldErrors(required, ['permissions.0.botUuid'])[0]!.errorCode).toBe('FIELD_REQUIRED');
    expect(expectFieldErrors(invalid, ['permissions.0.botUuid'])[0]!.errorCode).toBe('FIELD_INVALID');
  });

  test('an environment of another organization is not accepted', async () => {
    const other = await freshOrganization();

    const response = await org.admin.api.post(org.url(), createBody(org, { permissions: [{ environmentUuid: other.envA, botUuid: other.botA1 }] }));

    expectFieldErrors(response, ['permissions.0.environmentUuid']);
  });

  test.each(['fr', 'english', 'e n'])('language %j is 422 naming the header, and creates and mails nothing', async (language) => {
    const email = uniqueEmail('bad-language');

    const response = await org.admin.api.post(org.url(), createBody(org, { email }), { language });

    expectFieldErrors(response, ['language']);
    expect(await mailsTo(email)).toEqual([]);
    await createViaApi(org, { email });
  });

  test('an e-mail already in use is 409 EMAIL_TAKEN whatever its case, and nothing is mailed', async () => {
    const email = uniqueEmail('Taken');
    const first = await createViaApi(org, { email });

    const again = await org.admin.api.post(org.url(), createBody(org, { email, name: 'Second' }));
    const upper = await org.admin.api.post(org.url(), createBody(org, { email: email.toUpperCase(), name: 'Third' }));

    expectError(again, 409, 'EMAIL_TAKEN');
    expectError(upper, 409, 'EMAIL_TAKEN');
    expect(await mailsTo(email)).toHaveLength(1);
    const found = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}&status=ALL`);
    expect(found.map((user) => user.uuid)).toEqual([first.uuid]);
  });

  test("a deleted user's e-mail stays taken", async () => {
    const email = uniqueEmail('deleted-taken');
    const first = await createViaApi(org, { email });
    await deleteViaApi(org, first.uuid);

    const response = await org.admin.api.post(org.url(), createBody(org, { email }));

    expectError(response, 409, 'EMAIL_TAKEN');
  });

  test('a body that is not JSON is 400 MALFORMED_JSON', async () => {
    expectError(await org.admin.api.post(org.url(), '{"name": "Broken",'), 400, 'MALFORMED_JSON');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('GET /users/{userId}', () => {
  test('an ADMIN reads a deleted user, with status DELETED', async () => {
    const created = await createViaApi(org);
    await deleteViaApi(org, created.uuid);

    const response = await org.admin.api.get(org.url(`/${created.uuid}`));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...created, status: 'DELETED' });
  });

  test('an unknown user is 404', async () => {
    expectError(await org.admin.api.get(org.url(`/${crypto.randomUUID()}`)), 404, 'NOT_FOUND');
  });

  test('a userId that is not a uuid is an unknown user: 404', async () => {
    expectError(await org.admin.api.get(org.url('/not-a-uuid')), 404, 'NOT_FOUND');
  });

  test('a userId in upper case names the same user', async () => {
    const response = await org.admin.api.get(org.url(`/${org.admin.uuid.toUpperCase()}`));

    expect(response.status).toBe(200);
    expect(response.body.uuid).toBe(org.admin.uuid);
  });

  test('the ADMIN reads itself', async () => {
    const response = await org.admin.api.get(org.url(`/${org.admin.uuid}`));

    expect(response.body).toMatchObject({ uuid: org.admin.uuid, email: org.admin.email, role: 'ADMIN', admin: true, permissions: [] });
  });
});

// ---------------------------------------------------------------------------------------------------
describe('PUT /users/{userId} (update)', () => {
  const update = (uuid: string, body: Record<string, unknown>) => org.admin.api.put(org.url(`/${uuid}`), body);
  const read = async (uuid: string) => (await org.admin.api.get(org.url(`/${uuid}`))).body;

  test('changes name, image and company; answers and stores the User', async () => {
    const user = await createViaApi(org, { company: 'Old Co', image: 'https://img.example.test/old.png' });

    const response = await update(user.uuid, { name: 'Renamed', email: user.email, company: 'New Co', image: 'https://img.example.test/new.png' });

    expect(response.status).toBe(200);
    const expected = { ...user, name: 'Renamed', company: 'New Co', image: 'https://img.example.test/new.png' };
    expect(response.body).toEqual(expected);
    expect(await read(user.uuid)).toEqual(expected);
  });

  test('image and company left out stay; role and permissions left out stay', async () => {
    const user = await createViaApi(org, { company: 'Keep Co', image: 'https://img.example.test/keep.png', role: 'EDITOR' });

    const response = await update(user.uuid, { name: 'Only Name', email: user.email });

    expect(response.status).toBe(200);
    expect(await read(user.uuid)).toEqual({ ...user, name: 'Only Name' });
  });

  test.each([null, ''])('image and company set to %j are cleared', async (value) => {
    const user = await createViaApi(org, { company: 'Gone Co', image: 'https://img.example.test/gone.png' });

    const response = await update(user.uuid, { name: user.name, email: user.email, company: value, image: value });

    expect(response.body).toMatchObject({ company: null, image: null });
    expect(await read(user.uuid)).toMatchObject({ company: null, image: null });
  });

  test('the User read back is accepted as a body; its response-only fields are ignored', async () => {
    const user = await createViaApi(org);
    const other = await createViaApi(org);
    const body = {
      ...(await read(user.uuid)),
      name: 'Round Trip',
      uuid: other.uuid,
      orgUUID: crypto.randomUUID(),
      createdAt: '2000-01-01T00:00:00.000Z',
      status: 'DELETED',
    };

    const response = await update(user.uuid, body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...user, name: 'Round Trip' });
    expect(await read(other.uuid)).toEqual(other);
  });

  test('changes role and permissions', async () => {
    const user = await createViaApi(org);

    const response = await update(user.uuid, {
      name: user.name,
      email: user.email,
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: org.envB }],
    });

    expect(response.body).toMatchObject({ role: 'SUPERVISOR', admin: false, permissions: [{ environmentUuid: org.envB }] });
    expect(await read(user.uuid)).toMatchObject({ role: 'SUPERVISOR', permissions: [{ environmentUuid: org.envB }] });
  });

  test('a role change keeps the current permissions when they suit the new role', async () => {
    const user = await createViaApi(org, { role: 'VIEWER' });

    const response = await update(user.uuid, { name: user.name, email: user.email, role: 'EDITOR' });

    expect(response.body).toMatchObject({ role: 'EDITOR', permissions: user.permissions });
  });

  test('admin: true promotes to ADMIN (permissions dropped), who may then list users; a demotion needs grants', async () => {
    const email = uniqueEmail('promoted');
    const user = await createViaApi(org, { email });
    const before = await tokenOf(org.realm, email, TEST_PASSWORD);
    expect((await usersApi(before.access_token).get(org.url())).status).toBe(403);

    const promoted = await update(user.uuid, { name: user.name, email, admin: true });
    const demotedWithout = await update(user.uuid, { name: user.name, email, role: 'VIEWER' });

    expect(promoted.body).toMatchObject({ role: 'ADMIN', admin: true, permissions: [] });
    expect((await usersApi(before.access_token).get(org.url())).status).toBe(200);
    expectFieldErrors(demotedWithout, ['permissions']);
    const demoted = await update(user.uuid, { name: user.name, email, role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA2 }] });
    expect(demoted.body).toMatchObject({ role: 'VIEWER', admin: false });
    expect((await usersApi(before.access_token).get(org.url())).status).toBe(403);
  });

  test('changes the e-mail: the user signs in with the new one only, and the old one is free for a new user', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const user = await createViaApi(org, { email: oldEmail });

    const response = await update(user.uuid, { name: user.name, email: newEmail });

    expect(response.status).toBe(200);
    expect(response.body.email).toBe(newEmail);
    expect((await signIn(org.realm, newEmail, TEST_PASSWORD)).status).toBe(200);
    expect((await signIn(org.realm, oldEmail, TEST_PASSWORD)).status).toBe(400);
    const reuse = await createViaApi(org, { email: oldEmail, name: 'Reuser' });
    expect(reuse.uuid).not.toBe(user.uuid);
    const listedNew = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(newEmail)}`);
    expect(listedNew.map((u) => u.uuid)).toEqual([user.uuid]);
  });

  test('a change of e-mail case only is allowed and keeps the user signing in', async () => {
    const email = uniqueEmail('case');
    const user = await createViaApi(org, { email });

    const response = await update(user.uuid, { name: user.name, email: email.toUpperCase() });

    expect(response.status).toBe(200);
    expect(response.body.email).toBe(email.toUpperCase());
    expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(200);
  });

  test("another user's e-mail (any case), active or deleted, is 409 EMAIL_TAKEN and changes nothing", async () => {
    const user = await createViaApi(org);
    const holder = await createViaApi(org);
    const deletedHolder = await createViaApi(org);
    await deleteViaApi(org, deletedHolder.uuid);

    const active = await update(user.uuid, { name: 'Changed?', email: holder.email.toUpperCase() });
    const deleted = await update(user.uuid, { name: 'Changed?', email: deletedHolder.email });

    expectError(active, 409, 'EMAIL_TAKEN');
    expectError(deleted, 409, 'EMAIL_TAKEN');
    expect(await read(user.uuid)).toEqual(user);
    expect((await signIn(org.realm, holder.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('a new password signs in, the old one no longer does, and earlier refresh tokens are revoked', async () => {
    const email = uniqueEmail('password');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);
    const newPassword = `New-${unique()}9`;

    const response = await update(user.uuid, { name: user.name, email, password: newPassword, confirmPassword: newPassword });

    expect(response.status).toBe(200);
    expect(response.text).not.toContain(newPassword);
    expect((await signIn(org.realm, email, newPassword)).status).toBe(200);
    expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(400);
    expect((await refresh(org.realm, session.refresh_token)).status).toBe(400);
  });

  test('an update without password keeps the refresh sessions', async () => {
    const email = uniqueEmail('keep-session');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);

    await update(user.uuid, { name: 'Still Signed In', email });

    expect((await refresh(org.realm, session.refresh_token)).status).toBe(200);
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['no name', { name: undefined }, ['name']],
    ['no e-mail', { email: undefined }, ['email']],
    ['an invalid e-mail', { email: 'nope' }, ['email']],
    ['a weak password', { password: 'weak', confirmPassword: 'weak' }, ['password']],
    ['passwords that differ', { password: TEST_PASSWORD, confirmPassword: 'Other-Passw0rd' }, ['confirmPassword']],
    ['an unknown role', { role: 'ROOT' }, ['role']],
    ['an unknown field', { nickname: 'x' }, ['nickname']],
  ])('%s is 422 naming the field', async (_what, overrides, fields) => {
    const user = await createViaApi(org);

    const response = await update(user.uuid, { name: user.name, email: user.email, ...overrides });

    expectFieldErrors(response, fields);
    expect(await read(user.uuid)).toEqual(user);
  });

  test('grants are checked like on create', async () => {
    const user = await createViaApi(org);

    const response = await update(user.uuid, { name: user.name, email: user.email, permissions: [{ environmentUuid: org.envB, botUuid: org.botA1 }] });
    const bare = await update(user.uuid, { name: user.name, email: user.email, role: 'EDITOR', permissions: [{ environmentUuid: org.envA }] });

    expectFieldErrors(response, ['permissions.0.botUuid']);
    expectFieldErrors(bare, ['permissions.0.botUuid']);
    expect(await read(user.uuid)).toEqual(user);
  });

  test('a deleted user is 409 USER_DELETED', async () => {
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);

    expectError(await update(user.uuid, { name: 'Ghost', email: user.email }), 409, 'USER_DELETED');
    expect(await read(user.uuid)).toEqual({ ...user, status: 'DELETED' });
  });

  test('an unknown user is 404', async () => {
    expectError(await update(crypto.randomUUID(), { name: 'Nobody', email: uniqueEmail() }), 404, 'NOT_FOUND');
  });

  test('the ADMIN updates its own name but not its own role (403)', async () => {
    const other = await freshOrganization();
    const self = (path = '') => other.url(`/${other.admin.uuid}${path}`);

    const renamed = await other.admin.api.put(self(), { name: 'Renamed Admin', email: other.admin.email, role: 'ADMIN', admin: true });
    const demoted = await other.admin.api.put(self(), {
      name: 'Renamed Admin',
      email: other.admin.email,
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: other.envA }],
    });

    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed Admin', role: 'ADMIN' });
    expectError(demoted, 403, 'FORBIDDEN');
    expect((await other.admin.api.get(self())).body).toMatchObject({ name: 'Renamed Admin', role: 'ADMIN' });
  });
});

// ---------------------------------------------------------------------------------------------------
describe('DELETE /users/{userId}', () => {
  test('204 without a body; the record stays as DELETED; the user loses access at once', async () => {
    const email = uniqueEmail('deleted');
    const user = await createViaApi(org, { email });
    const session = await tokenOf(org.realm, email, TEST_PASSWORD);
    const client = usersApi(session.access_token);
    expect((await client.get(org.url(`/${user.uuid}`))).status).toBe(200);

    const response = await org.admin.api.delete(org.url(`/${user.uuid}`));

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await org.admin.api.get(org.url(`/${user.uuid}`))).body).toEqual({ ...user, status: 'DELETED' });
    expectError(await client.get(org.url(`/${user.uuid}`)), 401, 'UNAUTHENTICATED');
    expect((await refresh(org.realm, session.refresh_token)).status).toBe(400);
    expect((await signIn(org.realm, email, TEST_PASSWORD)).status).toBe(400);
    const active = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}`);
    const deleted = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(email)}&status=DELETED`);
    expect(active).toEqual([]);
    expect(deleted.map((u) => u.uuid)).toEqual([user.uuid]);
  });

  test('a deleted user is gone from the quicksearch', async () => {
    const name = `Quick Gone ${unique()}`;
    const user = await createViaApi(org, { name });
    const quick = () => org.admin.api.get<string[]>(org.url(`/quicksearch?name=${encodeURIComponent(name)}`));
    expect((await quick()).body).toEqual([name]);

    await deleteViaApi(org, user.uuid);

    expect((await quick()).body).toEqual([]);
  });

  test('an ADMIN deletes another ADMIN', async () => {
    const other = await createViaApi(org, { role: 'ADMIN', admin: true, permissions: [] });

    expect((await org.admin.api.delete(org.url(`/${other.uuid}`))).status).toBe(204);
    expect((await signIn(org.realm, other.email, TEST_PASSWORD)).status).toBe(400);
  });

  test('deleting oneself is 409 SELF_DELETE', async () => {
    expectError(await org.admin.api.delete(org.url(`/${org.admin.uuid}`)), 409, 'SELF_DELETE');
    expect((await org.admin.api.get(org.url(`/${org.admin.uuid}`))).body.status).toBe('ACTIVE');
  });

  test('deleting a deleted user is 409 USER_DELETED', async () => {
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);

    expectError(await org.admin.api.delete(org.url(`/${user.uuid}`)), 409, 'USER_DELETED');
  });

  test('an unknown user is 404', async () => {
    expectError(await org.admin.api.delete(org.url(`/${crypto.randomUUID()}`)), 404, 'NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('PUT /users/activate', () => {
  const activate = (body: Record<string, unknown>, headers?: Record<string, string>) => org.admin.api.put(org.url('/activate'), body, headers);

  async function deletedUser(overrides: Record<string, unknown> = {}) {
    const email = uniqueEmail('activate');
    const user = await createViaApi(org, { email, name: 'Dora Deleted', ...overrides });
    await deleteViaApi(org, user.uuid);
    return user;
  }

  test('restores a deleted user, who signs in again with the old password; mails it in English', async () => {
    const user = await deletedUser();

    const response = await activate({ email: user.email });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...user, status: 'ACTIVE' });
    expect((await org.admin.api.get(org.url(`/${user.uuid}`))).body.status).toBe('ACTIVE');
    const token = await tokenOf(org.realm, user.email, TEST_PASSWORD);
    expect((await usersApi(token.access_token).get(org.url(`/${user.uuid}`))).status).toBe(200);
    const mails = await mailsTo(user.email);
    expect(mails).toHaveLength(2);
    const [welcome, reactivation] = mails as [(typeof mails)[0], (typeof mails)[0]];
    expect(reactivation.subject).not.toBe(welcome.subject);
    expect(reactivation.subject).toContain(org.realm);
    expect(reactivation.body.html).toContain('<html lang="en">');
    expect(reactivation.body.text).toContain('Hello Dora Deleted');
    expect(reactivation.body.text).toContain(user.email);
    expect(reactivation.body.text).not.toContain(TEST_PASSWORD);
    const active = await listAllUsers(org.admin.api, org, `&searchTerms=${encodeURIComponent(user.email)}`);
    expect(active.map((u) => u.uuid)).toEqual([user.uuid]);
  });

  test('with a new password and language pt: the new password signs in, the old does not, the Portuguese e-mail carries it', async () => {
    const user = await deletedUser();
    const password = `Back-${unique()}7`;

    const response = await activate({ email: user.email, password, confirmPassword: password }, { language: 'PT' });

    expect(response.status).toBe(200);
    expect((await signIn(org.realm, user.email, password)).status).toBe(200);
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
    const reactivation = (await mailsTo(user.email))[1]!;
    expect(reactivation.body.html).toContain('<html lang="pt">');
    expect(reactivation.body.text).toContain('Dora Deleted');
    expect(reactivation.body.text).toContain(user.email);
    expect(reactivation.body.text).toContain(password);
  });

  test('applies the other fields given, and finds the user by e-mail in any case', async () => {
    const user = await deletedUser({ company: 'Before Co' });

    const response = await activate({
      email: user.email.toUpperCase(),
      name: 'Dora Back',
      company: 'After Co',
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: org.envB }],
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...user,
      name: 'Dora Back',
      company: 'After Co',
      role: 'SUPERVISOR',
      permissions: [{ environmentUuid: org.envB }],
      status: 'ACTIVE',
    });
  });

  test('an unknown e-mail is 404', async () => {
    expectError(await activate({ email: uniqueEmail('unknown') }), 404, 'NOT_FOUND');
  });

  test('an active user is 409 USER_ACTIVE and gets no e-mail', async () => {
    const user = await createViaApi(org);

    expectError(await activate({ email: user.email }), 409, 'USER_ACTIVE');
    expect(await mailsTo(user.email)).toHaveLength(1);
  });

  test.each<[string, (o: TestOrg) => Record<string, unknown>, Record<string, string>, string[]]>([
    ['no e-mail', () => ({ email: undefined }), {}, ['email']],
    ['a weak password', () => ({ password: 'abc', confirmPassword: 'abc' }), {}, ['password']],
    ['passwords that differ', () => ({ password: TEST_PASSWORD, confirmPassword: 'x' }), {}, ['confirmPassword']],
    ['an unknown language', () => ({}), { language: 'de' }, ['language']],
    ['a bot of another environment', (o) => ({ permissions: [{ environmentUuid: o.envA, botUuid: o.botB1 }] }), {}, ['permissions.0.botUuid']],
    ['an unknown field', () => ({ nickname: 'x' }), {}, ['nickname']],
  ])('%s is 422, and the user stays deleted without an e-mail', async (_what, overrides, headers, fields) => {
    const user = await deletedUser();

    const response = await activate({ email: user.email, ...overrides(org) }, headers);

    expectFieldErrors(response, fields);
    expect((await org.admin.api.get(org.url(`/${user.uuid}`))).body.status).toBe('DELETED');
    expect(await mailsTo(user.email)).toHaveLength(1);
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
  });

  test('a reactivated user can be deleted and reactivated again', async () => {
    const user = await deletedUser();
    expect((await activate({ email: user.email })).status).toBe(200);

    await deleteViaApi(org, user.uuid);
    const again = await activate({ email: user.email }, { language: 'es' });

    expect(again.status).toBe(200);
    const mails = await mailsTo(user.email);
    expect(mails).toHaveLength(3);
    expect(mails[2]!.body.html).toContain('<html lang="es">');
    expect(mails[2]!.body.text).toContain('Hola, Dora Deleted');
  });
});

// ---------------------------------------------------------------------------------------------------
describe('a signed-in user on itself', () => {
  test('updates its own name, company, image and password, and signs in with the new password', async () => {
    const me = await member(org, 'VIEWER');
    const newPassword = `Mine-${unique()}3`;

    const response = await me.api.put(org.url(`/${me.uuid}`), {
      name: 'Self Made',
      email: me.email,
      company: 'Me Inc',
      image: 'https://img.example.test/me.png',
      password: newPassword,
      confirmPassword: newPassword,
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Self Made', company: 'Me Inc', image: 'https://img.example.test/me.png', role: 'VIEWER' });
    expect((await signIn(org.realm, me.email, newPassword)).status).toBe(200);
    expect((await refresh(org.realm, me.refreshToken)).status).toBe(400);
  });
});
