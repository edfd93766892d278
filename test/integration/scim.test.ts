import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { SCAN_MAX_USERS } from '../../shared/app/scim/scim-filter';
import { SCIM_REQUESTS_PER_SECOND } from '../../shared/app/scim/scim-rate-limit';
import type { AuditEventDto } from '../support/audit-helpers';
import { bearer } from '../support/auth-helpers';
import { send } from '../support/http-client';
import { ACCESS_EXTENSION, ENTERPRISE_EXTENSION, oktaUser, PATCH_OP, SCIM_ERROR, scimRequest, scimUrl as scimUrlOf, USER_SCHEMA, type ScimAnswer } from '../support/scim-client';
import { userArea } from '../support/stack';
import { freshOrganization, identityOf, mailsTo, readUser, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The SCIM service provider driven the way Okta's and Entra ID's provisioning clients drive it: create,
 * find by `userName eq`, page with `startIndex`/`count`, deactivate with PATCH `active: false` (the user
 * still reads 200), reactivate, rename, change the e-mail, and the errors they meet. Every change shows
 * in the users area, with its audit event, as the matching user operation's.
 */

const [USER, ACCESS, PATCH, ERROR] = [USER_SCHEMA, ACCESS_EXTENSION, PATCH_OP, SCIM_ERROR];

let org: TestOrg;
let token: string;
let tokenId: string;

const scimUrl = (path: string, orgUuid = org.orgUuid) => scimUrlOf(orgUuid, path);
const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, credential = token): Promise<ScimAnswer> =>
  scimRequest(org.orgUuid, credential, method, path, body, headers);
const okta = oktaUser;

async function auditOf(userUuid: string): Promise<AuditEventDto[]> {
  const response = await send<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${userUuid}&linesPerPage=50`), {
    headers: bearer(org.admin.token),
  });
  expect(response.status).toBe(200);
  return response.body.content;
}

beforeAll(async () => {
  org = await freshOrganization();
  const issued = await send<{ id: string; token: string }>(userArea(org.orgUuid, '/scim-tokens'), {
    method: 'POST',
    headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'Okta', defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } }),
  });
  expect(issued.status).toBe(201);
  ({ id: tokenId, token } = issued.body);
});

describe('SCIM tokens', () => {
  test('are issued once, listed without their secret and with their last use', async () => {
    expect(token).toMatch(/^scim_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    await scim('GET', '/ServiceProviderConfig');
    const listed = await send<Record<string, unknown>[]>(userArea(org.orgUuid, '/scim-tokens'), { headers: bearer(org.admin.token) });
    expect(listed.status).toBe(200);
    const mine = listed.body.find((entry) => entry.id === tokenId)!;
    expect(mine).toMatchObject({ description: 'Okta', createdBy: org.admin.uuid, defaultAccess: { role: 'VIEWER' } });
    expect(mine.lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(-43));
  });

  test('a SCIM token reaches its SCIM endpoints only; a user token is refused there', async () => {
    const asUser = await scim('GET', '/Users', undefined, {}, org.admin.token);
    expect(asUser.status).toBe(401);
    expect(asUser.body).toMatchObject({ schemas: [ERROR], status: '401', scimType: expect.any(String) });
    expect(asUser.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    // The management operations refuse the SCIM token.
    const users = await send(org.url(), { headers: bearer(token) });
    expect(users.status).toBe(401);
    // Another organization's SCIM endpoints refuse it too.
    const other = await freshOrganization();
    const elsewhere = await fetch(scimUrl('/Users', other.orgUuid), { headers: bearer(token) });
    expect(elsewhere.status).toBe(401);
  });

  test('a revoked token is refused at once', async () => {
    const issued = await send<{ id: string; token: string }>(userArea(org.orgUuid, '/scim-tokens'), {
      method: 'POST',
      headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Entra ID' }),
    });
    expect((await scim('GET', '/Schemas', undefined, {}, issued.body.token)).status).toBe(200);
    const revoked = await send(userArea(org.orgUuid, `/scim-tokens/${issued.body.id}`), { method: 'DELETE', headers: bearer(org.admin.token) });
    expect(revoked.status).toBe(204);
    expect((await scim('GET', '/Schemas', undefined, {}, issued.body.token)).status).toBe(401);
  });
});

describe('discovery', () => {
  test('ServiceProviderConfig says PATCH and filters are supported, groups, bulk and sorting are not', async () => {
    const { status, body } = await scim('GET', '/ServiceProviderConfig');
    expect(status).toBe(200);
    expect(body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false }, sort: { supported: false }, etag: { supported: true } });
    expect(body.groups.description).toMatch(/role plus grants/);
  });

  test('ResourceTypes and Schemas describe the User, the access extension and the enterprise extension', async () => {
    const types = await scim('GET', '/ResourceTypes');
    expect(types.body.Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schemaExtensions: [{ schema: ACCESS, required: false }, { schema: ENTERPRISE_EXTENSION, required: false }] }),
    ]);
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual([USER, ACCESS, ENTERPRISE_EXTENSION]);
    const access = schemas.body.Resources[1];
    expect(access.attributes.map((attribute: { name: string }) => attribute.name)).toEqual(['role', 'permissions']);
  });
});

describe('Users, as Okta provisions them', () => {
  test('create, find by userName, deactivate, read, reactivate, rename and change the e-mail', async () => {
    const email = uniqueEmail('okta');
    // Okta first looks the user up, then creates it.
    const before = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`);
    expect(before.body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await scim('POST', '/Users', okta(email));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.get('location')).toBe(scimUrl(`/Users/${id}`));
    expect(created.headers.get('etag')).toBe(created.body.meta.version);
    expect(created.body).toMatchObject({
      userName: email,
      name: { formatted: 'Grace Hopper', givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ value: email, type: 'work', primary: true }],
      active: true,
      [ACCESS]: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] },
      meta: { resourceType: 'User', location: scimUrl(`/Users/${id}`) },
    });
    // The users area has the same user, created as POST /users creates one: welcome e-mail, identity provider, audit event.
    expect(await readUser(org, id)).toMatchObject({ uuid: id, name: 'Grace Hopper', email, role: 'VIEWER', status: 'ACTIVE' });
    expect(await identityOf(id)).toEqual({ email, enabled: true });
    expect((await mailsTo(email)).length).toBe(1);

    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`);
    expect(found.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id }] });

    const deactivated = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    const read = await scim('GET', `/Users/${id}`);
    expect(read).toMatchObject({ status: 200, body: { id, active: false } });
    expect((await readUser(org, id)).status).toBe('DELETED');
    expect((await identityOf(id)).enabled).toBe(false);

    const reactivated = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: true }] });
    expect(reactivated.body.active).toBe(true);
    expect((await readUser(org, id)).status).toBe('ACTIVE');
    expect((await mailsTo(email)).length).toBe(2);

    const newEmail = uniqueEmail('okta-renamed');
    const replaced = await scim('PUT', `/Users/${id}`, okta(newEmail, { name: { givenName: 'Grace B.', familyName: 'Hopper' }, externalId: created.body.externalId }), {
      'if-match': reactivated.body.meta.version,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ userName: newEmail, name: { formatted: 'Grace B. Hopper' }, externalId: created.body.externalId });
    expect(await readUser(org, id)).toMatchObject({ name: 'Grace B. Hopper', email: newEmail });
    expect((await identityOf(id)).email).toBe(newEmail);

    // The audit trail tells the same story as the user operations would.
    const actions = (await auditOf(id)).map((event) => event.action).reverse();
    expect(actions).toEqual(['USER_CREATED', 'USER_DELETED', 'USER_REACTIVATED', 'USER_UPDATED']);
    const events = await auditOf(id);
    expect(events.every((event) => event.actor.uuid === tokenId)).toBe(true);
  });

  test('a stale If-Match is refused with 412 and changes nothing', async () => {
    const created = await scim('POST', '/Users', okta(uniqueEmail('etag')));
    const stale = 'W/"stale"';
    const refused = await scim('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'X Y' }] }, { 'if-match': stale });
    expect(refused).toMatchObject({ status: 412, body: { schemas: [ERROR], scimType: expect.any(String) } });
    expect((await readUser(org, created.body.id)).name).toBe('Grace Hopper');
  });
});

describe('Users, as Entra ID provisions them', () => {
  test('PATCH with paths, value filters and "False" strings; atomic when one operation is invalid', async () => {
    const email = uniqueEmail('entra');
    const created = await scim('POST', '/Users', {
      schemas: [USER, ACCESS],
      externalId: 'entra-object-1',
      userName: email,
      active: true,
      displayName: 'Alan Turing',
      emails: [{ primary: true, type: 'work', value: email }],
      name: { formatted: 'Alan Turing', familyName: 'Turing', givenName: 'Alan' },
      [ACCESS]: { role: 'SUPERVISOR', permissions: [{ environmentUuid: org.envB }] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await readUser(org, id)).toMatchObject({ role: 'SUPERVISOR', permissions: [{ environmentUuid: org.envB }] });

    const changed = uniqueEmail('entra-changed');
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: changed },
        { op: 'Replace', path: 'name.formatted', value: 'Alan M. Turing' },
        { op: 'Add', path: 'externalId', value: 'entra-object-2' },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ userName: changed, name: { formatted: 'Alan M. Turing' }, externalId: 'entra-object-2' });
    expect(await readUser(org, id)).toMatchObject({ email: changed, name: 'Alan M. Turing' });

    const atomic = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'replace', path: 'name.formatted', value: 'Never Applied' },
        { op: 'replace', path: 'active', value: 'maybe' },
      ],
    });
    expect(atomic).toMatchObject({ status: 400, body: { schemas: [ERROR], status: '400', scimType: 'invalidValue' } });
    expect((await readUser(org, id)).name).toBe('Alan M. Turing');

    const disabled = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(disabled.body.active).toBe(false);
    const byExternalId = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "entra-object-2"')}`);
    expect(byExternalId.body).toMatchObject({ totalResults: 1, Resources: [{ id, active: false }] });

    const deleted = await scim('DELETE', `/Users/${id}`);
    expect(deleted.status).toBe(204);
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(false);
  });
});

describe('search', () => {
  let ids: string[];
  beforeAll(async () => {
    const other = await freshOrganization();
    org = other;
    const issued = await send<{ id: string; token: string }>(userArea(org.orgUuid, '/scim-tokens'), {
      method: 'POST',
      headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
      body: JSON.stringify({ defaultAccess: { role: 'EDITOR', permissions: [{ environmentUuid: org.envA, botUuid: org.botA2 }] } }),
    });
    ({ id: tokenId, token } = issued.body);
    ids = [];
    for (const [given, family] of [['Ana', 'Lima'], ['Bruno', 'Costa'], ['Carla', 'Lima']]) {
      const response = await scim('POST', '/Users', okta(uniqueEmail(given!.toLowerCase()), { name: { givenName: given, familyName: family } }));
      expect(response.status).toBe(201);
      ids.push(response.body.id);
    }
  });

  test('pages with startIndex and count, with totalResults, in creation order (the ADMIN first)', async () => {
    const first = await scim('GET', '/Users?startIndex=1&count=2');
    expect(first.body).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 2 });
    expect(first.body.Resources.map((user: { id: string }) => user.id)).toEqual([org.admin.uuid, ids[0]]);
    const second = await scim('GET', '/Users?startIndex=3&count=2');
    expect(second.body.Resources.map((user: { id: string }) => user.id)).toEqual([ids[1], ids[2]]);
    const none = await scim('GET', '/Users?count=0');
    expect(none.body).toMatchObject({ totalResults: 4, Resources: [] });
  });

  test.each([
    ['name.familyName eq "lima"', [0, 2]],
    ['name.givenName sw "b" or name.givenName ew "LA"', [1, 2]],
    ['emails.value co "ana-" and active eq true', [0]],
    ['not (name.familyName eq "Lima") and userName ew "example.test" and externalId pr', [1]],
    ['meta.lastModified gt "2000-01-01T00:00:00Z" and name.familyName ne "Costa" and name.givenName ne "Org"', [0, 2]],
  ])('filter %s', async (filter, expected) => {
    const { status, body } = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    expect(status).toBe(200);
    expect(body.Resources.map((user: { id: string }) => user.id)).toEqual(expected.map((i) => ids[i]));
    expect(body.totalResults).toBe(expected.length);
  });

  test('attributes and excludedAttributes select what is answered', async () => {
    const only = await scim('GET', `/Users/${ids[0]}?attributes=userName`);
    expect(Object.keys(only.body).sort()).toEqual(['id', 'schemas', 'userName'].sort());
    const without = await scim('GET', `/Users?filter=${encodeURIComponent(`userName sw "ana"`)}&excludedAttributes=emails,name`);
    expect(without.body.Resources[0].emails).toBeUndefined();
    expect(without.body.Resources[0].name).toBeUndefined();
    expect(without.body.Resources[0].userName).toMatch(/^ana-/);
  });

  test('invalid filters are 400 invalidFilter', async () => {
    for (const filter of ['userName eq', 'userName zz "a"', 'title pr']) {
      const { status, body } = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect({ status, scimType: body.scimType }).toEqual({ status: 400, scimType: 'invalidFilter' });
    }
  });

  test('an e-mail already in the organization is 409 uniqueness; a user without access and no default is 400', async () => {
    const existing = await scim('GET', `/Users/${ids[0]}`);
    const conflict = await scim('POST', '/Users', okta(existing.body.userName.toUpperCase()));
    expect(conflict).toMatchObject({ status: 409, body: { schemas: [ERROR], status: '409', scimType: 'uniqueness' } });
    const missing = await scim('POST', '/Users', { schemas: [USER] });
    expect(missing).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await scim('GET', '/Users/not-a-user')).body).toMatchObject({ status: '404', scimType: 'noTarget' });
  });

  test('past 10,000 users, a filter the users index cannot serve is 400 tooMany; userName eq still answers', async () => {
    const count = (by: number) =>
      updateItem({ Key: keys.userCount(org.orgUuid), UpdateExpression: 'ADD ACTIVE :by', ExpressionAttributeValues: { ':by': by } });
    await count(SCAN_MAX_USERS);
    try {
      const broad = await scim('GET', `/Users?filter=${encodeURIComponent('name.givenName sw "a"')}`);
      expect(broad).toMatchObject({ status: 400, body: { schemas: [ERROR], scimType: 'tooMany' } });
      const existing = await scim('GET', `/Users/${ids[0]}`);
      const narrow = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${existing.body.userName}"`)}`);
      expect(narrow.body).toMatchObject({ totalResults: 1, Resources: [{ id: ids[0] }] });
    } finally {
      await count(-SCAN_MAX_USERS);
    }
  });

  test('past the organization\u2019s rate: 429 with Retry-After, in SCIM\u2019s error schema', async () => {
    // Fill this second's and the next seconds' windows, as that many requests would.
    const now = Math.floor(Date.now() / 1000);
    await Promise.all(
      [0, 1, 2, 3].map((ahead) =>
        updateItem({
          Key: keys.scimRequestWindow(org.orgUuid, now + ahead),
          UpdateExpression: 'SET requests = :full',
          ExpressionAttributeValues: { ':full': SCIM_REQUESTS_PER_SECOND },
        }),
      ),
    );
    const limited = await scim('GET', '/Users?count=1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.body).toMatchObject({ schemas: [ERROR], status: '429', scimType: 'tooMany' });
  });
});
