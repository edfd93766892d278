import { refuseUnsafeKeys } from '../../shared/edge/http/validation';
import { checkedPatch, patchedName } from '../../shared/app/scim/scim-patch';
import { parseFilter } from '../../shared/app/scim/scim-filter';
import { MAX_COMPARISONS, MAX_DEPTH, MAX_FILTER_LENGTH, readFilter } from '../../shared/app/scim/scim-filter-syntax';
import { projectionOf } from '../../shared/app/scim/scim-projection';
import { ACCESS_EXTENSION } from '../../shared/app/scim/scim-schema';
import { toScimUser } from '../../shared/app/scim/scim-user.mapper';
import type { UserRecord } from '../../shared/domain/users/user.entities';

/** What a caller writes as an attribute path reaches no library unless it names an attribute of the schema; every read has a bound. */

const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'none';
};

describe('paths naming object internals', () => {
  test.each(['__proto__', 'constructor', 'prototype', '__PROTO__'])('%s is refused in a filter, an attribute list and a PATCH path, and nothing is polluted', (segment) => {
    expect(code(() => parseFilter(`${segment}.pwned eq "1"`))).toBe('INVALID_FILTER');
    expect(code(() => parseFilter(`name.${segment} eq "1"`))).toBe('INVALID_FILTER');
    expect(code(() => parseFilter(`emails[${segment} eq "1"]`))).toBe('INVALID_FILTER');
    expect(code(() => projectionOf({ attributes: `${segment}.x` }))).toBe('INVALID_PATH');
    expect(code(() => projectionOf({ excludedAttributes: `userName,${segment}` }))).toBe('INVALID_PATH');
    expect(code(() => checkedPatch({ schemas: [PATCH], Operations: [{ op: 'add', path: `${segment}.pwned`, value: 1 }] }))).toBe('INVALID_PATH');
    expect(code(() => checkedPatch({ schemas: [PATCH], Operations: [{ op: 'add', value: { [segment]: { pwned: 1 } } }] }))).toBe('INVALID_PATH');
    expect(({} as Record<string, unknown>).pwned).toBeUndefined();
  });

  test('a body with such a key at any depth is refused before a schema reads it', () => {
    for (const body of ['{"__proto__":{"a":1}}', '{"a":[{"b":{"constructor":{}}}]}', '[{"prototype":1}]']) {
      expect(code(() => refuseUnsafeKeys(JSON.parse(body)))).toBe('UNSAFE_KEY');
    }
    expect(code(() => refuseUnsafeKeys({ proto: 1, list: [{ constructors: 2 }] }))).toBe('none');
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(code(() => refuseUnsafeKeys(deep))).toBe('none');
  });
});

describe('filter bounds, checked before a tree is built', () => {
  test('length, comparisons and nesting past their bounds are 400 INVALID_FILTER', () => {
    expect(code(() => readFilter(`userName eq "${'a'.repeat(MAX_FILTER_LENGTH)}"`))).toBe('INVALID_FILTER');
    const comparisons = (n: number) => Array.from({ length: n }, (_, i) => `userName eq "u${i}"`).join(' or ');
    expect(code(() => readFilter(comparisons(MAX_COMPARISONS)))).toBe('none');
    expect(code(() => readFilter(comparisons(MAX_COMPARISONS + 1)))).toBe('INVALID_FILTER');
    const nested = (n: number) => `${'('.repeat(n)}active eq true${')'.repeat(n)}`;
    expect(code(() => readFilter(nested(MAX_DEPTH)))).toBe('none');
    expect(code(() => readFilter(nested(MAX_DEPTH + 1)))).toBe('INVALID_FILTER');
  });

  test('or groups joined by and stay as written: one node per comparison', () => {
    const pairs = Array.from({ length: 20 }, (_, i) => `(id eq "a${i}" or id eq "b${i}")`).join(' and ');
    const tree = readFilter(pairs);
    expect(tree).toMatchObject({ kind: 'and' });
    expect((tree as { items: unknown[] }).items).toHaveLength(20);
  });

  test.each(['userName eq "a" and', 'userName eq "a" and not', 'not userName eq "a"', `userName eq "${'\\'.repeat(39)}`, 'userName eq "a" userName eq "b"', 'emails[type eq "work"]]'])(
    '%j is INVALID_FILTER',
    (filter) => expect(code(() => readFilter(filter))).toBe('INVALID_FILTER'),
  );
});

describe('PATCH and projection', () => {
  const user: UserRecord = {
    uuid: 'u-1',
    orgUuid: 'o-1',
    name: 'Grace Hopper',
    email: 'grace@example.test',
    role: 'VIEWER',
    permissions: [{ environmentUuid: 'e-1', botUuid: 'b-1' }],
    status: 'ACTIVE',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  const before = toScimUser(user, 'https://x/scim/v2');

  test('the name follows the attribute that changed: formatted, then the parts, then displayName', () => {
    expect(patchedName(before, { ...before, name: { ...before.name, givenName: 'Ada' } }, user.name)).toBe('Ada Hopper');
    expect(patchedName(before, { ...before, name: { ...before.name, familyName: 'Lovelace' } }, user.name)).toBe('Grace Lovelace');
    expect(patchedName(before, { ...before, name: { ...before.name, formatted: 'G. Hopper', givenName: 'Ada' } }, user.name)).toBe('G. Hopper');
    expect(patchedName(before, { ...before, displayName: 'Amazing Grace' }, user.name)).toBe('Amazing Grace');
    expect(patchedName(before, { ...before }, user.name)).toBe('Grace Hopper');
  });

  test('paths are handed on in the schema\u2019s spelling; a path-less replace of a multi-valued attribute replaces it whole', () => {
    const { Operations } = checkedPatch({
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'EMAILS[TYPE eq "work"].VALUE', value: 'a@x.test' },
        { op: 'replace', value: { 'urn:ietf:params:scim:schemas:core:2.0:User:name.givenName': 'Ada', emails: [{ value: 'b@x.test' }], active: 'False' } },
      ],
    });
    expect(Operations).toEqual([
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'a@x.test' },
      { op: 'replace', value: { 'name.givenName': 'Ada', active: false } },
      { op: 'replace', path: 'emails', value: [{ value: 'b@x.test' }] },
    ]);
  });

  test('a value written through a filter on an attribute the user holds no value of is added as the value the filter describes', () => {
    const { Operations } = checkedPatch({
      schemas: [PATCH],
      Operations: [
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0100' },
        { op: 'Replace', path: 'addresses[type eq "work" and primary eq true].locality', value: 'Lisbon' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'a@x.test' },
        { op: 'Replace', path: `${ACCESS_EXTENSION}:permissions[environmentUuid eq "e-1"].botUuid`, value: 'b-2' },
        { op: 'Add', path: 'phoneNumbers[type ne "fax"].value', value: '+1' },
        { op: 'Remove', path: 'phoneNumbers[type eq "work"]' },
      ],
    });
    expect(Operations).toEqual([
      { op: 'add', path: 'phoneNumbers', value: [{ type: 'work', value: '+1 555 0100' }] },
      { op: 'add', path: 'addresses', value: [{ type: 'work', primary: true, locality: 'Lisbon' }] },
      // The e-mail and the grants are the user's own: their filters select what it holds.
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'a@x.test' },
      { op: 'Replace', path: `${ACCESS_EXTENSION}:permissions[environmentUuid eq "e-1"].botUuid`, value: 'b-2' },
      // A filter that describes no one value is handed on as written.
      { op: 'Add', path: 'phoneNumbers[type ne "fax"].value', value: '+1' },
      { op: 'Remove', path: 'phoneNumbers[type eq "work"]' },
    ]);
  });

  test('projection keeps schemas and id, selects sub-attributes and the extension\u2019s, and excludes', () => {
    const resource = before as unknown as Record<string, unknown>;
    expect(projectionOf({ attributes: `name.givenName,emails.value,${ACCESS_EXTENSION}:role` })(resource)).toEqual({
      schemas: before.schemas,
      id: 'u-1',
      name: { givenName: 'Grace' },
      emails: [{ value: 'grace@example.test' }],
      [ACCESS_EXTENSION]: { role: 'VIEWER' },
    });
    const excluded = projectionOf({ excludedAttributes: `id,emails.type,${ACCESS_EXTENSION}` })(resource);
    expect(excluded.id).toBe('u-1');
    expect(excluded.emails).toEqual([{ value: 'grace@example.test', primary: true }]);
    expect(excluded[ACCESS_EXTENSION]).toBeUndefined();
  });
});
