import type * as z from 'zod/mini';
import { accountSchemas } from '../../app/account/account.schemas';
import { authResponses } from '../../app/auth/auth.responses';
import { authSchemas } from '../../app/auth/auth.schemas';
import { linkConfirmationSchemas } from '../../app/sign-in/link-confirmation.schemas';
import { clientId, refreshToken } from './examples';
import { gatewayStatuses, operationsUnder, type Operation } from './operation';

/**
 * The OpenID Connect provider of each realm (one per organization), shaped like Keycloak's, and the
 * account page (HTML forms, no script): sign in through the realm's flow, change the password, sign out. These routes
 * are public: they check their own credentials, OAuth's way, and answer OAuth's errors.
 */
const realm = operationsUnder('auth', 'auth', '/auth/realms/{realm}');

/** The errors of a public route that answers OAuth's body: its own 400 and 401, and the gateway's. */
const oauthErrors = { oauth: true, only: [400, 401, ...gatewayStatuses] };
/** The errors of a public route that answers JSON: an unknown realm, and the gateway's. */
const realmErrors = { only: [404, ...gatewayStatuses] };
const htmlPage = { mediaType: 'text/html', description: 'HTML' };

/** A public JSON document of the realm, which clients may cache. */
const realmDocument = <const I extends string, const P extends string, const J extends z.ZodMiniType>(id: I, path: P, summary: string, answer: { description: string; json: () => J }) =>
  realm({
    id,
    method: 'GET',
    path,
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema },
    summary,
    errors: realmErrors,
    responses: [{ status: 200, description: answer.description, json: answer.json, headers: ['Cache-Control'] }],
  });

const userInfo = {
  method: 'GET',
  path: '/protocol/openid-connect/userinfo',
  access: 'bearer',
  request: { path: () => authSchemas().realmPathSchema },
  summary: "The bearer token's user (OpenID Connect userinfo)",
  errors: { oauth: true, only: [401, ...gatewayStatuses] },
  responses: [{ status: 200, description: 'Claims of the user', json: () => authResponses().userInfoSchema, headers: ['Cache-Control'] }],
} as const satisfies Omit<Operation, 'id' | 'group' | 'area'>;

/** What a form posted to the realm declares besides its route: its words, errors and answers. */
type FormDeclaration = Pick<Operation, 'summary' | 'errors' | 'responses' | 'example'>;

/** A form posted to a public route of the realm, which the route reads itself (OAuth's way, or the account page's). */
const realmForm = <const I extends string, const P extends string, const D extends FormDeclaration>(id: I, path: P, form: () => z.ZodMiniType, declared: D) =>
  realm({ id, method: 'POST', path, access: 'public', request: { path: () => authSchemas().realmPathSchema, form }, ...declared });

/** A form of the account page: it answers the next page (or the same form with its error), never JSON. */
const accountForm = <const I extends string, const P extends string>(id: I, path: P, summary: string, form: () => z.ZodMiniType, example: unknown) =>
  realmForm(id, path, form, {
    summary,
    // 403: posted from another site (login CSRF).
    errors: { only: [403, ...realmErrors.only] },
    responses: [
      { status: 200, description: 'The next page, or the form again with what was wrong (in the page)', text: htmlPage, headers: ['Cache-Control'] },
      { status: 303, description: 'Done: see the account page', headers: ['Location', 'Set-Cookie'] },
    ],
    example,
  });

const ada = { username: 'ada@example.com', password: 'Analytical-1843' };

/** What the authorization flow's browser steps answer: a page, an error page, or a redirect. */
const signInPage = 'The sign-in page (or the same form with what was wrong, or the set-password step)';
const backToApplication =
  "Back to `redirect_uri` with `code`, `state` and `iss`, or with `error`, `error_description`, `state` and `iss` (RFC 6749 §4.1.2, RFC 9207); or on to the organization's identity provider";
const errorPage = 'An error page, never a redirect: unknown `client_id`, a `redirect_uri` not allowed, or a sign-in that expired';

/** The device verification page's answers (RFC 8628 §3.3): a page, never JSON. */
const devicePage = (description: string) => ({ status: 200 as const, description, text: htmlPage, headers: ['Cache-Control' as const] });
const deviceProblem = (status: 400 | 403 | 404, description: string) => ({ status, description, text: htmlPage, headers: ['Cache-Control' as const] });
const deviceExpired = 'An error page: the sign-in or the device authorization expired, was already decided, or a field was repeated or too long';

export const authApi = {
  authorize: realm({
    id: 'auth.authorize',
    method: 'GET',
    path: '/protocol/openid-connect/auth',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema, query: () => authSchemas().authorizationQuerySchema },
    summary: 'Start the authorization code flow with PKCE: the sign-in page',
    errors: { only: gatewayStatuses },
    responses: [
      { status: 200, description: signInPage, text: htmlPage, headers: ['Cache-Control', 'Set-Cookie'] },
      { status: 302, description: backToApplication, headers: ['Location', 'Cache-Control', 'Set-Cookie'] },
      { status: 400, description: errorPage, text: htmlPage, headers: ['Cache-Control'] },
      { status: 404, description: 'An error page: no organization has this realm', text: htmlPage, headers: ['Cache-Control'] },
    ],
  }),
  authenticate: realmForm('auth.authenticate', '/login-actions/authenticate', () => authSchemas().authenticateFormSchema, {
    summary: 'The sign-in page\'s form: the e-mail and password, or the first password of a temporary account',
    errors: { only: gatewayStatuses },
    responses: [
      { status: 200, description: signInPage, text: htmlPage, headers: ['Cache-Control'] },
      { status: 303, description: backToApplication, headers: ['Location', 'Cache-Control'] },
      { status: 400, description: errorPage, text: htmlPage, headers: ['Cache-Control'] },
      { status: 403, description: 'An error page: the form was posted from another site (login CSRF)', text: htmlPage, headers: ['Cache-Control'] },
    ],
    example: { request: '<request of the page>', ...ada },
  }),
  broker: realm({
    id: 'auth.broker',
    method: 'GET',
    path: '/broker/{alias}/endpoint',
    access: 'public',
    request: { path: () => authSchemas().brokerPathSchema, query: () => authSchemas().brokerQuerySchema },
    summary: "The redirect URI of an organization's identity provider: its answer to a brokered sign-in",
    // Its success is a redirect, as the API root's is: `default` names every other answer.
    errors: { only: gatewayStatuses, anyOther: true },
    responses: [
      { status: 200, description: "The link's confirmation page: the first link of a user with a password of their own, or of an ADMIN, asks for it once", text: htmlPage, headers: ['Cache-Control', 'Set-Cookie'] },
      { status: 302, description: 'Back to the application: with a code, or with `error=access_denied` and a description', headers: ['Location', 'Cache-Control'] },
      { status: 400, description: 'An error page: the sign-in this answer belongs to expired, was already finished, or was begun in another browser', text: htmlPage, headers: ['Cache-Control'] },
      { status: 403, description: 'A refusal page: the user is bound to another account of this provider (an ADMIN removes the link)', text: htmlPage, headers: ['Cache-Control'] },
    ],
  }),
  firstBrokerLogin: realmForm('auth.firstBrokerLogin', '/login-actions/first-broker-login', () => linkConfirmationSchemas().confirmLinkFormSchema, {
    summary: "The link confirmation page's form: the user's current password, before a first link to an identity provider",
    errors: { only: gatewayStatuses },
    responses: [
      { status: 200, description: 'The confirmation page again, with what was wrong', text: htmlPage, headers: ['Cache-Control'] },
      { status: 303, description: backToApplication, headers: ['Location', 'Cache-Control', 'Set-Cookie'] },
      { status: 400, description: 'An error page: the confirmation expired, was already used, or belongs to another browser or organization', text: htmlPage, headers: ['Cache-Control'] },
      { status: 403, description: 'An error page: the form was posted from another site, or the user is bound to another account of the provider', text: htmlPage, headers: ['Cache-Control'] },
    ],
    example: { confirmation: '<confirmation of the page>', password: ada.password },
  }),
  token: realmForm('auth.token', '/protocol/openid-connect/token', () => authSchemas().tokenRequestSchema, {
    summary: 'Obtain or renew tokens (authorization_code, password, refresh_token and device_code grants)',
    errors: oauthErrors,
    responses: [{ status: 200, description: 'Tokens', json: () => authResponses().tokenResponseSchema, headers: ['Cache-Control', 'Pragma'] }],
    example: { grant_type: 'password', client_id: clientId, ...ada, scope: 'openid' },
  }),
  deviceAuthorization: realmForm('auth.deviceAuthorization', '/protocol/openid-connect/auth/device', () => authSchemas().deviceAuthorizationRequestSchema, {
    summary: 'Start the device authorization grant (RFC 8628): a device code and a user code',
    errors: oauthErrors,
    responses: [{ status: 200, description: 'The codes', json: () => authResponses().deviceAuthorizationResponseSchema, headers: ['Cache-Control', 'Pragma'] }],
    example: { client_id: clientId, scope: 'openid offline_access' },
  }),
  device: realm({
    id: 'auth.device',
    method: 'GET',
    path: '/device',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema, query: () => authSchemas().deviceQuerySchema },
    summary: 'The device verification page: the form for the code a device shows',
    errors: { only: gatewayStatuses },
    responses: [devicePage('The form'), deviceProblem(400, deviceExpired), deviceProblem(404, 'An error page: no organization has this realm')],
  }),
  deviceCode: realmForm('auth.deviceCode', '/device', () => authSchemas().deviceCodeFormSchema, {
    summary: "The verification page's form: a right code goes on to sign in through the realm's authorization endpoint",
    errors: { only: gatewayStatuses },
    responses: [
      devicePage('The form again, saying the code is not valid'),
      { status: 303, description: "On to the realm's authorization endpoint to sign in", headers: ['Location', 'Set-Cookie', 'Cache-Control'] },
      deviceProblem(400, deviceExpired),
      deviceProblem(403, 'An error page: the form was posted from another site'),
      deviceProblem(404, 'An error page: no organization has this realm'),
      { status: 429, description: 'The form again: too many wrong codes in this window', text: htmlPage, headers: ['Retry-After', 'Cache-Control'] },
    ],
    example: { user_code: 'WDJB-MJHT', kc_locale: 'en' },
  }),
  deviceCallback: realm({
    id: 'auth.deviceCallback',
    method: 'GET',
    path: '/device/callback',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema, query: () => authSchemas().deviceCallbackQuerySchema },
    summary: "The verification page's return from the authorization endpoint: the consent step",
    errors: { only: gatewayStatuses },
    responses: [devicePage('The consent step'), deviceProblem(400, deviceExpired), deviceProblem(404, 'An error page: no organization has this realm')],
  }),
  deviceDecision: realmForm('auth.deviceDecision', '/device/decision', () => authSchemas().deviceDecisionFormSchema, {
    summary: 'Approve or deny a device authorization (the consent step\'s form)',
    errors: { only: gatewayStatuses },
    responses: [
      devicePage('Done: the device is signed in, or denied'),
      deviceProblem(400, deviceExpired),
      deviceProblem(403, "An error page: the form was posted from another site, or without the step's token or the sign-in's cookie"),
      deviceProblem(404, 'An error page: no organization has this realm'),
    ],
    example: { user_code: 'WDJB-MJHT', step: '<step of the page>', decision: 'approve' },
  }),
  certs: realmDocument('auth.certs', '/protocol/openid-connect/certs', "The realm's JSON Web Key Set", { description: 'The public keys that verify access tokens', json: () => authResponses().jwksSchema }),
  discovery: realmDocument('auth.discovery', '/.well-known/openid-configuration', "The realm's OpenID Connect discovery document", {
    description: 'The OpenID configuration',
    json: () => authResponses().discoverySchema,
  }),
  userinfo: realm({ id: 'auth.userinfo', ...userInfo }),
  userinfoPost: realm({ id: 'auth.userinfoPost', ...userInfo, method: 'POST', summary: `${userInfo.summary}, by POST` }),
  revoke: realmForm('auth.revoke', '/protocol/openid-connect/revoke', () => authSchemas().revocationRequestSchema, {
    summary: 'Revoke a token (RFC 7009): ends its session',
    errors: oauthErrors,
    responses: [{ status: 200, description: 'Revoked, or a token unknown here (the same answer)', headers: ['Cache-Control'] }],
    example: { client_id: clientId, token: refreshToken, token_type_hint: 'refresh_token' },
  }),
  logout: realmForm('auth.logout', '/protocol/openid-connect/logout', () => authSchemas().logoutRequestSchema, {
    summary: "End the refresh token's session (Keycloak's logout); a browser's form without one ends the ID token hint's (RP-initiated logout)",
    errors: oauthErrors,
    responses: [
      { status: 204, description: 'Signed out', headers: ['Cache-Control'] },
      { status: 200, description: 'RP-initiated logout: the signed-out page', text: htmlPage, headers: ['Cache-Control'] },
      { status: 302, description: 'RP-initiated logout: back to `post_logout_redirect_uri`, with `state`', headers: ['Location', 'Cache-Control'] },
    ],
    example: { client_id: clientId, refresh_token: refreshToken },
  }),
  endSession: realm({
    id: 'auth.endSession',
    method: 'GET',
    path: '/protocol/openid-connect/logout',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema, query: () => authSchemas().endSessionQuerySchema },
    summary: "End a session from the browser (OpenID Connect RP-initiated logout, Keycloak's end_session_endpoint)",
    errors: { only: gatewayStatuses },
    responses: [
      { status: 200, description: "The signed-out page, or the page asking the person to confirm a sign-out another site asked for without `id_token_hint`", text: htmlPage, headers: ['Cache-Control'] },
      { status: 302, description: 'Back to `post_logout_redirect_uri`, with `state`', headers: ['Location', 'Cache-Control'] },
      { status: 400, description: 'An error page, never a redirect: an ID token not issued here, a `post_logout_redirect_uri` not allowed or without `client_id` or `id_token_hint`, an unknown `client_id`, a repeated parameter', text: htmlPage, headers: ['Cache-Control'] },
      { status: 404, description: 'An error page: no organization has this realm', text: htmlPage, headers: ['Cache-Control'] },
    ],
  }),
  thirdPartyCookies: realm({
    id: 'auth.thirdPartyCookies',
    method: 'GET',
    path: '/protocol/openid-connect/3p-cookies/step1.html',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema },
    summary: "keycloak-js's third-party cookie check: answers `unsupported` at once",
    errors: { only: gatewayStatuses },
    responses: [{ status: 200, description: 'The page', text: htmlPage, headers: ['Cache-Control'] }],
  }),
  account: realm({
    id: 'auth.account',
    method: 'GET',
    path: '/account',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema },
    summary: "The account page: one's profile when signed in, else on to the realm's sign-in",
    errors: realmErrors,
    responses: [
      { status: 200, description: 'The page', text: htmlPage, headers: ['Cache-Control'] },
      { status: 303, description: "On to the realm's authorization endpoint, the sign-in's PKCE verifier in a cookie of the page's", headers: ['Location', 'Set-Cookie'] },
    ],
  }),
  accountSignIn: accountForm('auth.accountSignIn', '/account/sign-in', "Sign in to the account page: on to the realm's sign-in, the e-mail as its `login_hint`", () => accountSchemas().accountSignInSchema, {
    username: ada.username,
    kc_locale: 'en',
  }),
  accountPassword: accountForm(
    'auth.accountPassword',
    '/account/password',
    'Set a new password (required when the current one is temporary) or change it',
    () => accountSchemas().accountPasswordSchema,
    { csrf: '<csrf of the page>', password: ada.password, 'password-new': 'Difference-Engine-1822', 'password-confirm': 'Difference-Engine-1822' },
  ),
  accountSso: realm({
    id: 'auth.accountSso',
    method: 'GET',
    path: '/account/sso',
    access: 'public',
    request: { path: () => authSchemas().realmPathSchema },
    summary: "The account page's return from the realm's sign-in",
    errors: realmErrors,
    responses: [{ status: 200, description: 'The page going on to `../account` signed in, or a page saying the sign-in did not succeed, with a link to try again', text: htmlPage, headers: ['Cache-Control', 'Set-Cookie'] }],
  }),
  accountSignOut: accountForm('auth.accountSignOut', '/account/sign-out', 'Sign out of the account page', () => accountSchemas().accountSignOutSchema, { csrf: '<csrf of the page>' }),
  accountRevokeOfflineToken: accountForm(
    'auth.accountRevokeOfflineToken',
    '/account/revoke-offline-token',
    'Revoke one of your offline tokens (an offline session the page lists)',
    () => accountSchemas().accountRevokeOfflineTokenSchema,
    { csrf: '<csrf of the page>', session: '<session id>' },
  ),
};
