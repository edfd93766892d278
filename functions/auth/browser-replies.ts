import { renderAccountReturnPage } from '../../shared/app/account/account-page';
import type { AccountAnswer, AccountPage, AccountRequest } from '../../shared/app/account/account.service';
import type { authApi } from '../../shared/edge/api/auth.api';
import { realmIssuer } from '../../shared/app/auth/jwt';
import type { AuthorizeAnswer } from '../../shared/app/sign-in/sign-in-end';
import type { RealmSessionChange } from '../../shared/app/sign-in/realm-session';
import type { BrokerAnswer } from '../../shared/app/sign-in/link-confirmation';
import { PAGE_POLICY } from '../../shared/edge/http/realm-page';
import { asAnonymous } from '../../shared/edge/http/public-route';
import { cookieValue, laxCookie, realmCookieScope, strictCookie } from '../../shared/edge/http/cookies';
import type { RouteInput } from '../../shared/edge/http/handler-factory';

/**
 * How the auth function reads a browser's request and answers it: the site it came from, the realm's
 * cookies (the realm session, the sign-in request's binding, the account page's session and sign-in,
 * a first link's confirmation), and the pages and redirects of the sign-in flow and the account page.
 */

/**
 * A sign-in's request, as the cause of what it changes: no caller is known yet, and a lock-out it
 * starts names the locked user itself (`sign-in.ts`).
 */
export const asSignIn = asAnonymous;

/** The account page's session cookie: `<session id>.<secret>`, sent to the realm's page only. */
const ACCOUNT_COOKIE = 'ACCOUNT_SESSION';
/** The PKCE verifier of the page's sign-in through the realm's authorization flow, while it lasts. */
export const ACCOUNT_SSO_COOKIE = 'ACCOUNT_SSO';
/** The realm session: `<session id>.<secret>`, sent to the realm's own addresses only (`realm-session.ts`). */
export const REALM_SESSION_COOKIE = 'REALM_SESSION';
/** The secret that binds a sign-in's request to the browser that made it (Keycloak's AUTH_SESSION_ID). */
export const REQUEST_COOKIE = 'AUTH_SESSION_ID';
const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;

export type RealmInput = RouteInput<{ path: ReturnType<typeof authApi.account.request.path>; query: undefined; body: undefined }>;

/** What the account page's use cases read of a request; a form body only when it is a form. */
export function accountRequest(input: RealmInput): AccountRequest {
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
export function ssoReply(answer: Exclude<AccountAnswer, { kind: 'away' }>, realm: string) {
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

export const accountPage = (handle: (request: AccountRequest) => Promise<AccountAnswer>) => ({
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
export function signInReply<S extends number, R extends 302 | 303>(answer: AuthorizeAnswer<S>, redirect: R, realm: string) {
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
export const LINK_CONFIRMATION_COOKIE = 'BROKER_LINK_CONFIRMATION';

/**
 * A brokered sign-in's answer, with the confirmation cookie it sets or removes: sent only to the
 * confirmation form's address, spelt as the browser requested the realm (paths match by case).
 */
export function brokerReply<R extends 302 | 303>(answer: BrokerAnswer, redirect: R, realm: string) {
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
