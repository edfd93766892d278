import { randomBytes } from 'node:crypto';
import { keys, type RefreshSessionKind } from '../../shared/adapters/store/keys';
import { queryIndexPage, transactWrite } from '../../shared/adapters/store/table';
import { SESSIONS_PER_KIND, type Session } from '../../shared/domain/sessions/session.repository';
import { eachLimited } from '../../shared/kernel/retry';
import { bearer, getCurrentUser, TEST_PASSWORD, type TokenBody } from '../support/auth-helpers';
import { CookieJar, signInToAccount } from '../support/cookie-jar';
import { expectError } from '../support/error-body';
import type { ApiResponse } from '../support/http-client';
import { requestToken, stack, userArea } from '../support/stack';
import { freshOrganization, member, refresh, type Member, type TestOrg } from '../support/user-helpers';

/**
 * Sessions per user are bounded: at most 100 offline and 100 ordinary sessions, a sign-in past the cap
 * ending the least recently used one; listings are paged; ending all of a user's sessions is bounded
 * work that completes, with 3,000 offline sessions too.
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const now = () => Math.floor(Date.now() / 1000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function signIn(who: Pick<Member, 'email'>, scope: string): Promise<TokenBody> {
  const response = await requestToken(org.realm, { grant_type: 'password', client_id: stack().clientId, username: who.email, password: TEST_PASSWORD, scope });
  expect(response.status).toBe(200);
  return (await response.json()) as TokenBody;
}

/** `count` sign-ins of a kind, `parallel` at once. */
async function signIns(who: Pick<Member, 'email'>, scope: string, count: number, parallel = 8): Promise<TokenBody[]> {
  const tokens: TokenBody[] = [];
  await eachLimited(Array.from({ length: count }, (_, index) => index), parallel, async () => {
    tokens.push(await signIn(who, scope));
  });
  return tokens;
}

const OFFLINE = 'openid offline_access';
const ONLINE = 'openid';

/** The ids of a user's sessions of a kind that the index lists, live or not. */
async function indexed(userUuid: string, kind: RefreshSessionKind): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryIndexPage(keys.sessionsOf(userUuid), { prefix: keys.refreshSessionsOfKind(kind), limit: 1000, ...(start ? { start } : {}) });
    ids.push(...page.items.map((item) => item.sessionId as string));
    start = page.next;
  } while (start);
  return ids;
}

/**
 * Sessions written straight to the store as a sign-in writes them (no cap applied), `createdAt` a
 * second apart from an hour ago: what a user held before sessions were capped, quickly.
 */
async function storeSessions(user: Member, count: number, offline: boolean): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomBytes(16).toString('base64url'));
  const start = now() - 3600;
  const items = ids.map((sessionId, index) => {
    const createdAt = start + index;
    const expiresAt = now() + 86_400;
    const session: Session = {
      sessionId,
      userUuid: user.uuid,
      orgUuid: org.orgUuid,
      clientId: stack().clientId,
      scope: offline ? 'openid profile email offline_access' : 'openid profile email',
      authTime: createdAt,
      startedAtMs: createdAt * 1000,
      signedInWith: 'password',
      secretHash: randomBytes(32).toString('hex'),
      expiresAt,
      endsAt: expiresAt,
      createdAt,
      ...(offline ? { offline: true as const } : {}),
    };
    return { ...keys.session(sessionId, user.uuid, offline ? 'OFFLINE' : 'ONLINE', createdAt), type: 'SESSION', ttl: expiresAt, ...session };
  });
  // A hundred a transaction: far fewer round trips to the local store than one a session.
  const batches = Array.from({ length: Math.ceil(items.length / 100) }, (_, index) => items.slice(index * 100, index * 100 + 100));
  await eachLimited(batches, 4, async (batch) => {
    expect(await transactWrite(batch.map((Item) => ({ Put: { Item } })))).toEqual([]);
  });
  return ids;
}

const works = async (tokens: TokenBody) => (await refresh(org.realm, tokens.refresh_token)).status === 200;

interface OfflineSessionDto {
  id: string;
  createdAt: string;
}
const offlineUrl = (userUuid: string, query = '') => userArea(org.orgUuid, `/users/${userUuid}/offline-sessions${query}`);
const nextLink = (response: ApiResponse) => response.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1];

describe('the cap, over HTTP', () => {
  test(`a user holds at most ${SESSIONS_PER_KIND} offline sessions: the sign-in past it ends the least recently used one`, async () => {
    const user = await member(org, 'VIEWER');
    const oldest = await signIn(user, OFFLINE);
    await pause(1100);
    const second = await signIn(user, OFFLINE);
    await pause(1100);
    await signIns(user, OFFLINE, SESSIONS_PER_KIND - 2);
    // Used since: the oldest is now the most recently used.
    expect(await works(oldest)).toBe(true);
    expect(await indexed(user.uuid, 'OFFLINE')).toHaveLength(SESSIONS_PER_KIND);

    const past = await signIn(user, OFFLINE);

    expect(await works(second)).toBe(false);
    expect((await getCurrentUser(org.orgUuid, bearer(second.access_token))).status).toBe(401);
    expect(await works(oldest)).toBe(true);
    expect(await works(past)).toBe(true);
    const listed = await indexed(user.uuid, 'OFFLINE');
    expect(listed).toHaveLength(SESSIONS_PER_KIND);
    expect(listed).toEqual(expect.arrayContaining([oldest.session_state, past.session_state]));
    expect(listed).not.toContain(second.session_state);
    // Ordinary sessions are counted apart: one begun now ends no offline one.
    await signIn(user, ONLINE);
    expect(await indexed(user.uuid, 'OFFLINE')).toHaveLength(SESSIONS_PER_KIND);
  });

  test(`and at most ${SESSIONS_PER_KIND} ordinary sessions: the oldest unused one ends, its access token with it`, async () => {
    // `member` signs the user in once: the oldest session, never used since.
    const user = await member(org, 'VIEWER');
    await pause(1100);

    const newer = await signIns(user, ONLINE, SESSIONS_PER_KIND);

    expect((await refresh(org.realm, user.refreshToken)).status).toBe(400);
    expect((await getCurrentUser(org.orgUuid, bearer(user.token))).status).toBe(401);
    const listed = await indexed(user.uuid, 'ONLINE');
    expect(listed).toHaveLength(SESSIONS_PER_KIND);
    expect(listed.sort()).toEqual(newer.map((tokens) => tokens.session_state).sort());
  });

  test('sign-ins at the same instant near the cap leave at least the cap, and the next sign-in trims the rest', async () => {
    const user = await member(org, 'VIEWER');
    const older = await storeSessions(user, SESSIONS_PER_KIND - 5, true);

    const together = await Promise.all(Array.from({ length: 15 }, () => signIn(user, OFFLINE)));

    const left = await indexed(user.uuid, 'OFFLINE');
    expect(left.length).toBeGreaterThanOrEqual(SESSIONS_PER_KIND);
    expect(left.length).toBeLessThanOrEqual(SESSIONS_PER_KIND + together.length);
    // Those ended were the least recently used: older ones, never one of the new.
    expect(left).toEqual(expect.arrayContaining(together.map((tokens) => tokens.session_state)));
    expect(older.filter((id) => !left.includes(id))).toEqual(older.slice(0, older.length + together.length - left.length));
    for (const tokens of together) expect(await works(tokens)).toBe(true);

    await signIn(user, OFFLINE);
    expect(await indexed(user.uuid, 'OFFLINE')).toHaveLength(SESSIONS_PER_KIND);
  });
});

describe("the account page's sessions", () => {
  test("are capped apart from the user's applications: signing in to the page, however often another site opens it, ends none of their sessions", async () => {
    const user = await member(org, 'VIEWER');
    const stored = await storeSessions(user, SESSIONS_PER_KIND, false);
    const accountUrl = `${stack().authUrl}/auth/realms/${org.realm}/account`;

    // Two browsers sign in to the page: each begins a page session, of its own kind.
    for (let browser = 0; browser < 2; browser++) expect((await signInToAccount(new CookieJar(), accountUrl, user.email, TEST_PASSWORD)).status).toBe(200);

    // The user's applications keep every session (the user's own sign-in by \`member\` beside them).
    expect(await indexed(user.uuid, 'ONLINE')).toEqual(expect.arrayContaining(stored));
    expect(await indexed(user.uuid, 'PAGE')).toHaveLength(2);
  });
});

describe("the ADMIN's listing of a user's offline sessions", () => {
  test('is paged: limit a page, the next in the Link header, in the order they were made', async () => {
    const user = await member(org, 'VIEWER');
    const stored = await storeSessions(user, 90, true);
    await signIn(user, ONLINE);

    const pages: OfflineSessionDto[][] = [];
    let url: string | undefined = offlineUrl(user.uuid, '?limit=40');
    while (url) {
      const response: ApiResponse<OfflineSessionDto[]> = await org.admin.api.get<OfflineSessionDto[]>(url);
      expect(response.status).toBe(200);
      pages.push(response.body);
      url = nextLink(response);
    }

    expect(pages.map((page) => page.length)).toEqual([40, 40, 10]);
    expect(pages.flat().map((session) => session.id)).toEqual(stored);
    // By default a page holds what a user may hold.
    const whole = await org.admin.api.get<OfflineSessionDto[]>(offlineUrl(user.uuid));
    expect(whole.body).toHaveLength(90);
    expect(whole.headers.get('link')).toBeNull();
  });

  test("a page token is bound to its user and page size; a limit out of range is refused", async () => {
    const [user, other] = await Promise.all([member(org, 'VIEWER'), member(org, 'VIEWER')]);
    await storeSessions(user, 3, true);
    const first = await org.admin.api.get<OfflineSessionDto[]>(offlineUrl(user.uuid, '?limit=1'));
    const token = new URL(nextLink(first)!).searchParams.get('pageToken')!;

    expectError(await org.admin.api.get(offlineUrl(other.uuid, `?limit=1&pageToken=${token}`)), 422, 'VALIDATION_FAILED');
    expectError(await org.admin.api.get(offlineUrl(user.uuid, `?limit=2&pageToken=${token}`)), 422, 'VALIDATION_FAILED');
    expectError(await org.admin.api.get(offlineUrl(user.uuid, '?limit=0')), 422, 'VALIDATION_FAILED');
    expectError(await org.admin.api.get(offlineUrl(user.uuid, '?limit=101')), 422, 'VALIDATION_FAILED');
  });
});

describe('a user holding 3,000 offline sessions (made before the cap)', () => {
  const accountUrl = (path = '') => `${stack().authUrl}/auth/realms/${org.realm}/account${path}`;

  test('the account page answers a page of them, the listing pages, and a password change ends them all in time', async () => {
    const user = await member(org, 'VIEWER');
    const real = await signIn(user, OFFLINE);
    await storeSessions(user, 3000, true);
    const jar = new CookieJar();
    const page = (path = '') => jar.request(accountUrl(path));
    const post = (form: string, fields: Record<string, string>) => jar.post(accountUrl(`/${form}`), fields);
    expect((await signInToAccount(jar, accountUrl(), user.email, TEST_PASSWORD)).status).toBe(200);

    const profile = await page('?kc_locale=en');
    expect(profile.status).toBe(200);
    expect(profile.text.length).toBeLessThan(64 * 1024);
    const shown = [...profile.text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1]);
    expect(shown).toHaveLength(20);
    const more = profile.text.match(/<a href="account\?kc_locale=en&amp;pageToken=([^"]+)">More offline tokens<\/a>/)?.[1];
    expect(more).toBeDefined();
    const next = await page(`?kc_locale=en&pageToken=${more}`);
    const shownNext = [...next.text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1]);
    expect(shownNext).toHaveLength(20);
    expect(shownNext.filter((id) => shown.includes(id))).toEqual([]);
    // A page token that is not the page's own shows the list from its start.
    expect([...(await page('?kc_locale=en&pageToken=forged.token')).text.matchAll(/name="session" value="([^"]+)"/g)].map((match) => match[1])).toEqual(shown);

    const listing = await org.admin.api.get<OfflineSessionDto[]>(userArea(org.orgUuid, `/users/${user.uuid}/offline-sessions`));
    expect(listing.status).toBe(200);
    expect(listing.body).toHaveLength(100);
    expect(nextLink(listing)).toBeDefined();

    const began = Date.now();
    const password = `Next-${Date.now()}-9a`;
    const changed = await post('password', { csrf: profile.text.match(/name="csrf" value="([^"]+)"/)![1]!, password: TEST_PASSWORD, 'password-new': password, 'password-confirm': password });
    expect(changed.status).toBe(303);
    expect(changed.headers.get('location')).toContain('status=password-saved');
    expect(Date.now() - began).toBeLessThan(10_000);

    // What the change did not delete in its time, its stamp ended: no listing shows it, no token of it works.
    expect(await works(real)).toBe(false);
    expect((await page('?kc_locale=en')).text).toContain('You have no offline tokens.');
    const after = await org.admin.api.get<OfflineSessionDto[]>(userArea(org.orgUuid, `/users/${user.uuid}/offline-sessions`));
    expect(after.body).toEqual([]);
    expect(after.headers.get('link')).toBeNull();
  }, 300_000);
});
