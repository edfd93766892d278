import { authorizationRequest, issuerOf, TEST_REDIRECT } from '../support/authorization-request';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { eventsWhen, ofOrg } from '../support/change-events-helpers';
import { requestToken, stack, unique, userArea } from '../support/stack';
import type { TestProvider } from '../support/test-oidc-provider';
import { registeredProvider } from '../support/registered-provider';
import { createViaApi, freshOrganization, member, readUser, refresh, type TestOrg } from '../support/user-helpers';
import { TEST_PASSWORD } from '../support/auth-helpers';

/**
 * A user's link to the organization's identity provider, bound to the provider's `sub`: the first
 * sign-in there binds it (asking the password of a user who has one, and of an ADMIN, on a page in
 * the flow), another account of the provider with the same e-mail is refused, and an ADMIN removes
 * the link. Driven as a browser drives it (cookies kept by hand), the provider played by the test.
 */

const REDIRECT = TEST_REDIRECT;
const COOKIE = 'BROKER_LINK_CONFIRMATION';

let provider: TestProvider;
let org: TestOrg;
let domain: string;
let alias: string;

beforeAll(async () => {
  ({ provider, org, domain, alias } = await registeredProvider('link', 'Link SSO'));
});
afterAll(async () => provider.close());

interface AuditEventDto {
  action: string;
  actor: { uuid: string | null; email: string | null };
  changes?: { op: string; path: string; value?: unknown }[];
}

const auditOf = async (userUuid: string) =>
  (await org.admin.api.get<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${userUuid}&linesPerPage=100`))).body.content;

const linkUrl = (orgUuid: string, userUuid: string) => userArea(orgUuid, `/users/${userUuid}/identity-provider-link`);

/** The browser's trip: the application's request, the provider (signing in `sub`), and the broker's answer. */
async function signInAt(email: string, sub: string, realm = org.realm) {
  const { url, verifier } = authorizationRequest(realm, { login_hint: email });
  const first = await fetch(url, { redirect: 'manual' });
  expect(first.status).toBe(302);
  provider.nextUser = { email, sub };
  const fromProvider = await fetch(first.headers.get('location')!, { redirect: 'manual' });
  const answer = await backToBroker(fromProvider, first);
  return { answer, verifier };
}

/**
 * The sign-in's request cookie each broker answer came back with: the browser that began the sign-in
 * sends it to the broker and to the confirmation form, as a browser keeps its cookies.
 */
const requestCookieOf = new WeakMap<Response, string>();

/** The provider's redirect back to the broker, followed in the browser whose request `began` the sign-in. */
async function backToBroker(fromProvider: Response, began: Response): Promise<Response> {
  const cookie = began.headers.getSetCookie().find((value) => value.startsWith('AUTH_SESSION_ID='))!.split(';')[0]!;
  const answer = await fetch(fromProvider.headers.get('location')!, { redirect: 'manual', headers: { cookie } });
  requestCookieOf.set(answer, cookie);
  return answer;
}

/** The code an answer carries back to the application, exchanged: the tokens' status. */
async function exchanged(answer: Response, verifier: string, realm = org.realm): Promise<number> {
  const location = new URL(answer.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe('app-state');
  const code = location.searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  const tokens = await requestToken(realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code: code!, code_verifier: verifier });
  return tokens.status;
}

/** What the confirmation page gives the browser: its form's confirmation and the cookie. */
async function confirmationOf(answer: Response): Promise<{ confirmation: string; cookie: string; html: string }> {
  expect(answer.status).toBe(200);
  const html = await answer.text();
  const confirmation = /name="confirmation" value="([^"]+)"/.exec(html)![1]!;
  const set = answer.headers.getSetCookie().find((value) => value.startsWith(`${COOKIE}=`))!;
  expect(set).toMatch(new RegExp(`^${COOKIE}=[^;]+; Path=/auth/realms/${org.realm}/login-actions/first-broker-login; HttpOnly; SameSite=Strict; Max-Age=300$`));
  const requestCookie = requestCookieOf.get(answer);
  return { confirmation, cookie: [set.split(';')[0]!, ...(requestCookie ? [requestCookie] : [])].join('; '), html };
}

function confirm(form: Record<string, string>, cookie: string | undefined, options: { realm?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${issuerOf(options.realm ?? org.realm)}/login-actions/first-broker-login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...options.headers },
    body: new URLSearchParams(form),
  });
}

/** A user of the provider's domain: with the test password (an ADMIN set it), or a temporary one. */
const userWith = (password: 'set' | 'temporary', role = 'VIEWER') =>
  createViaApi(org, {
    email: `${role.toLowerCase()}-${unique()}@${domain}`,
    role,
    ...(role === 'ADMIN' ? { permissions: [] } : {}),
    ...(password === 'temporary' ? { password: undefined, confirmPassword: undefined } : {}),
  });

describe('the link binds the provider account (sub)', () => {
  test('first link binds the sub; another sub with the same e-mail is refused until an ADMIN removes the link; then a new sub links', async () => {
    const user = await userWith('temporary');

    // A user with a temporary password only: linked at once, without the confirmation page.
    const first = await signInAt(user.email, 'sub-A');
    expect(first.answer.status).toBe(302);
    expect(await exchanged(first.answer, first.verifier)).toBe(200);
    expect((await readUser(org, user.uuid)).identityProvider).toEqual({ alias, linkedAt: expect.any(String), subject: 'sub-A' });

    // Another account of the provider claiming the same e-mail: a page, not a sign-in.
    const other = await signInAt(user.email, 'sub-B');
    expect(other.answer.status).toBe(403);
    expect(other.answer.headers.get('location')).toBeNull();
    const refusal = await other.answer.text();
    expect(refusal).toContain('ask an ADMIN of your organization to remove the link');
    expect(refusal).not.toContain(user.email);
    expect(refusal.toLowerCase()).not.toContain(user.email.toLowerCase());
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ subject: 'sub-A' });

    // The bound account still signs in.
    const again = await signInAt(user.email, 'sub-A');
    expect(await exchanged(again.answer, again.verifier)).toBe(200);

    // The ADMIN removes the link; the next account links.
    const removed = await org.admin.api.delete(linkUrl(org.orgUuid, user.uuid));
    expect(removed.status).toBe(204);
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');
    const relinked = await signInAt(user.email, 'sub-B');
    expect(await exchanged(relinked.answer, relinked.verifier)).toBe(200);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ alias, subject: 'sub-B' });

    // The trace: each sign-in with its provider and sub, the refusal, the links by the user, the removal by the ADMIN.
    const events = (await auditOf(user.uuid)).reverse().filter((event) => event.action.startsWith('USER_IDENTITY_PROVIDER_'));
    expect(events.map((event) => event.action)).toEqual([
      'USER_IDENTITY_PROVIDER_LINKED',
      'USER_IDENTITY_PROVIDER_SIGNED_IN',
      'USER_IDENTITY_PROVIDER_REFUSED',
      'USER_IDENTITY_PROVIDER_SIGNED_IN',
      'USER_IDENTITY_PROVIDER_UNLINKED',
      'USER_IDENTITY_PROVIDER_LINKED',
      'USER_IDENTITY_PROVIDER_SIGNED_IN',
    ]);
    const byUser = { uuid: user.uuid, email: user.email };
    expect(events.filter((event) => event.action !== 'USER_IDENTITY_PROVIDER_UNLINKED').every((event) => event.actor.uuid === byUser.uuid && event.actor.email === byUser.email)).toBe(true);
    expect(events[4]!.actor).toEqual({ uuid: org.admin.uuid, email: org.admin.email });
    expect(events[4]!.changes).toEqual([{ op: 'remove', path: '/identityProvider' }]);
    expect(events[0]!.changes).toEqual([{ op: 'add', path: '/identityProvider', value: { alias, linkedAt: expect.any(String), subject: 'sub-A' } }]);
    expect(events[2]!.changes).toEqual([
      { op: 'test', path: '/identityProvider/alias', value: alias },
      { op: 'test', path: '/identityProvider/subject', value: 'sub-B' },
    ]);
    expect(events[6]!.changes).toEqual([
      { op: 'test', path: '/identityProvider/alias', value: alias },
      { op: 'test', path: '/identityProvider/subject', value: 'sub-B' },
    ]);

    // The removal is a change event as other user changes are.
    const published = await eventsWhen((event) => ofOrg(org.orgUuid)(event) && event.detail.data.resource.uuid === user.uuid && event.detail.type.endsWith('.user.identity-provider.unlinked'), 1);
    expect(published).toHaveLength(1);
    expect(published[0]!.detail.data.actor).toEqual({ uuid: org.admin.uuid, email: org.admin.email });
  });
});

describe('DELETE …/users/{userId}/identity-provider-link', () => {
  test('ADMIN only: another role 403, another organization 404, a user without a link 404, an unknown user 404; nothing changes', async () => {
    const user = await userWith('temporary');
    const linked = await signInAt(user.email, `sub-${unique()}`);
    expect(await exchanged(linked.answer, linked.verifier)).toBe(200);

    const editor = await member(org, 'EDITOR');
    const forbidden = await editor.api.delete(linkUrl(org.orgUuid, user.uuid));
    expect(forbidden.status).toBe(403);
    const other = await freshOrganization();
    expect((await other.admin.api.delete(linkUrl(org.orgUuid, user.uuid))).status).toBe(404);
    // Another organization's ADMIN naming the user under its own organization: not its user.
    expect((await other.admin.api.delete(linkUrl(other.orgUuid, user.uuid))).status).toBe(404);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ alias });

    const unlinked = await userWith('temporary');
    const none = await org.admin.api.delete(linkUrl(org.orgUuid, unlinked.uuid));
    expect(none.status).toBe(404);
    expect(JSON.stringify(none.body)).toMatch(/no identity-provider link/);
    expect((await org.admin.api.delete(linkUrl(org.orgUuid, '00000000-0000-4000-8000-000000000000'))).status).toBe(404);

    expect((await org.admin.api.delete(linkUrl(org.orgUuid, user.uuid))).status).toBe(204);
    expect((await org.admin.api.delete(linkUrl(org.orgUuid, user.uuid))).status).toBe(404);
    expect((await auditOf(user.uuid)).filter((event) => event.action === 'USER_IDENTITY_PROVIDER_UNLINKED')).toHaveLength(1);
  });
});

describe('removing a link ends what the linked account began', () => {
  test("the realm session, a session and an offline token begun through the provider stop working once the ADMIN removes the link", async () => {
    const user = await userWith('temporary');
    const { url, verifier } = authorizationRequest(org.realm, { login_hint: user.email, scope: 'openid offline_access' });
    const first = await fetch(url, { redirect: 'manual' });
    provider.nextUser = { email: user.email, sub: `sub-${unique()}` };
    const answer = await backToBroker(await fetch(first.headers.get('location')!, { redirect: 'manual' }), first);
    const realmSession = answer.headers.getSetCookie().find((value) => value.startsWith('REALM_SESSION='))!.split(';')[0]!;
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens = await requestToken(org.realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const offline = ((await tokens.json()) as { refresh_token: string }).refresh_token;
    const second = await signInAt(user.email, (await readUser(org, user.uuid)).identityProvider!.subject!);
    const online = ((await (await requestToken(org.realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code: new URL(second.answer.headers.get('location')!).searchParams.get('code')!, code_verifier: second.verifier })).json()) as { refresh_token: string }).refresh_token;
    expect(online).toMatch(/^[A-Za-z0-9_.-]+$/);
    const silently = () => fetch(`${issuerOf(org.realm)}/protocol/openid-connect/auth?${new URLSearchParams({ ...Object.fromEntries(new URL(url).searchParams), prompt: 'none' })}`, { redirect: 'manual', headers: { cookie: realmSession } });
    expect(new URL((await silently()).headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));

    expect((await org.admin.api.delete(linkUrl(org.orgUuid, user.uuid))).status).toBe(204);

    expect((await refresh(org.realm, offline)).status).toBe(400);
    expect((await refresh(org.realm, online)).status).toBe(400);
    expect(new URL((await silently()).headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });
});

describe('the first link of a user with a password asks for it', () => {
  test('a wrong password shows the page again (counted toward the lockout); the right one links and answers the code; a replay finds nothing', async () => {
    const user = await userWith('set');
    const { answer, verifier } = await signInAt(user.email, 'sub-pw');
    const { confirmation, cookie, html } = await confirmationOf(answer);
    expect(html).toContain('Link SSO');
    expect(html).toMatch(/<form method="post" action="\.\.\/\.\.\/login-actions\/first-broker-login">/);
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');

    const wrong = await confirm({ confirmation, password: 'Not-The-Passw0rd' }, cookie);
    expect(wrong.status).toBe(200);
    const again = await wrong.text();
    expect(again).toContain('role="alert"');
    expect(again).toContain(`value="${confirmation}"`);
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');
    const lock = await org.admin.api.get<{ numFailures: number }>(userArea(org.orgUuid, `/attack-detection/brute-force/users/${user.uuid}`));
    expect(lock.body.numFailures).toBe(1);

    const right = await confirm({ confirmation, password: TEST_PASSWORD }, cookie);
    expect(right.status).toBe(303);
    // The sign-in opens the browser's realm session; the request's and the confirmation's cookies go.
    expect(right.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^REALM_SESSION=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; /),
      expect.stringMatching(/^AUTH_SESSION_ID=; .*Max-Age=0$/),
      expect.stringMatching(new RegExp(`^${COOKIE}=; .*Max-Age=0$`)),
    ]);
    expect(await exchanged(right, verifier)).toBe(200);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ alias, subject: 'sub-pw' });

    const replayed = await confirm({ confirmation, password: TEST_PASSWORD }, cookie);
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('location')).toBeNull();

    // Bound now: the next sign-in there asks nothing.
    const next = await signInAt(user.email, 'sub-pw');
    expect(next.answer.status).toBe(302);
    expect(await exchanged(next.answer, next.verifier)).toBe(200);
  });

  test('an ADMIN is asked, even with a temporary password; a user with a temporary password is not', async () => {
    const admin = await userWith('temporary', 'ADMIN');
    const asked = await signInAt(admin.email, `sub-${unique()}`);
    expect(asked.answer.status).toBe(200);
    expect(await asked.answer.text()).toContain('name="password"');
    expect(await readUser(org, admin.uuid)).not.toHaveProperty('identityProvider');

    const adminWithPassword = await userWith('set', 'ADMIN');
    const { answer, verifier } = await signInAt(adminWithPassword.email, 'sub-admin');
    const { confirmation, cookie } = await confirmationOf(answer);
    const right = await confirm({ confirmation, password: TEST_PASSWORD }, cookie);
    expect(await exchanged(right, verifier)).toBe(200);
    expect((await readUser(org, adminWithPassword.uuid)).identityProvider).toMatchObject({ subject: 'sub-admin' });

    const viewer = await userWith('temporary');
    const skipped = await signInAt(viewer.email, `sub-${unique()}`);
    expect(skipped.answer.status).toBe(302);
  });

  test('refused without the cookie, with another browser\'s, from another site, at another realm, or once expired; none of these links', async () => {
    const user = await userWith('set');
    const { answer, verifier } = await signInAt(user.email, 'sub-guarded');
    const { confirmation, cookie } = await confirmationOf(answer);
    // Another browser's own confirmation (of another user) gives it another secret.
    const otherUser = await userWith('set');
    const otherBrowser = await confirmationOf((await signInAt(otherUser.email, 'sub-other')).answer);

    expect((await confirm({ confirmation, password: TEST_PASSWORD }, undefined)).status).toBe(400);
    expect((await confirm({ confirmation, password: TEST_PASSWORD }, otherBrowser.cookie)).status).toBe(400);
    expect((await confirm({ confirmation, password: TEST_PASSWORD }, `${COOKIE}=${'A'.repeat(43)}`)).status).toBe(400);
    const crossSite = await confirm({ confirmation, password: TEST_PASSWORD }, cookie, { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://attacker.example' } });
    expect(crossSite.status).toBe(403);
    const elsewhere = await freshOrganization();
    expect((await confirm({ confirmation, password: TEST_PASSWORD }, cookie, { realm: elsewhere.realm })).status).toBe(400);
    expect((await confirm({ confirmation: 'x'.repeat(5000), password: TEST_PASSWORD }, cookie)).status).toBe(400);
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');

    // None of the refusals used it up: the right browser still confirms, once.
    const right = await confirm({ confirmation, password: TEST_PASSWORD }, cookie);
    expect(await exchanged(right, verifier)).toBe(200);

    // Expired: the other browser's confirmation, past its five minutes.
    await updateItem({
      Key: keys.linkConfirmation(otherBrowser.confirmation),
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
    });
    expect((await confirm({ confirmation: otherBrowser.confirmation, password: TEST_PASSWORD }, otherBrowser.cookie)).status).toBe(400);
    expect(await readUser(org, otherUser.uuid)).not.toHaveProperty('identityProvider');
  });

  test('two posts of the right password at once: one code, one link event', async () => {
    const user = await userWith('set');
    const { answer } = await signInAt(user.email, 'sub-race');
    const { confirmation, cookie } = await confirmationOf(answer);
    const answers = await Promise.all([1, 2, 3].map(() => confirm({ confirmation, password: TEST_PASSWORD }, cookie)));
    expect(answers.map((response) => response.status).sort()).toEqual([303, 400, 400]);
    expect((await auditOf(user.uuid)).filter((event) => event.action === 'USER_IDENTITY_PROVIDER_LINKED')).toHaveLength(1);
  });
});

describe("the account page's sign-in through the provider", () => {
  test('asks the same confirmation, then the page session begins', async () => {
    const user = await userWith('set');
    provider.nextUser = { email: user.email, sub: 'sub-account' };
    const account = `${issuerOf(org.realm)}/account`;
    // No password typed: the page sends the person on to the realm's sign-in with the e-mail as its hint.
    const posted = await fetch(`${account}/sign-in?kc_locale=en`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: user.email }),
    });
    expect(posted.status).toBe(303);
    const ssoCookie = posted.headers.getSetCookie().find((value) => value.startsWith('ACCOUNT_SSO='))!.split(';')[0]!;
    // On to the realm's sign-in, which sends the person of the provider's domain on to the provider.
    const toProvider = await fetch(posted.headers.get('location')!, { redirect: 'manual' });
    expect(toProvider.status).toBe(302);
    const fromProvider = await fetch(toProvider.headers.get('location')!, { redirect: 'manual' });
    const page = await backToBroker(fromProvider, toProvider);
    const { confirmation, cookie } = await confirmationOf(page);
    expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');

    const confirmed = await confirm({ confirmation, password: TEST_PASSWORD }, cookie);
    expect(confirmed.status).toBe(303);
    const back = new URL(confirmed.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${account}/sso`);
    const landed = await fetch(back, { redirect: 'manual', headers: { cookie: ssoCookie } });
    expect(landed.status).toBe(200);
    const session = landed.headers.getSetCookie().find((value) => value.startsWith('ACCOUNT_SESSION='))!.split(';')[0]!;
    expect(await (await fetch(`${account}?kc_locale=en`, { headers: { cookie: session } })).text()).toContain(user.email);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ alias, subject: 'sub-account' });
  });
});
