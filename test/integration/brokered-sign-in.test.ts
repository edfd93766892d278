import { createHash, randomBytes } from 'node:crypto';
import { requestToken, stack, unique, userArea } from '../support/stack';
import { registrationOf, type Misbehaviour, type TestProvider } from '../support/test-oidc-provider';
import { registeredProvider } from '../support/registered-provider';
import { createViaApi, deleteViaApi, freshOrganization, readUser, signIn, type TestOrg } from '../support/user-helpers';

/**
 * Sign-in brokered to an organization's own OpenID provider, driven as a browser drives it, every
 * redirect followed by hand: the application's request, the provider (a server of the test's, which can
 * misbehave), the broker's endpoint, and back to the application with a code or `access_denied`.
 */

const REDIRECT = 'http://127.0.0.1:8765/callback';
const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;

let provider: TestProvider;
let org: TestOrg;
let domain: string;
let alias: string;

beforeAll(async () => {
  let registration: { redirectUri: string };
  ({ provider, org, domain, alias, registration } = await registeredProvider('corp', 'Corp SSO'));
  expect(registration.redirectUri).toBe(`${issuerOf(org.realm)}/broker/${alias}/endpoint`);
});
afterAll(async () => provider.close());
afterEach(() => {
  provider.behaviour = 'good';
});

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const authorizeUrl = (params: Record<string, string>): string => authorizeUrlOf(org.realm, params);

/** An authorization request of the console client to a realm. */
function authorizeUrlOf(realm: string, params: Record<string, string>): string {
  return `${issuerOf(realm)}/protocol/openid-connect/auth?${new URLSearchParams({
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: REDIRECT,
    state: 'app-state',
    code_challenge_method: 'S256',
    ...params,
  })}`;
}

/**
 * The browser's sign-in request cookie, kept from the stack's answers and sent back to the stack only:
 * a sign-in goes on only in the browser that began it.
 */
let requestCookie: string | undefined;
async function get(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  const toStack = new URL(url).origin === new URL(stack().authUrl).origin;
  const response = await fetch(url, { redirect: 'manual', ...init, headers: { ...init.headers, ...(toStack && requestCookie ? { cookie: requestCookie } : {}) } });
  const set = response.headers.getSetCookie().find((line) => line.startsWith('AUTH_SESSION_ID='));
  if (toStack && set) requestCookie = set.split(';')[0];
  return response;
}
const locationOf = (response: Response) => new URL(response.headers.get('location')!);

/** From the application's request through the provider and the broker: the redirect back to the application. */
async function throughProvider(first: Response): Promise<{ toProvider: URL; back: Response }> {
  expect(first.status).toBe(302);
  const toProvider = locationOf(first);
  const fromProvider = await get(toProvider.toString());
  expect(fromProvider.status).toBe(302);
  const back = await get(locationOf(fromProvider).toString());
  return { toProvider, back };
}

/** A user of the provider's domain with a temporary password, as a directory provisions them: the first link asks for no password (broker-link.test.ts). */
async function userAt(local: string) {
  return createViaApi(org, { email: `${local}-${unique()}@${domain}`, password: undefined, confirmPassword: undefined });
}

describe('home-realm discovery and the broker', () => {
  test('a login_hint of the domain goes to the provider with state, nonce and PKCE of its own; the user comes back signed in and linked', async () => {
    const user = await userAt('alice');
    provider.nextUser = { email: user.email.toUpperCase() };
    const { verifier, challenge } = pkce();

    const { toProvider, back } = await throughProvider(await get(authorizeUrl({ code_challenge: challenge, login_hint: user.email, scope: 'openid', nonce: 'app-nonce' })));

    expect(`${toProvider.origin}${toProvider.pathname}`).toBe(`${provider.issuer}/authorize`);
    expect(Object.fromEntries(toProvider.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: `${issuerOf(org.realm)}/broker/${alias}/endpoint`,
      code_challenge_method: 'S256',
      login_hint: user.email,
      scope: 'openid email profile',
    });
    expect(toProvider.searchParams.get('state')).not.toBe('app-state');
    expect(toProvider.searchParams.get('nonce')).not.toBe('app-nonce');
    expect(toProvider.searchParams.get('code_challenge')).not.toBe(challenge);

    expect(back.status).toBe(302);
    const answer = locationOf(back);
    expect(`${answer.origin}${answer.pathname}`).toBe(REDIRECT);
    expect(answer.searchParams.get('state')).toBe('app-state');
    expect(answer.searchParams.get('iss')).toBe(issuerOf(org.realm));
    const tokens = await requestToken(org.realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code: answer.searchParams.get('code')!, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect((await readUser(org, user.uuid)).identityProvider).toMatchObject({ alias, linkedAt: expect.any(String) });
  });

  test("prompt=login and max_age are asked of the provider, whose auth_time must show a new sign-in: its own session answering silently passes no step-up", async () => {
    const user = await userAt('stepup');
    const now = Math.floor(Date.now() / 1000);
    const stepUp = async (params: Record<string, string>, authTime: number | undefined) => {
      provider.nextUser = { email: user.email, ...(authTime === undefined ? {} : { authTime }) };
      const { toProvider, back } = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, kc_idp_hint: alias, ...params })));
      return { asked: toProvider.searchParams, answer: locationOf(back).searchParams };
    };

    const renewed = await stepUp({ prompt: 'login' }, now);
    expect(renewed.asked.get('prompt')).toBe('login');
    expect(renewed.answer.get('code')).toEqual(expect.any(String));

    for (const [params, authTime] of [
      [{ prompt: 'login' }, undefined],
      [{ prompt: 'login' }, now - 3600],
      [{ max_age: '60' }, now - 3600],
    ] as const) {
      const { asked, answer } = await stepUp(params, authTime);
      if ('max_age' in params) expect(asked.get('max_age')).toBe('60');
      expect(answer.get('error')).toBe('access_denied');
      expect(answer.get('error_description')).toMatch(/auth_time|earlier one|older one/);
    }

    // Without a step-up asked, the provider's own session (an old auth_time, or none) signs in as before.
    expect((await stepUp({}, now - 3600)).answer.get('code')).toEqual(expect.any(String));
    expect((await stepUp({}, undefined)).asked.has('prompt')).toBe(false);
  });

  test('kc_idp_hint names the provider to go to, with no e-mail asked; an alias the organization lacks is ignored', async () => {
    const user = await userAt('hinted');
    provider.nextUser = { email: user.email };
    const { toProvider, back } = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, kc_idp_hint: alias })));
    expect(`${toProvider.origin}${toProvider.pathname}`).toBe(`${provider.issuer}/authorize`);
    expect(toProvider.searchParams.has('login_hint')).toBe(false);
    expect(locationOf(back).searchParams.get('code')).toEqual(expect.any(String));

    const unknown = await get(authorizeUrl({ code_challenge: pkce().challenge, kc_idp_hint: 'no-such-provider' }));
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toContain('name="password"');
    // An unknown hint leaves home-realm discovery to the login_hint.
    const discovered = await get(authorizeUrl({ code_challenge: pkce().challenge, kc_idp_hint: 'no-such-provider', login_hint: user.email }));
    expect(discovered.status).toBe(302);
    expect(locationOf(discovered).origin).toBe(provider.issuer);
  });

  test('an e-mail of the domain typed on the sign-in page goes to the provider too', async () => {
    const user = await userAt('typed');
    provider.nextUser = { email: user.email };
    const page = await (await get(authorizeUrl({ code_challenge: pkce().challenge }))).text();
    const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const posted = await get(`${issuerOf(org.realm)}/login-actions/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, username: user.email, password: '' }),
    });
    expect(posted.status).toBe(303);
    expect(locationOf(posted).origin).toBe(provider.issuer);
    const back = await get(locationOf(await get(locationOf(posted).toString())).toString());
    expect(locationOf(back).searchParams.get('code')).toEqual(expect.any(String));
  });

  test.each<[string, Misbehaviour, RegExp]>([
    ['refuses the person', 'refuses', /refused the sign-in \(access_denied\)/],
    ['signs for another audience', 'wrong-audience', /ID token is not valid/],
    ['names another issuer', 'wrong-issuer', /ID token is not valid/],
    ['signs with a key not in its JWKS', 'bad-signature', /ID token is not valid/],
    ['answers an expired ID token', 'expired', /ID token is not valid/],
    ['answers another nonce', 'wrong-nonce', /nonce/],
    ['has not verified the e-mail', 'unverified-email', /not verified the e-mail/],
    ['releases no e-mail', 'no-email', /gave no e-mail/],
    ['refuses the code at its token endpoint', 'token-error', /token endpoint did not answer/],
    ['answers an ID token without exp', 'no-exp', /no expiry \(exp\)/],
    ['answers an ID token without iat', 'no-iat', /no issue time \(iat\)/],
    ['answers an ID token issued an hour ahead', 'future-iat', /issued in the future/],
    ['answers an ID token whose azp names another client', 'foreign-azp', /another client \(azp\)/],
    ['answers an ID token without sub', 'no-sub', /no subject \(sub\)/],
  ])('a provider that %s: back to the application with access_denied, nobody signed in', async (_name, behaviour, description) => {
    const user = await userAt(behaviour);
    provider.nextUser = { email: user.email };
    provider.behaviour = behaviour;

    const { back } = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: user.email })));

    expect(back.status).toBe(302);
    const answer = locationOf(back);
    expect(`${answer.origin}${answer.pathname}`).toBe(REDIRECT);
    expect(answer.searchParams.get('error')).toBe('access_denied');
    expect(answer.searchParams.get('error_description')).toMatch(description);
    expect(answer.searchParams.get('state')).toBe('app-state');
    expect(answer.searchParams.get('code')).toBeNull();
    expect((await readUser(org, user.uuid)).identityProvider).toBeUndefined();
  });

  test("a provider that vouches for an e-mail outside its domains signs no one in (not even the organization's ADMIN)", async () => {
    const user = await userAt('hinted');
    provider.nextUser = { email: org.admin.email };
    const { back } = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: user.email })));
    const answer = locationOf(back);
    expect(answer.searchParams.get('error')).toBe('access_denied');
    expect(answer.searchParams.get('error_description')).toMatch(/outside the domains/);
    expect(answer.searchParams.get('error_description')).not.toContain(org.admin.email);
  });

  test("Entra ID's xms_edov (the e-mail's domain verified by the tenant) stands for email_verified", async () => {
    const user = await userAt('entra');
    provider.nextUser = { email: user.email };
    provider.behaviour = 'entra-verified-domain';
    const { back } = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: user.email })));
    expect(locationOf(back).searchParams.get('code')).toEqual(expect.any(String));
  });

  test('an e-mail no user of the organization has, or a deleted user, is access_denied', async () => {
    provider.nextUser = { email: `stranger-${unique()}@${domain}` };
    const stranger = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: provider.nextUser.email })));
    expect(locationOf(stranger.back).searchParams.get('error')).toBe('access_denied');

    const gone = await userAt('gone');
    await deleteViaApi(org, gone.uuid);
    provider.nextUser = { email: gone.email };
    const deleted = await throughProvider(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: gone.email })));
    expect(locationOf(deleted.back).searchParams.get('error')).toBe('access_denied');
  });

  test("the provider's answer is taken once: a replay finds an error page", async () => {
    const user = await userAt('replay');
    provider.nextUser = { email: user.email };
    const toProvider = locationOf(await get(authorizeUrl({ code_challenge: pkce().challenge, login_hint: user.email })));
    const answer = locationOf(await get(toProvider.toString())).toString();
    expect((await get(answer)).status).toBe(302);

    const replayed = await get(answer);
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('location')).toBeNull();
  });

  test('a state nobody sent answers an error page, never a redirect', async () => {
    const response = await get(`${issuerOf(org.realm)}/broker/${alias}/endpoint?code=x&state=${randomBytes(32).toString('base64url')}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('an enforced provider', () => {
  let enforced: TestOrg;
  let enforcedDomain: string;
  beforeAll(async () => {
    enforced = await freshOrganization();
    enforcedDomain = `strict-${unique()}.example`;
    const created = await enforced.admin.api.post(userArea(enforced.orgUuid, '/identity-providers'), registrationOf(provider, { alias: `strict-${unique()}`, displayName: 'Strict SSO', domains: [enforcedDomain], enforce: true }));
    expect(created.status).toBe(201);
  });

  test("refuses its domain's passwords on the password grant, naming the provider; other domains sign in as before", async () => {
    const user = await createViaApi(enforced, { email: `bob-${unique()}@${enforcedDomain}`, password: 'Bob-Passw0rd', confirmPassword: 'Bob-Passw0rd' });

    const refused = await signIn(enforced.realm, user.email, 'Bob-Passw0rd');
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_grant');
    expect(body.error_description).toContain('Strict SSO');

    expect((await signIn(enforced.realm, enforced.admin.email, enforced.admin.password)).status).toBe(200);
  });

  test("the account page sends them through the realm's flow to the provider and comes back signed in; without the sign-in's cookie it does not", async () => {
    const user = await createViaApi(enforced, { email: `carol-${unique()}@${enforcedDomain}` });
    provider.nextUser = { email: user.email };
    const account = `${issuerOf(enforced.realm)}/account`;
    const startAt = () =>
      fetch(`${account}/sign-in?kc_locale=en`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: user.email }),
      });

    const posted = await startAt();
    expect(posted.status).toBe(303);
    // The page is a client of the realm's flow: on to the authorization endpoint, the e-mail as its hint.
    const toFlow = locationOf(posted);
    expect(`${toFlow.origin}${toFlow.pathname}`).toBe(`${issuerOf(enforced.realm)}/protocol/openid-connect/auth`);
    expect(toFlow.searchParams.get('login_hint')).toBe(user.email);
    const ssoCookie = posted.headers.getSetCookie().find((cookie) => cookie.startsWith('ACCOUNT_SSO='))!;
    expect(ssoCookie).toMatch(/HttpOnly; SameSite=Lax/);
    const toProvider = await get(toFlow.toString());
    expect(locationOf(toProvider).origin).toBe(provider.issuer);
    const back = await get(locationOf(await get(locationOf(toProvider).toString())).toString());
    const ssoReturn = locationOf(back);
    expect(ssoReturn.toString()).toMatch(new RegExp(`^${account}/sso\\?code=`));

    const withoutCookie = await fetch(ssoReturn, { redirect: 'manual' });
    expect(withoutCookie.status).toBe(200);
    expect(await withoutCookie.text()).toContain('role="alert"');

    // The same trip again, now carrying the cookie back as a browser would.
    provider.nextUser = { email: user.email };
    const again = await startAt();
    const cookie = again.headers.getSetCookie().find((value) => value.startsWith('ACCOUNT_SSO='))!.split(';')[0]!;
    const fromBroker = await get(locationOf(await get(locationOf(await get(locationOf(again).toString())).toString())).toString());
    // Signing in through the provider opened the realm session too.
    const realmSession = fromBroker.headers.getSetCookie().find((value) => value.startsWith('REALM_SESSION='))!;
    expect(realmSession).toMatch(new RegExp(`^REALM_SESSION=[^;]+; Path=/auth/realms/${enforced.realm}/; HttpOnly; SameSite=Lax`));
    const landed = await fetch(locationOf(fromBroker), { redirect: 'manual', headers: { cookie } });
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain('http-equiv="refresh"');
    const session = landed.headers.getSetCookie().find((value) => value.startsWith('ACCOUNT_SESSION='))!.split(';')[0]!;
    const profile = await (await fetch(`${account}?kc_locale=en`, { headers: { cookie: session } })).text();
    expect(profile).toContain(user.email);
    expect(profile).toContain('Your account');

    // An application's request in the same browser is answered at once, without the provider.
    const { challenge } = pkce();
    const silent = await fetch(authorizeUrlOf(enforced.realm, { code_challenge: challenge, prompt: 'none' }), { redirect: 'manual', headers: { cookie: realmSession.split(';')[0]! } });
    expect(locationOf(silent).toString()).toMatch(new RegExp(`^${REDIRECT}\\?code=`));
  });
});

describe("the local stack's demo OpenID provider", () => {
  test('signs its demo user in to the seeded organization through the broker, end to end', async () => {
    const demo = stack().demoSso;
    const { verifier, challenge } = pkce();
    const jar = new Map<string, string>();
    const browse = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      return response;
    };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: stack().clientId,
      redirect_uri: REDIRECT,
      state: 'demo-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      login_hint: demo.user.email,
    });

    // The API sends the browser on to the demo provider, which shows its sign-in form.
    let response = await browse(`${issuerOf(demo.realm)}/protocol/openid-connect/auth?${query}`);
    expect(locationOf(response).origin).toBe(new URL(demo.issuer).origin);
    let url = locationOf(response).toString();
    for (let hops = 0; hops < 10 && !url.startsWith(REDIRECT); hops++) {
      response = await browse(url);
      if (response.status === 200) {
        // The provider's own page: the demo user's e-mail and password, posted to its form.
        const page = await response.text();
        const action = new URL(/<form method="post" action="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&'), url).toString();
        response = await browse(action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ login: demo.user.email, password: demo.user.password }).toString(),
        });
      }
      expect([302, 303]).toContain(response.status);
      url = new URL(response.headers.get('location')!, url).toString();
    }

    const answer = new URL(url);
    expect(answer.searchParams.get('state')).toBe('demo-state');
    const tokens = await requestToken(demo.realm, { grant_type: 'authorization_code', client_id: stack().clientId, redirect_uri: REDIRECT, code: answer.searchParams.get('code')!, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const { access_token } = (await tokens.json()) as { access_token: string };
    expect(JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString())).toMatchObject({ email: demo.user.email });
  });
});
