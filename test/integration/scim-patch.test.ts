import type { AuditEventDto } from '../support/audit-helpers';
import { bearer } from '../support/auth-helpers';
import { eventsWhen, ofOrg } from '../support/change-events-helpers';
import { send } from '../support/http-client';
import { issueScimToken, oktaUser, PATCH_OP, scimRequest, type ScimAnswer } from '../support/scim-client';
import { userArea } from '../support/stack';
import { freshOrganization, readUser, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * PATCH as Okta and Microsoft Entra ID send it: each attribute a directory maps (the name's parts, the
 * display name, the work e-mail, active, externalId), with a path and without one. Each changes the
 * user as the users area would: a new version (ETag), an audit event naming the SCIM token, and the
 * change event the audit event publishes.
 */

let org: TestOrg;
let token: string;
let tokenId: string;
const scim = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ScimAnswer> =>
  scimRequest(org.orgUuid, token, method, path, body, headers);

beforeAll(async () => {
  org = await freshOrganization();
  ({ token, id: tokenId } = await issueScimToken(org, { defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } }));
});

async function auditOf(userUuid: string): Promise<AuditEventDto[]> {
  const response = await send<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${userUuid}&linesPerPage=50`), { headers: bearer(org.admin.token) });
  return response.body.content;
}

type Expected = { name?: string; email?: 'changed'; status?: 'DELETED'; externalId?: string };
type Operations = (newEmail: string) => Record<string, unknown>[];
const ops = (...operations: Record<string, unknown>[]): Operations => () => operations;

const cases: [string, Operations, Expected][] = [
  ['name.givenName (Entra ID)', ops({ op: 'Replace', path: 'name.givenName', value: 'Bia' }), { name: 'Bia Hopper' }],
  ['name.familyName (Entra ID)', ops({ op: 'Replace', path: 'name.familyName', value: 'Souza' }), { name: 'Grace Souza' }],
  ['both parts', ops({ op: 'Replace', path: 'name.givenName', value: 'Ada' }, { op: 'Replace', path: 'name.familyName', value: 'Lovelace' }), { name: 'Ada Lovelace' }],
  ['name.formatted', ops({ op: 'replace', path: 'name.formatted', value: 'Grace B. Hopper' }), { name: 'Grace B. Hopper' }],
  ['displayName', ops({ op: 'Replace', path: 'displayName', value: 'Amazing Grace' }), { name: 'Amazing Grace' }],
  ['the work e-mail by value filter', (newEmail) => [{ op: 'Replace', path: 'emails[type eq "work"].value', value: newEmail }], { email: 'changed' }],
  ['active "False" (Entra ID)', ops({ op: 'Replace', path: 'active', value: 'False' }), { status: 'DELETED' }],
  ['externalId', ops({ op: 'Add', path: 'externalId', value: 'entra-42' }), { externalId: 'entra-42' }],
  ['name.givenName without a path, dotted', ops({ op: 'replace', value: { 'name.givenName': 'Bia' } }), { name: 'Bia Hopper' }],
  ['name parts without a path (Okta)', ops({ op: 'replace', value: { name: { givenName: 'Ada', familyName: 'Lovelace' } } }), { name: 'Ada Lovelace' }],
  ['displayName without a path', ops({ op: 'replace', value: { displayName: 'Amazing Grace' } }), { name: 'Amazing Grace' }],
  ['emails without a path', (newEmail) => [{ op: 'replace', value: { emails: [{ value: newEmail, type: 'work', primary: true }] } }], { email: 'changed' }],
  ['active without a path (Okta)', ops({ op: 'replace', value: { active: false } }), { status: 'DELETED' }],
  ['externalId without a path, under the schema URN', ops({ op: 'replace', value: { 'urn:ietf:params:scim:schemas:core:2.0:User:externalId': 'okta-7' } }), { externalId: 'okta-7' }],
];

describe('each attribute a directory maps changes the user: new version, audit event, change event', () => {
  test.each(cases)('%s', async (_what, operations, expected) => {
    const email = uniqueEmail('patch');
    const created = await scim('POST', '/Users', oktaUser(email));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const newEmail = uniqueEmail('patched');
    const patchedEmail = expected.email ? newEmail : undefined;
    const body = { schemas: [PATCH_OP], Operations: operations(newEmail) };

    const patched = await scim('PATCH', `/Users/${id}`, body);
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(created.headers.get('etag'));
    const user = await readUser(org, id);
    expect(user).toMatchObject({
      name: expected.name ?? 'Grace Hopper',
      email: patchedEmail ?? email,
      status: expected.status ?? 'ACTIVE',
    });
    if (expected.externalId) expect(patched.body.externalId).toBe(expected.externalId);

    const action = expected.status === 'DELETED' ? 'USER_DELETED' : 'USER_UPDATED';
    const audited = (await auditOf(id)).filter((event) => event.action === action);
    expect(audited).toEqual([expect.objectContaining({ actor: { uuid: tokenId, email: null } })]);
    const published = await eventsWhen((event) => ofOrg(org.orgUuid)(event) && event.detail.data.resource.uuid === id && event.detail.type.endsWith(action === 'USER_DELETED' ? '.user.deleted' : '.user.updated'), 1);
    expect(published).toHaveLength(1);
    expect(published[0]!.detail.id).toBe(audited[0]!.id);
  });

  test('an attribute the schema has but this API does not keep changes nothing and says so by its version', async () => {
    const created = await scim('POST', '/Users', oktaUser(uniqueEmail('title')));
    const patched = await scim('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'title', value: 'Admiral' }] });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe(created.headers.get('etag'));
  });

  test('operations that change nothing (a value the user has, a remove of what it lacks) answer the user as it is', async () => {
    const created = await scim('POST', '/Users', oktaUser(uniqueEmail('same')));
    const operations = [{ op: 'Replace', path: 'displayName', value: 'Grace Hopper' }, { op: 'Remove', path: 'title' }];
    const patched = await scim('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: operations });
    expect(patched).toMatchObject({ status: 200, body: { id: created.body.id, displayName: 'Grace Hopper' } });
    expect(patched.headers.get('etag')).toBe(created.headers.get('etag'));
  });

  test.each([
    [[{ op: 'replace', path: 'nickName.nope', value: 'x' }], 'invalidPath'],
    [[{ op: 'replace', path: 'emails[type eq "work" or type eq "home"].value', value: 'x@example.test' }], 'invalidPath'],
    [[{ op: 'remove' }], 'invalidPath'],
    [[{ op: 'move', path: 'displayName' }], 'invalidSyntax'],
    [[{ op: 'replace', value: { nope: 1 } }], 'invalidPath'],
    [[], 'invalidSyntax'],
  ])('%j is refused 400 %s and changes nothing', async (operations, scimType) => {
    const created = await scim('POST', '/Users', oktaUser(uniqueEmail('refused')));
    const refused = await scim('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: operations });
    expect(refused).toMatchObject({ status: 400, body: { scimType } });
    expect((await scim('GET', `/Users/${created.body.id}`)).headers.get('etag')).toBe(created.headers.get('etag'));
  });
});
