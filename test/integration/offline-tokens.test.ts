import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { signJwt } from '../../shared/app/auth/jwt';
import { getSession } from '../../shared/domain/sessions/session.repository';
import { bearer, decodeJwt, getCurrentUser, markDeleted, TEST_PASSWORD, type TokenBody } from '../support/auth-helpers';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { requestToken, stack, userArea } from '../support/stack';
import { deleteViaApi, freshOrganization, member, refresh, type Member, type TestOrg } from '../support/user-helpers';

/**
 * Offline tokens (Keycloak's): a password grant with `scope=offline_access` begins a session with no
 * fixed end, whose offline token (`typ` "Offline", no `exp`) does not rotate, so that automation can
 * keep one, and whose every use slides its idle expiry; an ADMIN lists (by page) and revokes a user's
 * offline sessions.
 */

let org: TestOrg;
let other: TestOrg;
beforeAll(async () => {
  [org, other] = await Promise.all([freshOrganization(), freshOrganization()]);
});

const THIRTY_DAYS = 30 * 86_400;
const now = () => Math.floor(Date.now() / 1000);

/** A password grant of the test password with a scope; the raw response. */
const passwordGrant = (realm: string, email: string, scope: string) =>
  requestToken(realm, { grant_type: 'password', client_id: stack().clientId, username: email, password: TEST_PASSWORD, scope });

/** An offline sign-in of a member; fails the test unless it is granted. */
async function offlineToken(who: Pick<Member, 'email'>, target: TestOrg = org): Promise<TokenBody & { id_token?: string }> {
  const response = await passwordGrant(target.realm, who.email, 'openid offline_access');
  expect(response.status).toBe(200);
  return (await response.json()) as TokenBody & { id_token?: string };
}

/** A refresh grant's status and body. */
async function refreshed(refreshToken: string, realm = org.realm): Promise<{ status: number; body: TokenBody & { error?: string } }> {
  const response = await refresh(realm, refreshToken);
  return { status: response.status, body: (await response.json()) as TokenBody & { error?: string } };
}

interface OfflineSessionDto {
  id: string;
  clientId: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

const offlineUrl = (target: TestOrg, userUuid: string, sessionId?: string) =>
  userArea(target.orgUuid, `/users/${userUuid}/offline-sessions${sessionId === undefined ? '' : `/${sessionId}`}`);

const listAs = (caller: Member, target: TestOrg, userUuid: string): Promise<ApiResponse<OfflineSessionDto[]>> => caller.api.get<OfflineSessionDto[]>(offlineUrl(target, userUuid));
const revokeAs = (caller: Member, target: TestOrg, userUuid: string, sessionId: string) => caller.api.delete(offlineUrl(target, userUuid, sessionId));

describe('the token endpoint', () => {
  test('scope=offline_access answers an offline token: refresh_expires_in 0, typ Offline, the scope granted', async () => {
    const user = await member(org, 'VIEWER');

    const tokens = await offlineToken(user);

    expect(tokens).toMatchObject({ token_type: 'Bearer', refresh_expires_in: 0, scope: 'openid profile email offline_access' });
    expect(tokens.id_token).toEqual(expect.any(String));
    const { payload } = decodeJwt(tokens.refresh_token);
    expect(payload).toMatchObject({ typ: 'Offline', sid: tokens.session_state, sub: user.uuid, scope: 'openid profile email offline_access' });
    // No fixed end, as Keycloak's offline tokens: the session's idle expiry alone ends it, so a token
    // kept and used every few days never dies at its issue time plus 30 days.
    expect(payload).not.toHaveProperty('exp');
    expect((await getSession(tokens.session_state))!.expiresAt).toBeGreaterThanOrEqual(now() + THIRTY_DAYS - 60);
    expect(decodeJwt(tokens.access_token).payload.exp).toBeLessThanOrEqual(now() + 3600);
  });

  test('without offline_access the refresh token is an ordinary one', async () => {
    const user = await member(org, 'VIEWER');

    const response = await passwordGrant(org.realm, user.email, 'openid');
    const tokens = (await response.json()) as TokenBody;

    expect(tokens.refresh_expires_in).toBeGreaterThan(0);
    expect(tokens.scope).toBe('openid profile email');
    expect(decodeJwt(tokens.refresh_token).payload.typ).toBe('Refresh');
  });

  test('an offline token does not rotate: each use answers a fresh access token, and the token used and the one answered both keep working', async () => {
    const user = await member(org, 'VIEWER');
    const kept = await offlineToken(user);

    const first = await refreshed(kept.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ refresh_expires_in: 0, session_state: kept.session_state, scope: 'openid profile email offline_access' });
    expect(decodeJwt(first.body.refresh_token).payload).toMatchObject({ typ: 'Offline', sid: kept.session_state, jti: decodeJwt(kept.refresh_token).payload.jti });
    expect(decodeJwt(first.body.refresh_token).payload).not.toHaveProperty('exp');
    // It is still the user's token: a management operation answers as the user.
    const me = await getCurrentUser(org.orgUuid, bearer(first.body.access_token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ uuid: user.uuid });
    expect(first.body.access_token).not.toBe(kept.access_token);

    // A CI job that stored the first token uses it on every run; one that stored an answered one too,
    // at once or one after the other: every use answers.
    const uses = await Promise.all([refreshed(kept.refresh_token), refreshed(first.body.refresh_token), refreshed(kept.refresh_token)]);
    expect(uses.map((use) => use.status)).toEqual([200, 200, 200]);
    for (let run = 0; run < 3; run++) expect((await refreshed(kept.refresh_token)).status).toBe(200);
    expect((await refreshed(first.body.refresh_token)).status).toBe(200);
    expect(await getSession(kept.session_state, { consistent: true })).toMatchObject({ offline: true, lastUsedAt: expect.any(Number) });
  });

  test('an offline token whose session went unused for the idle time is refused, however it was kept', async () => {
    const user = await member(org, 'VIEWER');
    const kept = await offlineToken(user);
    // The session's idle expiry passed (as 30 days unused would leave it), before its TTL removed it.
    await updateItem({ Key: keys.sessionKey(kept.session_state), UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': now() - 1 } });

    expect(await refreshed(kept.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('an ordinary refresh token still rotates: the one it replaced used again ends the session', async () => {
    const user = await member(org, 'VIEWER');
    const first = (await (await passwordGrant(org.realm, user.email, 'openid')).json()) as TokenBody;

    const second = await refreshed(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(await refreshed(first.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // That reuse ended the session: even the newest token is refused now.
    expect(await refreshed(second.body.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh token of the ordinary kind without an expiry is refused', async () => {
    const user = await member(org, 'VIEWER');
    const online = (await (await passwordGrant(org.realm, user.email, 'openid')).json()) as TokenBody;
    const { payload } = decodeJwt(online.refresh_token);
    const { exp: _exp, ...unbounded } = payload;
    // Signed with the realm's own key, as only this service could: still refused, only offline tokens go without `exp`.
    const forged = await signJwt(unbounded);

    expect(await refreshed(forged)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a refresh slides the idle expiry and records the use', async () => {
    const user = await member(org, 'VIEWER');
    const tokens = await offlineToken(user);
    const begun = (await getSession(tokens.session_state))!;
    expect(begun).toMatchObject({ offline: true, createdAt: expect.any(Number) });

    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await refreshed(tokens.refresh_token)).status).toBe(200);

    const used = (await getSession(tokens.session_state, { consistent: true }))!;
    expect(used.lastUsedAt).toBeGreaterThan(begun.createdAt!);
    expect(used.expiresAt).toBeGreaterThan(begun.expiresAt);
    expect(used.endsAt).toBe(used.expiresAt);
  });

  test('RFC 7009 revocation and logout end an offline session', async () => {
    const user = await member(org, 'VIEWER');
    const [revoked, loggedOut] = await Promise.all([offlineToken(user), offlineToken(user)]);
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${stack().authUrl}/auth/realms/${org.realm}/protocol/openid-connect/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: stack().clientId, ...form }),
      });

    expect((await post('revoke', { token: revoked.refresh_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await post('logout', { refresh_token: loggedOut.refresh_token })).status).toBe(204);

    expect((await refreshed(revoked.refresh_token)).status).toBe(400);
    expect((await refreshed(loggedOut.refresh_token)).status).toBe(400);
  });

  test("a user's offline tokens stop working when the user is deleted, and when it is no longer active", async () => {
    const [deleted, deactivated] = await Promise.all([member(org, 'VIEWER'), member(org, 'VIEWER')]);
    const [a, b, c] = await Promise.all([offlineToken(deleted), offlineToken(deleted), offlineToken(deactivated)]);

    await deleteViaApi(org, deleted.uuid);
    expect((await refreshed(a.refresh_token)).status).toBe(400);
    expect((await refreshed(b.refresh_token)).status).toBe(400);
    expect(await getSession(b.session_state, { consistent: true })).toBeUndefined();

    // Marked inactive in the store alone (no session ended): the refresh grant re-reads the user and ends it.
    await markDeleted(org.orgUuid, deactivated.uuid);
    expect((await refreshed(c.refresh_token)).status).toBe(400);
    expect(await getSession(c.session_state, { consistent: true })).toBeUndefined();
  });

  test('the discovery document offers the offline_access scope', async () => {
    const response = await fetch(`${stack().authUrl}/auth/realms/${org.realm}/.well-known/openid-configuration`);
    expect(((await response.json()) as { scopes_supported: string[] }).scopes_supported).toContain('offline_access');
  });
});

describe("an ADMIN and a user's offline sessions", () => {
  test('lists them (live offline ones only, oldest first) and revokes one: its token stops working, the others go on', async () => {
    const user = await member(org, 'VIEWER');
    const older = await offlineToken(user);
    // Their order is by the second each began.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const newer = await offlineToken(user);
    await passwordGrant(org.realm, user.email, 'openid');
    expect((await refreshed(older.refresh_token)).status).toBe(200);

    const listed = await listAs(org.admin, org, user.uuid);

    expect(listed.status).toBe(200);
    expect(listed.body.map((session) => session.id)).toEqual([older.session_state, newer.session_state]);
    const [first] = listed.body;
    expect(first).toEqual({ id: older.session_state, clientId: stack().clientId, createdAt: expect.any(String), lastUsedAt: expect.any(String), expiresAt: expect.any(String) });
    expect(Date.parse(first!.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(first!.createdAt));
    expect(Date.parse(first!.expiresAt)).toBeGreaterThan(Date.now() + (THIRTY_DAYS - 60) * 1000);
    expect(listed.text).not.toContain(older.refresh_token);

    const revoked = await revokeAs(org.admin, org, user.uuid, newer.session_state);
    expect(revoked.status).toBe(204);

    expect((await refreshed(newer.refresh_token)).status).toBe(400);
    expect((await listAs(org.admin, org, user.uuid)).body.map((session) => session.id)).toEqual([older.session_state]);
    expectError(await revokeAs(org.admin, org, user.uuid, newer.session_state), 404, 'NOT_FOUND');
    // The revocation is in the organization's audit trail, as the user's.
    const audit = await org.admin.api.get<{ content: { action: string; resource: { uuid: string } }[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${user.uuid}`));
    expect(audit.body.content[0]).toMatchObject({ action: 'OFFLINE_SESSION_REVOKED', resource: { type: 'USER', uuid: user.uuid } });
  });

  test("a session id of another user, or an ordinary session's, is a 404 and is left alone", async () => {
    const [user, someoneElse] = await Promise.all([member(org, 'VIEWER'), member(org, 'VIEWER')]);
    const theirs = await offlineToken(someoneElse);
    const online = (await (await passwordGrant(org.realm, user.email, 'openid')).json()) as TokenBody;

    expectError(await revokeAs(org.admin, org, user.uuid, theirs.session_state), 404, 'NOT_FOUND');
    expectError(await revokeAs(org.admin, org, user.uuid, online.session_state), 404, 'NOT_FOUND');

    expect((await refreshed(theirs.refresh_token)).status).toBe(200);
    expect((await refreshed(online.refresh_token)).status).toBe(200);
  });

  test('a non-ADMIN is refused with 403, even for itself', async () => {
    const viewer = await member(org, 'VIEWER');
    const session = await offlineToken(viewer);

    expectError(await listAs(viewer, org, viewer.uuid), 403, 'FORBIDDEN');
    expectError(await revokeAs(viewer, org, viewer.uuid, session.session_state), 403, 'FORBIDDEN');
    expect((await refreshed(session.refresh_token)).status).toBe(200);
  });

  test("another organization's ADMIN, or a user of another organization, is a 404", async () => {
    const [user, stranger] = await Promise.all([member(org, 'VIEWER'), member(other, 'VIEWER')]);
    const [session, strangers] = await Promise.all([offlineToken(user), offlineToken(stranger, other)]);

    expectError(await listAs(other.admin, org, user.uuid), 404, 'NOT_FOUND');
    expectError(await revokeAs(other.admin, org, user.uuid, session.session_state), 404, 'NOT_FOUND');
    expectError(await listAs(org.admin, org, stranger.uuid), 404, 'NOT_FOUND');
    expectError(await revokeAs(org.admin, org, stranger.uuid, strangers.session_state), 404, 'NOT_FOUND');

    expect((await refreshed(session.refresh_token)).status).toBe(200);
    expect((await refreshed(strangers.refresh_token, other.realm)).status).toBe(200);
  });
});
