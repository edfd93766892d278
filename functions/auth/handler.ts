import { renderAccountReturnPage } from '../../shared/app/account/account-page';
import { changePassword, finishSso, revokeOfflineToken, showAccount, signIn, signOut, type AccountAnswer, type AccountPage, type AccountRequest } from '../../shared/app/account/account.service';
import { pageLanguage } from '../../shared/app/pages/page-language';
import { authApi } from '../../shared/edge/api/auth.api';
import { withAuditContext } from '../../shared/domain/audit/audit-context';
import { bearerToken } from '../../shared/app/auth/caller';
import { realmIssuer } from '../../shared/app/auth/jwt';
import { discovery, logout, revokeToken, userInfo } from '../../shared/app/auth/openid.service';
import { realmExists } from '../../shared/app/auth/realm';
import { tokenSigner } from '../../shared/app/auth/signer';
import { readTokenForm } from '../../shared/app/auth/token.service';
import { grantToken } from '../../shared/app/auth/token-endpoint';
import { isAllowedWebOrigin } from '../../shared/app/auth/redirect-uris';
import { authenticate, authorize } from '../../shared/app/sign-in/authorization.service';
import { endSession, endSessionByForm, isSignOutConfirmation } from '../../shared/app/sign-in/end-session';
import type { AuthorizeAnswer } from '../../shared/app/sign-in/sign-in-end';
import type { RealmSessionChange } from '../../shared/app/sign-in/realm-session';
import { THIRD_PARTY_COOKIES_PAGE, THIRD_PARTY_COOKIES_POLICY } from '../../shared/app/sign-in/third-party-cookies';
import { finishBrokeredSignIn } from '../../shared/app/sign-in/broker';
import { confirmLink, type BrokerAnswer } from '../../shared/app/sign-in/link-confirmation';
import { NotFoundError } from '../../shared/kernel/errors';
import { PAGE_POLICY } from '../../shared/kernel/html/layout';
import { cookieValue, laxCookie, realmCookieScope, strictCookie } from '../../shared/edge/http/cookies';
import { crossOrigin } from '../../shared/edge/http/cross-origin';
import { createFunction, routes, type RouteInput } from '../../shared/edge/http/handler-factory';
import { publicOperation } from '../../shared/edge/http/public-route';
import { ok } from '../../shared/edge/http/types';
import { deviceRoutes } from './device-routes';

/** The OpenID Connect provider of each realm and its account page. */

const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
const publicCache = { 'cache-control': 'public, max-age=300' };

/**
 * A sign-in's request, as the cause of what it changes: no caller is known yet, and a lock-out it
 * starts names the locked user itself (`sign-in.ts`).
 */
const asSignIn = <T>(requestId: string, work: () => Promise<T>): Promise<T> =>
  withAuditContext({ actor: { uuid: null, email: null }, requestId }, work);

/** The account page's session cookie: `<session id>.<secret>`, sent to the realm's page only. */
const ACCOUNT_COOKIE = 'ACCOUNT_SESSION';
/** The PKCE verifier of the page's sign-in through the realm's authorization flow, while it lasts. */
const ACCOUNT_SSO_COOKIE = 'ACCOUNT_SSO';
/** The realm session: `<session id>.<secret>`, sent to the realm's own addresses only (`realm-session.ts`). */
const REALM_SESSION_COOKIE = 'REALM_SESSION';
/** The secret that binds a sign-in's request to the browser that made it (Keycloak's AUTH_SESSION_ID). */
const REQUEST_COOKIE = 'AUTH_SESSION_ID';
const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;

type RealmInput = RouteInput<{ path: ReturnType<typeof authApi.account.request.path>; query: undefined; body: undefined }>;

/** What the account page's use cases read of a request; a form body only when it is a form. */
function accountRequest(input: RealmInput): AccountRequest {
  const { path, headers, rawQuery, cookies, rawBody } = input;
  const isForm = FORM_TYPE.test(headers['content-type'] ?? '');
  // Browsers say where a request comes from in Sec-Fetch-Site and Origin; anything but this API's own
  // origin is another site, `null` (a sandboxed frame, a data: page) included. The page's same-origin
  // referrer policy makes its own forms send their real Origin. A client that sends neither header
  // (curl, a script) is not a browser another site could steer.
  const site = headers['sec-fetch-site'];
  const crossSite = (site !== undefined && site !== 'same-origin' && site !== 'none') || (headers.origin !== undefined && !isOwnOrigin(headers.origin, headers.host));
  return {
    realm: path.realm,
    sessionToken: cookieValue(cookies, ACCOUNT_COOKIE),
    realmSessionToken: cookieValue(cookies, REALM_SESSION_COOKIE),
    crossSite,
    locale: rawQuery.kc_locale,
    acceptLanguage: headers['accept-language'],
    status: rawQuery.status,
    pageToken: rawQuery.pageToken,
    ...(isForm ? { form: new URLSearchParams(rawBody ?? '') } : {}),
  };
}

function isOwnOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false; // `null`, or not an origin at all
  }
}

/**
 * A page, or a 303 back to the page (from `…/account/<form>` to `…/account`) that sets or removes the
 * page session's cookie; never stored, never framed, under the one policy of the realm's pages.
 */
const pageHeaders = { 'cache-control': 'no-store', pragma: 'no-cache' };

function shownPage(page: AccountPage) {
  return { status: 200 as const, body: page.html, contentType: 'text/html; charset=utf-8', headers: { ...pageHeaders, 'content-security-policy': PAGE_POLICY } };
}

function pageReply(answer: Exclude<AccountAnswer, { kind: 'away' }>, realm: string) {
  const headers = pageHeaders;
  if (answer.kind === 'page') return shownPage(answer);
  const query = new URLSearchParams({ kc_locale: answer.language, ...(answer.notice ? { status: answer.notice } : {}) });
  const cookies = [...(answer.session === undefined ? [] : [accountCookie(realm, answer.session)]), ...(answer.realmSignedOut ? [realmSessionCookie(realm, null)] : [])];
  return { status: 303 as const, headers: { ...headers, location: `../account?${query}` }, ...(cookies.length ? { cookies } : {}) };
}

/** A form's answer: as `pageReply`, or on to the organization's identity provider with the sign-in's verifier in a cookie. */
function formReply(answer: AccountAnswer, realm: string) {
  if (answer.kind !== 'away') return pageReply(answer, realm);
  const { path, secure } = accountCookiePath(realm);
  return {
    status: 303 as const,
    headers: { ...pageHeaders, 'cross-origin-opener-policy': 'unsafe-none', location: answer.location },
    cookies: [laxCookie(ACCOUNT_SSO_COOKIE, answer.sso.verifier, { path, secure, maxAgeSeconds: answer.sso.seconds })],
  };
}

/**
 * Back from the identity provider: the answer sets the page session, then the page reloads itself to
 * `../account`. Not a redirect: the trip began on another site, and a browser sends no SameSite=Strict
 * cookie with a redirect that other site started, so the page would not see its own session.
 */
function ssoReply(answer: Exclude<AccountAnswer, { kind: 'away' }>, realm: string) {
  if (answer.kind === 'page') return shownPage(answer);
  const query = new URLSearchParams({ kc_locale: answer.language });
  const { path, secure } = accountCookiePath(realm);
  return {
    status: 200 as const,
    body: renderAccountReturnPage(answer.language, `../account?${query}`),
    contentType: 'text/html; charset=utf-8',
    headers: { ...pageHeaders, 'content-security-policy': PAGE_POLICY },
    cookies: [
      ...(answer.session ? [accountCookie(realm, answer.session)] : []),
      laxCookie(ACCOUNT_SSO_COOKIE, undefined, { path, secure, maxAgeSeconds: 0 }),
    ],
  };
}

/**
 * The realm's path (`…/realms/{realm}/`, in the realm's one spelling, which every address the flow
 * sends the browser to uses), and whether it is https, from `TOKEN_ISSUER`.
 */
function realmCookiePath(realm: string): { path: string; secure: boolean } {
  return realmCookieScope(realmIssuer(realm.toLowerCase()));
}

/** The account page's cookie path. */
function accountCookiePath(realm: string): { path: string; secure: boolean } {
  const { path, secure } = realmCookiePath(realm);
  return { path: `${path}account`, secure };
}

/** The Set-Cookie of the realm session begun (or ended: `null`): every address of the realm, top-level navigations from other sites included. */
function realmSessionCookie(realm: string, session: RealmSessionChange): string {
  const { path, secure } = realmCookiePath(realm);
  return laxCookie(REALM_SESSION_COOKIE, session?.token, { path, secure, maxAgeSeconds: session?.seconds ?? 0 });
}

/**
 * The Set-Cookie of a sign-in's request cookie kept (or ended: `null`): every address of the realm, and
 * Lax, since the identity provider sends the browser back by a top-level GET from its own site.
 */
function requestCookie(realm: string, change: { secret: string; seconds: number } | null): string {
  const { path, secure } = realmCookiePath(realm);
  return laxCookie(REQUEST_COOKIE, change?.secret, { path, secure, maxAgeSeconds: change?.seconds ?? 0 });
}

/** The Set-Cookie of a page session begun (or ended: `null`), for this realm's page only. */
function accountCookie(realm: string, session: { token: string; seconds: number } | null): string {
  const { path, secure } = accountCookiePath(realm);
  return strictCookie(ACCOUNT_COOKIE, session?.token, { path, secure, maxAgeSeconds: session?.seconds ?? 0 });
}

const accountPage = (handle: (request: AccountRequest) => Promise<AccountAnswer>) => ({
  handle: async (input: RealmInput) => formReply(await asSignIn(input.requestId, () => handle(accountRequest(input))), input.path.realm),
});

/**
 * A page of the authorization flow, or its redirect (302 from the authorization request, 303 after a
 * form, so the browser follows with a GET). Never stored; the pages' one policy (`PAGE_POLICY`) lets
 * its form's answer redirect anywhere the flow goes. An application may open the flow in a window of
 * its own (the API reference does) and wait for the window to come back through the identity provider,
 * another site: these answers do not cut the window from its opener (`Cross-Origin-Opener-Policy: unsafe-none`).
 */
const signInHeaders = { ...pageHeaders, 'cross-origin-opener-policy': 'unsafe-none' };
function signInReply<S extends number, R extends 302 | 303>(answer: AuthorizeAnswer<S>, redirect: R, realm: string) {
  const lines = [...(answer.realmSession === undefined ? [] : [realmSessionCookie(realm, answer.realmSession)]), ...(answer.requestCookie === undefined ? [] : [requestCookie(realm, answer.requestCookie)])];
  const cookies = lines.length ? { cookies: lines } : {};
  if (answer.kind === 'redirect') return { status: redirect, headers: { ...signInHeaders, location: answer.location }, ...cookies };
  return {
    status: answer.status,
    body: answer.html,
    contentType: 'text/html; charset=utf-8',
    headers: { ...signInHeaders, 'content-security-policy': PAGE_POLICY },
    ...cookies,
  };
}

/** The secret that binds a first link's confirmation page to the browser it was shown in. */
const LINK_CONFIRMATION_COOKIE = 'BROKER_LINK_CONFIRMATION';

/**
 * A brokered sign-in's answer, with the confirmation cookie it sets or removes: sent only to the
 * confirmation form's address, spelt as the browser requested the realm (paths match by case).
 */
function brokerReply<R extends 302 | 303>(answer: BrokerAnswer, redirect: R, realm: string) {
  const reply = signInReply(answer, redirect, realm);
  if (answer.confirmationCookie === undefined) return reply;
  const issuer = new URL(realmIssuer(realm.toLowerCase()));
  const path = `${issuer.pathname.replace(/\/realms\/[^/]*$/, '')}/realms/${encodeURIComponent(realm)}/login-actions/first-broker-login`;
  const set = answer.confirmationCookie;
  // Beside any cookie the answer sets already (a session the sign-in opens).
  const others: unknown = 'cookies' in reply ? reply.cookies : undefined;
  const cookies = [...(Array.isArray(others) ? (others as string[]) : []), strictCookie(LINK_CONFIRMATION_COOKIE, set?.secret, { path, secure: issuer.protocol === 'https:', maxAgeSeconds: set?.seconds ?? 0 })];
  return { ...reply, cookies };
}

/** userinfo, GET and POST alike: the bearer token's user. */
const userinfo = { handle: async ({ path, headers }: RealmInput) => ok(await userInfo(path.realm, bearerToken(headers.authorization)), noStore) };

export const handlers = routes(
  // The authorization code flow with PKCE: the sign-in page, and its form.
  publicOperation(authApi.authorize, {
    handle: async ({ path, queryString, headers, cookies, requestId }) =>
      signInReply(
        await asSignIn(requestId, () =>
          authorize({ realm: path.realm, queryString, acceptLanguage: headers['accept-language'], realmSessionToken: cookieValue(cookies, REALM_SESSION_COOKIE) }),
        ),
        302,
        path.realm,
      ),
  }),
  publicOperation(authApi.broker, {
    handle: async ({ path, queryString, headers, cookies, requestId }) =>
      brokerReply(
        await asSignIn(requestId, () =>
          finishBrokeredSignIn(path.realm, path.alias, queryString, pageLanguage(undefined, headers['accept-language']), cookieValue(cookies, REQUEST_COOKIE)),
        ),
        302,
        path.realm,
      ),
  }),
  // A first link's confirmation: the user's password, posted by the page the broker answered.
  publicOperation(authApi.firstBrokerLogin, {
    handle: async (input) => {
      const request = accountRequest(input as unknown as RealmInput);
      const answer = await asSignIn(input.requestId, () =>
        confirmLink({
          realm: input.path.realm,
          form: request.form ?? new URLSearchParams(),
          acceptLanguage: input.headers['accept-language'],
          crossSite: request.crossSite ?? false,
          browserSecret: cookieValue(input.cookies, LINK_CONFIRMATION_COOKIE),
          requestSecret: cookieValue(input.cookies, REQUEST_COOKIE),
        }),
      );
      return brokerReply(answer, 303, input.path.realm);
    },
  }),
  publicOperation(authApi.authenticate, {
    handle: async (input) => {
      const request = accountRequest(input as unknown as RealmInput);
      const form = request.form ?? new URLSearchParams();
      const answer = await asSignIn(input.requestId, () =>
        authenticate({
          realm: input.path.realm,
          form,
          acceptLanguage: input.headers['accept-language'],
          crossSite: request.crossSite ?? false,
          browserSecret: cookieValue(input.cookies, REQUEST_COOKIE),
        }),
      );
      return signInReply(answer, 303, input.path.realm);
    },
  }),
  // Token endpoint: password and refresh_token grants, answered in OAuth 2.0's own shapes.
  publicOperation(authApi.token, {
    handle: async ({ path, headers, rawBody, requestId }) =>
      ok(await asSignIn(requestId, () => grantToken(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization))), noStore),
  }),
  // The device authorization grant (RFC 8628): the device's request, and the verification page.
  ...deviceRoutes((input) => accountRequest(input).crossSite ?? false),
  // JWKS: the public key that verifies every realm's tokens.
  publicOperation(authApi.certs, {
    handle: async ({ path }) => {
      if (!(await realmExists(path.realm))) throw new NotFoundError('The realm was not found');
      return ok({ keys: [await tokenSigner().publicJwk()] }, publicCache);
    },
  }),
  publicOperation(authApi.discovery, { handle: async ({ path }) => ok(await discovery(path.realm), publicCache) }),
  publicOperation(authApi.userinfo, userinfo),
  publicOperation(authApi.userinfoPost, userinfo),
  // RFC 7009 revocation: always 200 once the client is known.
  publicOperation(authApi.revoke, {
    handle: async ({ path, headers, rawBody }) => {
      await revokeToken(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization));
      return { status: 200, headers: noStore };
    },
  }),
  // Logout with a refresh token, 204 as Keycloak answers; a browser's form without one (an ID token
  // hint, a redirect) is RP-initiated logout, as the GET.
  publicOperation(authApi.logout, {
    handle: async (input) => {
      const { path, headers, rawBody } = input;
      const form = readTokenForm(headers['content-type'], rawBody, headers.authorization);
      if (!form.has('refresh_token') && (form.has('id_token_hint') || form.has('post_logout_redirect_uri') || isSignOutConfirmation(form))) {
        const { realmSessionToken, crossSite } = accountRequest(input as unknown as RealmInput);
        const params = new URLSearchParams([...form]);
        return signInReply(await endSessionByForm({ realm: path.realm, params, acceptLanguage: headers['accept-language'], realmSessionToken, crossSite }), 302, path.realm);
      }
      await logout(path.realm, form);
      return { status: 204 as const, headers: noStore };
    },
  }),
  // RP-initiated logout: the browser's way to the same address.
  publicOperation(authApi.endSession, {
    handle: async (input) => {
      const { path, queryString, headers } = input;
      const { realmSessionToken, crossSite } = accountRequest(input as unknown as RealmInput);
      return signInReply(await endSession({ realm: path.realm, params: new URLSearchParams(queryString), acceptLanguage: headers['accept-language'], realmSessionToken, crossSite }), 302, path.realm);
    },
  }),
  // keycloak-js's third-party cookie check: a static page, framed by the application's own.
  publicOperation(authApi.thirdPartyCookies, {
    handle: async () => ({
      status: 200 as const,
      body: THIRD_PARTY_COOKIES_PAGE,
      contentType: 'text/html; charset=utf-8',
      // Meant to be framed, by a page under `Cross-Origin-Embedder-Policy: require-corp` too: no
      // X-Frame-Options (an empty header removes the shared one), and a cross-origin resource policy.
      headers: { ...publicCache, 'content-security-policy': THIRD_PARTY_COOKIES_POLICY, 'x-frame-options': '', 'cross-origin-resource-policy': 'cross-origin' },
    }),
  }),
  publicOperation(authApi.account, accountPage((request) => showAccount(request))),
  publicOperation(authApi.accountSignIn, accountPage((request) => signIn(request))),
  publicOperation(authApi.accountPassword, accountPage((request) => changePassword(request))),
  publicOperation(authApi.accountSso, {
    handle: async (input) => {
      const request = accountRequest(input as unknown as RealmInput);
      const { rawQuery, cookies } = input;
      const answer = await asSignIn(input.requestId, () =>
        finishSso({ ...request, locale: request.locale ?? rawQuery.state, code: rawQuery.code, error: rawQuery.error, ssoVerifier: cookieValue(cookies, ACCOUNT_SSO_COOKIE) }),
      );
      return ssoReply(answer, input.path.realm);
    },
  }),
  publicOperation(authApi.accountSignOut, accountPage((request) => signOut(request))),
  publicOperation(authApi.accountRevokeOfflineToken, accountPage((request) => revokeOfflineToken(request))),
);

/**
 * What a browser application on its own origin reads (CORS, simple requests only): the realm's
 * documents from anywhere; the token, revocation and logout answers from the deployment's own web
 * origins and loopback (docs/api/auth.md#browser-applications-on-another-origin).
 */
const crossOriginReads = crossOrigin([
  { operations: [authApi.discovery, authApi.certs], origins: 'any' },
  { operations: [authApi.token, authApi.revoke, authApi.logout], origins: isAllowedWebOrigin },
]);

export const handler = createFunction('auth', handlers, { crossOrigin: crossOriginReads });
