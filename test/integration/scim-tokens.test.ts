import { MAX_SCIM_TOKENS } from '../../shared/app/scim/scim-tokens';
import type { AuditEventDto } from '../support/audit-helpers';
import { bearer } from '../support/auth-helpers';
import { eventsWhen, ofOrg } from '../support/change-events-helpers';
import { send } from '../support/http-client';
import { issueScimToken, scimRequest } from '../support/scim-client';
import { userArea } from '../support/stack';
import { deleteViaApi, freshOrganization, grantsFor, member, type TestOrg } from '../support/user-helpers';

/**
 * SCIM tokens as credentials an auditor can follow: issuing and revoking are audited and published
 * naming the ADMIN, a token may expire, an organization holds a bounded number, and a token works
 * only while the ADMIN who issued it is one.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const tokensUrl = (path = '') => userArea(org.orgUuid, `/scim-tokens${path}`);
const listTokens = async () => (await send<Record<string, unknown>[]>(tokensUrl(), { headers: bearer(org.admin.token) })).body;
const issue = (body: Record<string, unknown>) =>
  send<Record<string, unknown>>(tokensUrl(), { method: 'POST', headers: { ...bearer(org.admin.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
const revoke = (id: string) => send(tokensUrl(`/${id}`), { method: 'DELETE', headers: bearer(org.admin.token) });
const usable = async (token: string) => (await scimRequest(org.orgUuid, token, 'GET', '/ServiceProviderConfig')).status;

async function auditOf(resourceUuid: string): Promise<AuditEventDto[]> {
  return (await send<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${resourceUuid}`), { headers: bearer(org.admin.token) })).body.content;
}

test('issuing and revoking are audited and published naming the ADMIN, never the secret; the secret is never cached', async () => {
  const issued = await issueScimToken(org, { description: 'Okta' });
  expect(issued.headers.get('cache-control')).toBe('no-store');
  expect(issued.headers.get('pragma')).toBe('no-cache');
  expect((await revoke(issued.id)).status).toBe(204);

  const audited = await auditOf(issued.id);
  expect(audited.map((event) => event.action).sort()).toEqual(['SCIM_TOKEN_ISSUED', 'SCIM_TOKEN_REVOKED']);
  expect(audited.every((event) => event.actor.uuid === org.admin.uuid && event.resource.type === 'SCIM_TOKEN')).toBe(true);
  const published = await eventsWhen((event) => ofOrg(org.orgUuid)(event) && event.detail.data.resource.uuid === issued.id, 2);
  expect(published.map((event) => event.detail.type.split('.').slice(-3).join('.')).sort()).toEqual(['scim.token.issued', 'scim.token.revoked']);
  expect(published.every((event) => event.detail.data.actor.uuid === org.admin.uuid)).toBe(true);
  const secret = issued.token.slice(-43);
  expect(JSON.stringify([audited, published])).not.toContain(secret);
  expect(JSON.stringify([audited, published])).not.toMatch(/digest/);
});

test('a token with expiresAt works until then, then is refused 401 saying it expired; a past expiresAt is 422', async () => {
  const past = await issue({ expiresAt: '2020-01-01T00:00:00Z' });
  expect(past.status).toBe(422);
  const expiresAt = new Date(Date.now() + 2_500).toISOString();
  const { id, token } = await issueScimToken(org, { expiresAt });
  expect(await usable(token)).toBe(200);
  expect((await listTokens()).find((entry) => entry.id === id)).toMatchObject({ expiresAt, issuerActive: true });
  await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 200));
  const refused = await scimRequest(org.orgUuid, token, 'GET', '/ServiceProviderConfig');
  expect(refused.status).toBe(401);
  expect(refused.body.detail).toMatch(/expired/);
  await revoke(id);
});

test(`an organization holds at most ${MAX_SCIM_TOKENS} tokens: one more is 422 until one is revoked`, async () => {
  const own = await freshOrganization();
  const post = () => send<{ id: string; errorCode?: string }>(userArea(own.orgUuid, '/scim-tokens'), { method: 'POST', headers: { ...bearer(own.admin.token), 'content-type': 'application/json' }, body: '{}' });
  const ids: string[] = [];
  for (let i = 0; i < MAX_SCIM_TOKENS; i++) {
    const issued = await post();
    expect(issued.status).toBe(201);
    ids.push(issued.body.id);
  }
  const refused = await post();
  expect(refused.status).toBe(422);
  expect(refused.body.errorCode).toBe('SCIM_TOKEN_LIMIT');
  expect((await send(userArea(own.orgUuid, `/scim-tokens/${ids[0]}`), { method: 'DELETE', headers: bearer(own.admin.token) })).status).toBe(204);
  expect((await post()).status).toBe(201);
});

test('a token stops working when its issuer is deleted or is no longer an ADMIN, and the listing flags it', async () => {
  const [leaving, demoted] = await Promise.all([member(org, 'ADMIN'), member(org, 'ADMIN')]);
  const [left, lowered, kept] = await Promise.all([issueScimToken(org, {}, leaving.token), issueScimToken(org, {}, demoted.token), issueScimToken(org)]);
  expect([await usable(left.token), await usable(lowered.token)]).toEqual([200, 200]);

  await deleteViaApi(org, leaving.uuid);
  const demotion = await org.admin.api.put(org.url(`/${demoted.uuid}`), { name: demoted.name, email: demoted.email, role: 'VIEWER', permissions: grantsFor(org, 'VIEWER') });
  expect(demotion.status).toBe(200);

  for (const token of [left.token, lowered.token]) {
    const refused = await scimRequest(org.orgUuid, token, 'GET', '/ServiceProviderConfig');
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/no longer an active ADMIN/);
  }
  const listed = await listTokens();
  const flagged = listed.filter((entry) => entry.id === left.id || entry.id === lowered.id);
  expect(flagged).toHaveLength(2);
  expect(flagged).toEqual(
    expect.arrayContaining([expect.objectContaining({ createdBy: leaving.uuid, issuerActive: false }), expect.objectContaining({ createdBy: demoted.uuid, issuerActive: false })]),
  );
  expect(listed.find((entry) => entry.id === kept.id)).toMatchObject({ createdBy: org.admin.uuid, issuerActive: true });
  expect(await usable(kept.token)).toBe(200);
});
