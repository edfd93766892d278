import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { getSession } from '../../shared/domain/sessions/session.repository';
import { getUser, saveUser, stampCredentials } from '../../shared/domain/users/user.repository';
import { bearer, getCurrentUser, TEST_PASSWORD, type TokenBody } from '../support/auth-helpers';
import { CookieJar, signInToAccount } from '../support/cookie-jar';
import type { ApiResponse } from '../support/http-client';
import { requestToken, stack, unique, userArea } from '../support/stack';
import { freshOrganization, member, refresh, signIn, type Member, type TestOrg } from '../support/user-helpers';

/**
 * The credential stamp: setting or changing a password, disabling a user and enforcing its domain's
 * provider end every session begun before, whatever the revocation that follows misses. The probes
 * here make the misses happen on purpose: a session the sessions index does not list (as an index
 * not yet consistent leaves one), and sign-ins still in flight while the password changes.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const offlineSignIn = async (email: string, password = TEST_PASSWORD): Promise<Response> =>
  requestToken(org.realm, { grant_type: 'password', client_id: stack().clientId, username: email, password, scope: 'openid offline_access' });

async function offlineToken(who: Pick<Member, 'email'>): Promise<TokenBody> {
  const response = await offlineSignIn(who.email);
  expect(response.status).toBe(200);
  return (await response.json()) as TokenBody;
}

/** Takes a session out of its user's sessions index, as an index that has not caught up yet leaves it: a revocation cannot find it. */
async function hideFromIndex(sessionId: string): Promise<void> {
  await updateItem({ Key: keys.sessionKey(sessionId), UpdateExpression: 'REMOVE GSI1PK, GSI1SK', ConditionExpression: 'attribute_exists(PK)' });
}

/** Whether a session's refresh token and access token still work. */
async function stillWorks(tokens: TokenBody): Promise<{ refresh: number; call: number }> {
  const call = await getCurrentUser(org.orgUuid, bearer(tokens.access_token));
  const refreshed = await refresh(org.realm, tokens.refresh_token);
  return { refresh: refreshed.status, call: call.status };
}

const newPassword = () => `Next-${unique()}-9a`;
const setPassword = (user: Member, password: string) => org.users.update(user.uuid, { name: user.name, email: user.email, password, confirmPassword: password });

describe('a session the sessions index does not list', () => {
  test('ends when an ADMIN sets the password: its offline token and its access token stop at once', async () => {
    const user = await member(org, 'VIEWER');
    const hidden = await offlineToken(user);
    await hideFromIndex(hidden.session_state);
    expect(await stillWorks(hidden)).toEqual({ refresh: 200, call: 200 });
    const again = await offlineToken(user);
    await hideFromIndex(again.session_state);

    const password = newPassword();
    expect((await setPassword(user, password)).status).toBe(200);

    // The revocation could not see it: the session item is still there, and the stamp alone refuses it.
    expect(await getSession(again.session_state, { consistent: true })).toBeDefined();
    expect(await stillWorks(again)).toEqual({ refresh: 400, call: 401 });
    expect((await refresh(org.realm, hidden.refresh_token)).status).toBe(400);
    // A refused session is ended for good.
    expect(await getSession(hidden.session_state, { consistent: true })).toBeUndefined();
    // Signing in with the new password begins a session that works.
    const fresh = (await (await offlineSignIn(user.email, password)).json()) as TokenBody;
    expect(await stillWorks(fresh)).toEqual({ refresh: 200, call: 200 });
  });

  test('stays ended when the user is deleted and reactivated', async () => {
    const user = await member(org, 'VIEWER');
    const hidden = await offlineToken(user);
    await hideFromIndex(hidden.session_state);

    expect((await org.users.delete(user.uuid)).status).toBe(204);
    expect((await org.users.activate({ email: user.email })).status).toBe(200);

    expect(await stillWorks(hidden)).toEqual({ refresh: 400, call: 401 });
    expect((await getUser(org.orgUuid, user.uuid, { consistent: true }))?.credentialsChangedAt).toEqual(expect.any(Number));
  });

  test("ends when the user changes the password on the account page, the page's own session included", async () => {
    const user = await member(org, 'VIEWER');
    const hidden = await offlineToken(user);
    await hideFromIndex(hidden.session_state);
    const page = new AccountPage(org.realm);
    expect((await page.signIn(user.email)).status).toBe(200);
    const other = new AccountPage(org.realm);
    expect((await other.signIn(user.email)).status).toBe(200);
    await hideFromIndex(other.sessionId!);

    const profile = await page.get();
    const password = newPassword();
    const changed = await page.post('password', { csrf: csrfOf(profile), password: TEST_PASSWORD, 'password-new': password, 'password-confirm': password });
    expect(changed.status).toBe(303);

    expect(await stillWorks(hidden)).toEqual({ refresh: 400, call: 401 });
    // The other browser's page session, which the revocation could not see, shows the sign-in form again.
    expect((await other.get()).text).toContain('name="password"');
    expect((await other.get()).text).not.toContain(user.email);
    // The page that changed the password goes on in a new session.
    expect((await page.get()).text).toContain(user.email);
  });
});

describe('a password change races the sign-ins in flight', () => {
  test('every session begun with the old password ends, whenever its sign-in finished', async () => {
    const user = await member(org, 'VIEWER');
    const password = newPassword();
    // Sign-ins with the old password sent while the password changes: some finish before the change,
    // some after it, some write their session after the revocation read the index.
    const inFlight = Array.from({ length: 12 }, (_, index) =>
      new Promise((resolve) => setTimeout(resolve, index * 15)).then(() => offlineSignIn(user.email)),
    );
    const change = new Promise((resolve) => setTimeout(resolve, 60)).then(() => setPassword(user, password));

    const [answers, changed] = await Promise.all([Promise.all(inFlight), change]);
    expect(changed.status).toBe(200);

    const granted = await Promise.all(answers.filter((answer) => answer.status === 200).map(async (answer) => (await answer.json()) as TokenBody));
    const outcomes = await Promise.all(granted.map(stillWorks));
    expect(outcomes.filter((outcome) => outcome.refresh !== 400 || outcome.call !== 401)).toEqual([]);
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(400);
  });

  test('a session whose sign-in checked the old password before the change ends, though it was written after it', async () => {
    const user = await member(org, 'VIEWER');
    const late = await offlineToken(user);
    // As a sign-in in flight leaves it: begun (its password checked) before the change, written after
    // the revocation had read the index.
    const before = Date.now() - 1;
    await hideFromIndex(late.session_state);
    await updateItem({ Key: keys.sessionKey(late.session_state), UpdateExpression: 'SET startedAtMs = :before', ExpressionAttributeValues: { ':before': before } });

    expect((await setPassword(user, newPassword())).status).toBe(200);

    expect(await stillWorks(late)).toEqual({ refresh: 400, call: 401 });
  });
});

describe('the stamp itself', () => {
  test('a user write that read the user before a stamp keeps the stamp (a profile saved while the password changes)', async () => {
    const user = await member(org, 'VIEWER');
    const seen = (await getUser(org.orgUuid, user.uuid, { consistent: true }))!;
    const stamp = await stampCredentials(org.orgUuid, user.uuid);

    expect(await saveUser({ ...seen, name: 'Renamed meanwhile', updatedAt: new Date().toISOString() }, seen)).toBe(true);

    expect(await getUser(org.orgUuid, user.uuid, { consistent: true })).toMatchObject({ name: 'Renamed meanwhile', credentialsChangedAt: stamp });
  });

  test('never moves back, and is not shown in the API', async () => {
    const user = await member(org, 'VIEWER');
    const later = await stampCredentials(org.orgUuid, user.uuid);
    await updateItem({ Key: keys.userKey(org.orgUuid, user.uuid), UpdateExpression: 'SET credentialsChangedAt = :later', ExpressionAttributeValues: { ':later': later + 60_000 } });

    await stampCredentials(org.orgUuid, user.uuid);

    expect((await getUser(org.orgUuid, user.uuid, { consistent: true }))?.credentialsChangedAt).toBe(later + 60_000);
    const shown = await org.users.get(user.uuid);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('credentialsChangedAt');
  });
});

describe("enforcing a domain's provider", () => {
  const providersUrl = (path = '') => userArea(org.orgUuid, `/identity-providers${path}`);
  const providerBody = (alias: string, domain: string, enforce: boolean) => ({
    alias,
    displayName: 'Corp SSO',
    issuer: stack().demoSso.issuer,
    clientId: 'corp-client',
    clientSecret: 'corp-secret-value',
    domains: [domain],
    enforce,
  });

  test("ends the password sessions of the domain's users, even one the index does not list; removing the provider revives none", async () => {
    const domain = `corp-${unique()}.example`;
    const [inDomain, outside] = await Promise.all([member(org, 'VIEWER', { email: `ada-${unique()}@${domain}` }), member(org, 'VIEWER')]);
    const [listed, hidden, dormant, unaffected] = await Promise.all([offlineToken(inDomain), offlineToken(inDomain), offlineToken(inDomain), offlineToken(outside)]);
    await Promise.all([hideFromIndex(hidden.session_state), hideFromIndex(dormant.session_state)]);
    const alias = `corp-${unique()}`;

    // Registered without enforcement: password sessions go on.
    expect((await org.admin.api.post(providersUrl(), providerBody(alias, domain, false))).status).toBe(201);
    expect(await stillWorks(listed)).toEqual({ refresh: 200, call: 200 });

    expect((await org.admin.api.put(providersUrl(`/${alias}`), providerBody(alias, domain, true))).status).toBe(200);

    expect(await stillWorks(hidden)).toEqual({ refresh: 400, call: 401 });
    expect((await refresh(org.realm, listed.refresh_token)).status).toBe(400);
    expect(await stillWorks(unaffected)).toEqual({ refresh: 200, call: 200 });

    // The domain's stamp outlives its provider: a session it ended, unused since, stays ended.
    expect((await org.admin.api.delete(providersUrl(`/${alias}`))).status).toBe(204);
    expect(await stillWorks(dormant)).toEqual({ refresh: 400, call: 401 });
  });

  test('a provider registered already enforced ends them too', async () => {
    const domain = `corp-${unique()}.example`;
    const someone = await member(org, 'VIEWER', { email: `grace-${unique()}@${domain}` });
    const tokens = await offlineToken(someone);

    expect((await org.admin.api.post(providersUrl(), providerBody(`corp-${unique()}`, domain, true))).status).toBe(201);

    expect(await stillWorks(tokens)).toEqual({ refresh: 400, call: 401 });
  });
});

const accountUrl = (realm: string, path = '') => `${stack().authUrl}/auth/realms/${realm}/account${path}`;
const csrfOf = (page: ApiResponse) => page.text.match(/name="csrf" value="([^"]+)"/)![1]!;

/** A browser of the account page: keeps its cookies (the page's session, the realm session). */
class AccountPage {
  private readonly jar = new CookieJar();
  constructor(private readonly realm: string) {}

  /** The id of the page's session (its cookie holds `<id>.<secret>`). */
  get sessionId(): string | undefined {
    return this.jar.value('ACCOUNT_SESSION')?.split('.')[0];
  }

  /** Signs in through the realm's flow, as the page leads a browser to; answers the page then shown. */
  signIn(email: string): Promise<ApiResponse> {
    return signInToAccount(this.jar, accountUrl(this.realm), email, TEST_PASSWORD);
  }

  /** The page, or, without a live session, the realm's sign-in page it leads to. */
  async get(query = ''): Promise<ApiResponse> {
    return (await this.jar.follow(`${accountUrl(this.realm)}${query}`)).response;
  }

  post(form: string, fields: Record<string, string>): Promise<ApiResponse> {
    return this.jar.post(accountUrl(this.realm, `/${form}`), fields);
  }
}
