import { randomUUID } from 'node:crypto';
import type { AuditEventDto } from '../support/audit-helpers';
import { bearer } from '../support/auth-helpers';
import { send } from '../support/http-client';
import { ENTERPRISE_EXTENSION, issueScimToken, oktaUser, PATCH_OP, SCIM_ERROR, scimRequest, USER_SCHEMA, type ScimAnswer } from '../support/scim-client';
import { userArea } from '../support/stack';
import { freshOrganization, readUser, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * Provisioning as Microsoft Entra ID does it under its default attribute mappings, with the bodies its
 * documentation lists ("Develop and plan provisioning for a SCIM endpoint", "Known issues with SCIM 2.0
 * protocol compliance"): a create with the enterprise extension (employeeNumber, department,
 * manager), PATCH with capitalised ops, the extension's attributes by their full path, the manager by
 * its id alone, and the path-less form. The extension is read and changes nothing; what it does not
 * take is refused with SCIM's error, and the user stays as it was.
 */

const ENT = ENTERPRISE_EXTENSION;

let org: TestOrg;
let token: string;
let managerId: string;
/** A request as Entra ID sends it: a 429 (the organization's SCIM rate, which sequential requests can pass) is sent again after its Retry-After. */
async function scim(method: string, path: string, body?: unknown): Promise<ScimAnswer> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await scimRequest(org.orgUuid, token, method, path, body);
    if (answer.status !== 429 || attempt === 5) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after') ?? 1)));
  }
}
const patch = (id: string, ...Operations: unknown[]) => scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations });

/** A user as Entra ID's default mappings create it (userPrincipalName as userName, mail, givenName, surname, employeeId, department, manager). */
const entraUser = (email: string, extension: Record<string, unknown> = { employeeNumber: '100009', department: 'Human Resources US', manager: { value: managerId } }) => ({
  schemas: [USER_SCHEMA, ENT],
  externalId: randomUUID(),
  userName: email,
  active: true,
  displayName: 'Ellen Reckert',
  emails: [{ primary: true, type: 'work', value: email }],
  meta: { resourceType: 'User' },
  name: { formatted: 'Ellen Reckert', familyName: 'Reckert', givenName: 'Ellen' },
  roles: [],
  [ENT]: extension,
});

async function updatesOf(userUuid: string): Promise<AuditEventDto[]> {
  const response = await send<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${userUuid}&linesPerPage=50`), { headers: bearer(org.admin.token) });
  expect(response.status).toBe(200);
  return response.body.content.filter((event) => event.action === 'USER_UPDATED');
}

async function created(): Promise<ScimAnswer> {
  const answer = await scim('POST', '/Users', entraUser(uniqueEmail('entra')));
  expect(answer.status).toBe(201);
  return answer;
}

beforeAll(async () => {
  org = await freshOrganization();
  ({ token } = await issueScimToken(org, { description: 'Entra ID', defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } }));
  // Entra ID provisions a manager before the people who report to them.
  const manager = await scim('POST', '/Users', entraUser(uniqueEmail('manager'), { employeeNumber: '100001', department: 'Human Resources US' }));
  expect(manager.status).toBe(201);
  managerId = manager.body.id;
});

describe('discovery', () => {
  test('/Schemas and /ResourceTypes/User advertise the enterprise extension, not required', async () => {
    const schema = await scim('GET', `/Schemas/${ENT}`);
    expect(schema.status).toBe(200);
    expect(schema.body.attributes.map((attribute: { name: string }) => attribute.name)).toEqual(['employeeNumber', 'costCenter', 'organization', 'division', 'department', 'manager']);
    const manager = schema.body.attributes.find((attribute: { name: string }) => attribute.name === 'manager');
    expect(manager.subAttributes.map((attribute: { name: string }) => attribute.name)).toEqual(['value', '$ref', 'displayName']);
    const listed = await scim('GET', '/Schemas');
    expect(listed.body.Resources.map((resource: { id: string }) => resource.id)).toContain(ENT);
    expect((await scim('GET', '/ResourceTypes/User')).body.schemaExtensions).toContainEqual({ schema: ENT, required: false });
  });
});

describe('Entra ID\u2019s requests', () => {
  test('a create with the extension makes the user from the core attributes; the extension is not answered back', async () => {
    const email = uniqueEmail('entra');
    const lookedUp = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
    expect(lookedUp.body.totalResults).toBe(0);

    const answer = await scim('POST', '/Users', entraUser(email));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ userName: email, name: { formatted: 'Ellen Reckert' }, active: true });
    expect(answer.body[ENT]).toBeUndefined();
    expect(await readUser(org, answer.body.id)).toMatchObject({ name: 'Ellen Reckert', email, role: 'VIEWER', status: 'ACTIVE' });
  });

  test('the manager by its id alone, and the employee number by its path, are accepted and change nothing', async () => {
    const user = await created();
    const id = user.body.id as string;
    const etag = user.headers.get('etag');
    const asked: unknown[][] = [
      [{ op: 'Add', path: `${ENT}:manager`, value: managerId }],
      [{ op: 'Replace', path: `${ENT}:employeeNumber`, value: '100010' }],
      [{ op: 'Replace', path: `${ENT}:department`, value: 'Finance' }, { op: 'Add', path: `${ENT}:costCenter`, value: 'CC-7' }],
      [{ op: 'Replace', value: { [ENT]: { employeeNumber: '100011', division: 'EMEA', manager: { value: managerId } } } }],
      [{ op: 'Remove', path: `${ENT}:manager` }],
    ];
    for (const operations of asked) {
      const answer = await patch(id, ...operations);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('etag')).toBe(etag);
      expect(answer.body[ENT]).toBeUndefined();
    }
    expect(await updatesOf(id)).toEqual([]);
  });

  test('a PATCH of core attributes with the extension\u2019s changes the user once', async () => {
    const user = await created();
    const id = user.body.id as string;
    const newEmail = uniqueEmail('renamed');
    // Entra ID's PATCH replacing several attributes, as its compliance notes list it.
    const answer = await patch(
      id,
      { op: 'Replace', path: 'displayName', value: 'Pvlo' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: newEmail },
      { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
      { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
      { op: 'Replace', path: 'externalId', value: 'Eqpj' },
      { op: 'Replace', path: `${ENT}:employeeNumber`, value: 'Eqpj' },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).not.toBe(user.headers.get('etag'));
    expect(answer.body).toMatchObject({ userName: newEmail, externalId: 'Eqpj', name: { formatted: 'Gtfd Pkqf' } });
    expect(await readUser(org, id)).toMatchObject({ name: 'Gtfd Pkqf', email: newEmail });
    expect(await updatesOf(id)).toHaveLength(1);
  });

  test('the path-less form Entra ID sends with its compliance flag: the core attributes change, the extension\u2019s key is read', async () => {
    const user = await created();
    const id = user.body.id as string;
    const answer = await patch(id, {
      op: 'replace',
      value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua', [`${ENT}:employeeNumber`]: 'Aklq' },
    });
    expect(answer.status).toBe(200);
    expect(await readUser(org, id)).toMatchObject({ name: 'Kkom Unua' });
    expect(await updatesOf(id)).toHaveLength(1);
  });

  test('a replace (PUT) with the extension keeps the user\u2019s core attributes as given', async () => {
    const user = await created();
    const id = user.body.id as string;
    const replaced = await scim('PUT', `/Users/${id}`, { ...entraUser(user.body.userName), name: { formatted: 'Ellen R. Reckert' }, [ENT]: { department: 'Legal', manager: { value: managerId, displayName: 'The Manager' } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name.formatted).toBe('Ellen R. Reckert');
    expect(replaced.body[ENT]).toBeUndefined();
  });

  test('the other attributes its default mappings write (title, phone numbers, addresses) are accepted and change nothing', async () => {
    const email = uniqueEmail('mapped');
    const user = await scim('POST', '/Users', {
      ...entraUser(email),
      title: 'Recruiter',
      preferredLanguage: 'en-US',
      phoneNumbers: [{ type: 'work', value: '+1 555 0100' }, { type: 'mobile', value: '+1 555 0101' }],
      addresses: [{ type: 'work', streetAddress: '1 Main St', locality: 'Redmond', region: 'WA', postalCode: '98052', country: 'US', formatted: 'Building 1' }],
    });
    expect(user.status).toBe(201);
    const id = user.body.id as string;
    const answer = await patch(
      id,
      { op: 'Add', path: 'title', value: 'Senior Recruiter' },
      { op: 'Replace', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0199' },
      { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0198' },
      { op: 'Add', path: 'phoneNumbers[type eq "fax"].value', value: '+1 555 0197' },
      { op: 'Replace', path: 'addresses[type eq "work"].locality', value: 'Lisbon' },
      { op: 'Replace', path: 'addresses[type eq "work"].postalCode', value: '1100-148' },
      { op: 'Replace', path: `${ENT}:department`, value: 'Talent' },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toBe(user.headers.get('etag'));
    expect(await updatesOf(id)).toEqual([]);
    const refused = await patch(id, { op: 'Replace', path: 'phoneNumbers[type eq "work"].value', value: 5550199 });
    expect(refused).toMatchObject({ status: 400, body: { schemas: [SCIM_ERROR], scimType: 'invalidValue' } });
  });

  test('deactivation as Entra ID sends it still deactivates a user created with the extension', async () => {
    const user = await created();
    const answer = await patch(user.body.id, { op: 'Replace', path: 'active', value: 'False' });
    expect(answer).toMatchObject({ status: 200, body: { active: false } });
  });
});

describe('what the extension does not take is refused, and changes nothing', () => {
  let id: string;
  let etag: string | null;
  beforeAll(async () => {
    const user = await created();
    id = user.body.id;
    etag = user.headers.get('etag');
  });

  test.each([
    ['employeeNumber a number', 'invalidValue', [{ op: 'Replace', path: `${ENT}:employeeNumber`, value: 100009 }]],
    ['employeeNumber of 257 characters', 'invalidValue', [{ op: 'Replace', path: `${ENT}:employeeNumber`, value: '9'.repeat(257) }]],
    ['a department of 100,000 characters', 'invalidValue', [{ op: 'Replace', path: `${ENT}:department`, value: 'd'.repeat(100_000) }]],
    ['the manager a number', 'invalidValue', [{ op: 'Add', path: `${ENT}:manager`, value: 42 }]],
    ['the manager\u2019s value a number', 'invalidValue', [{ op: 'Add', path: `${ENT}:manager`, value: { value: 42 } }]],
    ['the manager with an attribute it lacks', 'invalidValue', [{ op: 'Add', path: `${ENT}:manager`, value: { value: 'm', level: 'vp' } }]],
    ['the extension with an attribute it lacks', 'invalidValue', [{ op: 'Replace', value: { [ENT]: { badge: '7' } } }]],
    ['the extension not an object', 'invalidValue', [{ op: 'Replace', path: ENT, value: 'Sales' }]],
    ['a path to an attribute the extension lacks', 'invalidPath', [{ op: 'Replace', path: `${ENT}:badge`, value: '7' }]],
    ['a value filter on the manager', 'invalidPath', [{ op: 'Replace', path: `${ENT}:manager[value eq "${randomUUID()}"].displayName`, value: 'x' }]],
    ['an object internal under the extension', 'invalidPath', [{ op: 'Add', path: `${ENT}:__proto__`, value: { polluted: 'yes' } }]],
    ['a valid operation beside an invalid one', 'invalidValue', [{ op: 'Replace', path: 'displayName', value: 'Changed' }, { op: 'Replace', path: `${ENT}:division`, value: ['North'] }]],
  ])('%s: 400 %s', async (_what, scimType, operations: unknown[]) => {
    const refused = await patch(id, ...operations);
    expect(refused).toMatchObject({ status: 400, body: { schemas: [SCIM_ERROR], status: '400', scimType } });
    expect(refused.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(refused.body.detail).not.toMatch(/TypeError|Cannot read|undefined|at .*\.js/);
    expect((await scim('GET', `/Users/${id}`)).headers.get('etag')).toBe(etag);
  });

  test.each([
    ['employeeNumber a number', { employeeNumber: 100009 }],
    ['the manager by its id alone (an object in a resource)', { manager: randomUUID() }],
    ['the manager\u2019s value a list', { manager: { value: [randomUUID()] } }],
    ['an attribute the extension lacks', { badge: '7' }],
    ['a cost center of 257 characters', { costCenter: 'c'.repeat(257) }],
  ])('a create with %s: 400 invalidValue, and no user', async (_what, extension) => {
    const email = uniqueEmail('refused');
    const refused = await scim('POST', '/Users', entraUser(email, extension));
    expect(refused).toMatchObject({ status: 400, body: { schemas: [SCIM_ERROR], scimType: 'invalidValue' } });
    expect(refused.body.detail).toContain(ENT);
    const lookedUp = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
    expect(lookedUp.body.totalResults).toBe(0);
  });

  test('a replace with a malformed extension is refused and changes nothing', async () => {
    const refused = await scim('PUT', `/Users/${id}`, { ...oktaUser((await scim('GET', `/Users/${id}`)).body.userName), displayName: 'Changed', [ENT]: 'Sales' });
    expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await scim('GET', `/Users/${id}`)).headers.get('etag')).toBe(etag);
  });

  test('the extension\u2019s attributes cannot be filtered on (none is kept), but may be selected', async () => {
    const filtered = await scim('GET', `/Users?filter=${encodeURIComponent(`${ENT}:employeeNumber eq "100009"`)}`);
    expect(filtered).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
    const selected = await scim('GET', `/Users/${id}?attributes=${ENT}:department`);
    expect(selected).toMatchObject({ status: 200, body: { id } });
    expect(Object.keys(selected.body).sort()).toEqual(['id', 'schemas']);
  });
});

describe('a manager from another organization', () => {
  test('is not looked up: the answer is the same as for an id nobody has, and says nothing of that user', async () => {
    const other = await freshOrganization();
    const user = await created();
    const id = user.body.id as string;
    const elsewhere = await patch(id, { op: 'Add', path: `${ENT}:manager`, value: other.admin.uuid });
    const nobody = await patch(id, { op: 'Add', path: `${ENT}:manager`, value: randomUUID() });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toEqual(nobody.body);
    expect(elsewhere.headers.get('etag')).toBe(user.headers.get('etag'));
    const text = JSON.stringify(elsewhere.body);
    expect(text).not.toContain(other.admin.uuid);
    expect(text).not.toContain(other.orgUuid);
  });
});
