import { checkEnterpriseResource, enterpriseAttributeNames, MAX_ENTERPRISE_TEXT } from '../../shared/app/scim/scim-enterprise';
import { checkedPatch } from '../../shared/app/scim/scim-patch';
import { projectionOf } from '../../shared/app/scim/scim-projection';
import { ENTERPRISE_EXTENSION, resourceTypeById, schemaById } from '../../shared/app/scim/scim-schema';

/**
 * The enterprise User extension (RFC 7643 §4.3) as Microsoft Entra ID writes it: read and checked,
 * then set aside (it changes nothing), and refused when a value is not the extension's.
 */

const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENT = ENTERPRISE_EXTENSION;
const patch = (...Operations: unknown[]) => checkedPatch({ schemas: [PATCH], Operations });
const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'none';
};

describe('discovery', () => {
  test('the extension is described from scimmy\u2019s definition, and its checks name the same attributes', () => {
    // As a client reads it: JSON (scimmy's attributes describe themselves when serialised).
    const schema = JSON.parse(JSON.stringify(schemaById('https://api.example.test/scim/v2', ENT))) as { attributes: { name: string; subAttributes?: { name: string; mutability: string }[] }[] };
    expect(schema.attributes.map((attribute) => attribute.name)).toEqual(enterpriseAttributeNames.attributes);
    const manager = schema.attributes.find((attribute) => attribute.name === 'manager')!;
    expect(manager.subAttributes!.map((attribute) => attribute.name)).toEqual(enterpriseAttributeNames.manager);
    expect(manager.subAttributes!.find((attribute) => attribute.name === 'displayName')!.mutability).toBe('readOnly');
    // The core User schema no longer lists the extension among its own attributes.
    const core = JSON.parse(JSON.stringify(schemaById('https://api.example.test/scim/v2', 'urn:ietf:params:scim:schemas:core:2.0:User'))) as { attributes: { name: string }[] };
    expect(core.attributes.map((attribute) => attribute.name)).not.toContain(ENT);
    expect(resourceTypeById('https://api.example.test/scim/v2', 'User')!.schemaExtensions).toContainEqual({ schema: ENT, required: false });
  });
});

describe('PATCH: the extension\u2019s operations are checked and set aside', () => {
  test('Entra ID\u2019s employeeNumber and manager operations leave nothing to apply', () => {
    expect(patch({ op: 'Replace', path: `${ENT}:employeeNumber`, value: 'Eqpj' }).Operations).toEqual([]);
    expect(patch({ op: 'Add', path: `${ENT}:manager`, value: '2819c223-7f76-453a-919d-413861904646' }).Operations).toEqual([]);
    expect(patch({ op: 'Remove', path: `${ENT}:manager` }).Operations).toEqual([]);
    expect(patch({ op: 'add', path: `${ENT}:manager.value`, value: 'm-1' }, { op: 'replace', path: ENT.toUpperCase(), value: { Department: 'Sales' } }).Operations).toEqual([]);
  });

  test('beside the core attributes, only theirs remain, in canonical spelling', () => {
    const { Operations } = patch(
      { op: 'Replace', path: `${ENT}:employeeNumber`, value: '701984' },
      { op: 'Replace', path: 'name.familyName', value: 'Lovelace' },
      { op: 'replace', value: { displayName: 'Ada', 'name.givenName': 'Ada', [`${ENT}:employeeNumber`]: 'Aklq', [ENT]: { department: 'R&D', manager: { value: 'm-1' } } } },
    );
    expect(Operations).toEqual([
      { op: 'Replace', path: 'name.familyName', value: 'Lovelace' },
      { op: 'replace', value: { displayName: 'Ada', 'name.givenName': 'Ada' } },
    ]);
  });

  test.each([
    ['employeeNumber not a string', { op: 'Replace', path: `${ENT}:employeeNumber`, value: 701984 }, 'INVALID_VALUE'],
    ['employeeNumber too long', { op: 'Replace', path: `${ENT}:employeeNumber`, value: 'x'.repeat(MAX_ENTERPRISE_TEXT + 1) }, 'INVALID_VALUE'],
    ['add without a value', { op: 'Add', path: `${ENT}:department` }, 'INVALID_VALUE'],
    ['manager a number', { op: 'Add', path: `${ENT}:manager`, value: 42 }, 'INVALID_VALUE'],
    ['manager a list', { op: 'Add', path: `${ENT}:manager`, value: [{ value: 'm-1' }] }, 'INVALID_VALUE'],
    ['manager.value not a string', { op: 'Add', path: `${ENT}:manager`, value: { value: 42 } }, 'INVALID_VALUE'],
    ['manager with an unknown attribute', { op: 'Add', path: `${ENT}:manager`, value: { value: 'm-1', level: 'vp' } }, 'INVALID_VALUE'],
    ['the extension not an object', { op: 'Replace', path: ENT, value: 'Sales' }, 'INVALID_VALUE'],
    ['the extension with an unknown attribute', { op: 'Replace', path: ENT, value: { badge: '7' } }, 'INVALID_VALUE'],
    ['the extension\u2019s manager by id alone, inside the whole', { op: 'Replace', path: ENT, value: { manager: 'm-1' } }, 'INVALID_VALUE'],
    ['a path-less value not a string', { op: 'Replace', value: { [`${ENT}:costCenter`]: { code: 4 } } }, 'INVALID_VALUE'],
    ['an attribute the extension lacks', { op: 'Replace', path: `${ENT}:badge`, value: '7' }, 'INVALID_PATH'],
    ['a path-less key the extension lacks', { op: 'Replace', value: { [`${ENT}:badge`]: '7' } }, 'INVALID_PATH'],
    ['a value filter on the manager', { op: 'Replace', path: `${ENT}:manager[value eq "m-1"].displayName`, value: 'x' }, 'INVALID_PATH'],
    ['a value filter on a text', { op: 'Remove', path: `${ENT}:department[value eq "x"]` }, 'INVALID_PATH'],
    ['a sub-attribute of a text', { op: 'Replace', path: `${ENT}:department.name`, value: 'x' }, 'INVALID_PATH'],
    ['an object internal', { op: 'Replace', path: `${ENT}:__proto__`, value: { polluted: 'yes' } }, 'INVALID_PATH'],
  ])('%s is refused %s', (_what, operation, expected) => {
    expect(code(() => patch(operation))).toBe(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a User resource (POST, PUT)', () => {
  test('takes the extension as Entra ID sends it, and null as unassigned', () => {
    expect(code(() => checkEnterpriseResource({ userName: 'a@x.test', [ENT]: { employeeNumber: '701984', department: 'Sales', manager: { value: 'm-1' } } }))).toBe('none');
    expect(code(() => checkEnterpriseResource({ [ENT.toLowerCase()]: { EmployeeNumber: '1', costcenter: null, manager: { value: 'm', $ref: '../Users/m', displayName: 'Boss' } } }))).toBe('none');
    expect(code(() => checkEnterpriseResource({ [`${ENT}:division`]: 'North', [ENT]: null }))).toBe('none');
  });

  test.each([
    [{ [ENT]: 'Sales' }],
    [{ [ENT]: [{ department: 'Sales' }] }],
    [{ [ENT]: { employeeNumber: 701984 } }],
    [{ [ENT]: { badge: '7' } }],
    [{ [ENT]: { manager: 'm-1' } }],
    [{ [ENT]: { manager: { value: 'm-1', level: 'vp' } } }],
    [{ [ENT]: { manager: { $ref: 'x'.repeat(2049) } } }],
    [{ [ENT]: { department: 'd'.repeat(MAX_ENTERPRISE_TEXT + 1) } }],
    [{ [`${ENT}:badge`]: '7' }],
  ])('%j is refused INVALID_VALUE', (resource) => {
    expect(code(() => checkEnterpriseResource(resource))).toBe('INVALID_VALUE');
  });
});

test('attribute lists may name the extension and its attributes', () => {
  const project = projectionOf({ attributes: `${ENT}:department,userName` });
  expect(project({ schemas: [], id: 'u-1', userName: 'a@x.test', [ENT]: { department: 'Sales', division: 'N' } })).toEqual({ schemas: [], id: 'u-1', userName: 'a@x.test', [ENT]: { department: 'Sales' } });
  expect(code(() => projectionOf({ excludedAttributes: `${ENT}:manager.level` }))).toBe('INVALID_PATH');
});
