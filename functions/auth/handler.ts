import { changePassword, finishSso, revokeOfflineToken, showAccount, signIn, signOut } from '../../shared/app/account/account.service';
import { pageLanguage } from '../../shared/app/pages/page-language';
import { authApi } from '../../shared/edge/api/auth.api';
import { bearerToken } from '../../shared/app/auth/caller';
import { discovery, logout, realmKeys, revokeToken, userInfo } from '../../shared/app/auth/openid.service';
import { readTokenForm } from '../../shared/app/auth/token.service';
import { grantToken } from '../../shared/app/auth/token-endpoint';
import { isAllowedWebOrigin } from '../../shared/app/auth/redirect-uris';
import { authenticate, authorize } from '../../shared/app/sign-in/authorization.service';
import { endSession, endSessionByForm, isSignOutConfirmation } from '../../shared/app/sign-in/end-session';
import { THIRD_PARTY_COOKIES_PAGE, THIRD_PARTY_COOKIES_POLICY } from '../../shared/app/sign-in/third-party-cookies';
import { finishBrokeredSignIn } from '../../shared/app/sign-in/broker';
import { confirmLink } from '../../shared/app/sign-in/link-confirmation';
import { cookieValue } from '../../shared/edge/http/cookies';
import { crossOrigin } from '../../shared/edge/http/cross-origin';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { publicOperation } from '../../shared/edge/http/public-route';
import { ok } from '../../shared/edge/http/types';
import { deviceRoutes } from './device-routes';
import { ACCOUNT_SSO_COOKIE, accountPage, accountRequest, asSignIn, brokerReply, LINK_CONFIRMATION_COOKIE, REALM_SESSION_COOKIE, REQUEST_COOKIE, signInReply, ssoReply, type RealmInput } from './browser-replies';

/** The OpenID Connect provider of each realm and its account page. */

const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
const publicCache = { 'cache-control': 'public, max-age=300' };

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
    handle: async ({ path }) => ok(await realmKeys(path.realm), publicCache),
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
