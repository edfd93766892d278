import { MAX_COMPARISONS, MAX_DEPTH } from '../../shared/app/scim/scim-filter-syntax';
import { bearer } from '../support/auth-helpers';
import { send } from '../support/http-client';
import { ACCESS_EXTENSION, issueScimToken, oktaUser, PATCH_OP, SCIM_ERROR, scimRequest, USER_SCHEMA, type ScimAnswer } from '../support/scim-client';
import { userArea } from '../support/stack';
import { freshOrganization, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The SCIM service provider attacked as the users area is: attribute paths that name object
 * internals, filters built to cost exponential time or to crash the parser, and malformed filters. A
 * refusal is SCIM's 400 with a detail that says what to write, never a JavaScript error; after each
 * attack the process still validates strict bodies and still provisions users.
 */

let org: TestOrg;
let token: string;
const scim = (method: string, path: string, body?: unknown): Promise<ScimAnswer> => scimRequest(org.orgUuid, token, method, path, body);
const filtered = (filter: string, extra = '') => scim('GET', `/Users?filter=${encodeURIComponent(filter)}${extra}`);

beforeAll(async () => {
  org = await freshOrganization();
  ({ token } = await issueScimToken(org, { defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } }));
});

/** The process still works for every organization: a strict body is validated field by field, and a SCIM create succeeds. */
async function expectProcessUnharmed(): Promise<void> {
  const strict = await send<{ details: { fieldName: string }[] }>(userArea(org.orgUuid, '/configurations'), {
    method: 'POST',
    headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'theme', value: 'dark', surplus: 1 }),
  });
  expect(strict.status).toBe(422);
  expect(strict.body.details.map((detail) => detail.fieldName)).toEqual(['surplus']);
  const saved = await send(userArea(org.orgUuid, '/configurations'), {
    method: 'POST',
    headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'theme', value: 'dark' }),
  });
  expect(saved.status).toBeLessThan(300);
  expect((await scim('POST', '/Users', oktaUser(uniqueEmail('canary')))).status).toBe(201);
}

const expectRefused = (answer: ScimAnswer, scimType: string) => {
  expect(answer).toMatchObject({ status: 400, body: { schemas: [SCIM_ERROR], status: '400', scimType } });
  expect(answer.body.detail).not.toMatch(/Cannot read|is not a function|undefined|TypeError|at .*\.js/);
};

describe('paths that name object internals are refused before anything walks them', () => {
  test.each([
    ['a filter', () => filtered('__proto__.pwned eq "1"'), 'invalidFilter'],
    ['a filter, below an attribute', () => filtered('name.__proto__.pwned eq "1"'), 'invalidFilter'],
    ['a filter, through constructor', () => filtered('constructor.prototype.pwned eq "1"'), 'invalidFilter'],
    ['a value filter', () => filtered('emails[__proto__ eq "1"]'), 'invalidFilter'],
    ['attributes', () => scim('GET', '/Users?attributes=__proto__.pwned'), 'invalidPath'],
    ['excludedAttributes', () => scim('GET', `/Users/${org.admin.uuid}?excludedAttributes=constructor.x`), 'invalidPath'],
    ['a PATCH path', () => scim('PATCH', `/Users/${org.admin.uuid}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: '__proto__.pwned', value: '1' }] }), 'invalidPath'],
    ['a PATCH value filter', () => scim('PATCH', `/Users/${org.admin.uuid}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[constructor eq "1"].value', value: 'a@x.test' }] }), 'invalidFilter'],
    ['a PATCH value', () => scim('PATCH', `/Users/${org.admin.uuid}`, JSON.parse(`{"schemas":["${PATCH_OP}"],"Operations":[{"op":"add","value":{"__proto__":{"pwned":"1"}}}]}`)), 'invalidSyntax'],
    ['a User', () => scim('POST', '/Users', JSON.parse(`{"schemas":["${USER_SCHEMA}"],"userName":"x@example.test","__proto__":{"pwned":"1"}}`)), 'invalidSyntax'],
  ])('%s', async (_where, request, scimType) => {
    expectRefused(await request(), scimType);
    await expectProcessUnharmed();
  });
});

describe('filters', () => {
  let ids: string[];
  beforeAll(async () => {
    ids = [];
    for (const given of ['Ana', 'Bruno']) {
      const created = await scim('POST', '/Users', oktaUser(uniqueEmail(given.toLowerCase()), { name: { givenName: given, familyName: 'Lima' } }));
      ids.push(created.body.id);
    }
  });

  test('or groups joined by and are read as written, however many pairs (no expansion)', async () => {
    // 25 pairs: 2^25 groups once expanded into a disjunctive form, 50 comparisons as written.
    const pairs = Array.from({ length: 25 }, (_, i) => `(id eq "${ids[0]}" or id eq "b${i}")`).join(' and ');
    expect(pairs.length).toBeLessThan(2000);
    const found = await filtered(pairs);
    expect(found.status).toBe(200);
    expect(found.body.Resources.map((user: { id: string }) => user.id)).toEqual([ids[0]]);
  });

  test('three or groups on one attribute joined by and', async () => {
    const ana = (await scim('GET', `/Users/${ids[0]}`)).body.userName as string;
    const filter = `(userName eq "${ana}" or userName eq "x@x.test") and (userName eq "${ana}" or userName eq "y@x.test") and (userName eq "${ana}" or userName eq "z@x.test")`;
    const found = await filtered(filter);
    expect(found.status).toBe(200);
    expect(found.body.Resources.map((user: { id: string }) => user.id)).toEqual([ids[0]]);
  });

  test.each([
    'userName eq "x@example.test" and',
    'userName eq "x@example.test" and not',
    'userName eq "x@example.test" or',
    '(userName eq "x@example.test"',
    'userName eq "x@example.test")',
    `userName eq "${'\\'.repeat(40)}`,
    'userName eq "\\q"',
    'emails[type eq "work"',
    'emails[type eq "work"].nope eq "1"',
    'name eq "x"',
    'active co "t"',
    'userName eq unquoted',
    'not userName eq "x@example.test"',
  ])('%j is 400 invalidFilter with a detail that says what to write', async (filter) => {
    expectRefused(await filtered(filter), 'invalidFilter');
  });

  test('past the bounds of comparisons and nesting: 400 invalidFilter', async () => {
    const tooMany = Array.from({ length: MAX_COMPARISONS + 1 }, (_, i) => `userName eq "u${i}@x.test"`).join(' or ');
    const refused = await filtered(tooMany);
    expectRefused(refused, 'invalidFilter');
    expect(refused.body.detail).toContain(`more than ${MAX_COMPARISONS} comparisons`);
    const deep = `${'('.repeat(MAX_DEPTH + 1)}userName eq "a@x.test"${')'.repeat(MAX_DEPTH + 1)}`;
    expect((await filtered(deep)).body.detail).toContain(`deeper than ${MAX_DEPTH}`);
    const withinDepth = `${'not ('.repeat(MAX_DEPTH)}userName pr${')'.repeat(MAX_DEPTH)}`;
    expect((await filtered(withinDepth)).status).toBe(200);
  });

  test('attribute lists name attributes of the schema: others are 400 invalidPath; the extension and sub-attributes are selected', async () => {
    for (const query of ['attributes=foo.bar', 'excludedAttributes=constructor.x', 'attributes=emails.nope']) {
      const refused = await scim('GET', `/Users/${ids[0]}?${query}`);
      expectRefused(refused, 'invalidPath');
    }
    const selected = await scim('GET', `/Users/${ids[0]}?attributes=emails.value,name.givenName,${ACCESS_EXTENSION}:role`);
    expect(selected.status).toBe(200);
    expect(selected.body).toEqual({
      schemas: [USER_SCHEMA, ACCESS_EXTENSION],
      id: ids[0],
      emails: [{ value: expect.stringMatching(/^ana-/) }],
      name: { givenName: 'Ana' },
      [ACCESS_EXTENSION]: { role: 'VIEWER' },
    });
  });
});

describe('discovery documents one by one', () => {
  test('GET /Schemas/{id} and /ResourceTypes/{id} answer the one resource; another id is 404 noTarget', async () => {
    const user = await scim('GET', `/Schemas/${USER_SCHEMA}`);
    expect(user).toMatchObject({ status: 200, body: { id: USER_SCHEMA, attributes: expect.any(Array) } });
    expect((await scim('GET', `/Schemas/${ACCESS_EXTENSION}`)).body).toMatchObject({ id: ACCESS_EXTENSION, attributes: [{ name: 'role' }, { name: 'permissions' }] });
    expect((await scim('GET', '/ResourceTypes/User')).body).toMatchObject({ id: 'User', endpoint: '/Users', schema: USER_SCHEMA });
    for (const path of ['/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group', '/ResourceTypes/Group']) {
      expect(await scim('GET', path)).toMatchObject({ status: 404, body: { schemas: [SCIM_ERROR], scimType: 'noTarget' } });
    }
  });
});
