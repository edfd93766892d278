import type * as z from 'zod';
import { accountPasswordSchema, accountSignInSchema, accountSignOutSchema } from '../../app/account/account.schemas';
import { discoverySchema, jwksSchema, tokenResponseSchema, userInfoSchema } from '../../app/auth/auth.responses';
import { logoutRequestSchema, realmPathSchema, revocationRequestSchema, tokenRequestSchema } from '../../app/auth/auth.schemas';
import { clientId, refreshToken } from './examples';
import { operationsUnder, type Operation } from './operation';

/**
 * The OpenID Connect provider of each realm (one per organization), shaped like Keycloak's, and the
 * account page (HTML forms, no script): sign in, set or change the password, sign out. These routes
 * are public: they check their own credentials, OAuth's way, and answer OAuth's errors.
 */
const realm = operationsUnder('auth', 'auth', '/auth/realms/{realm}');

/** The errors of a public route that answers OAuth's body: its own 400 and 401, and the gateway's. */
const oauthErrors = { oauth: true, only: [400, 401, 429, 500, 503] };
/** The errors of a public route that answers JSON: an unknown realm, and the gateway's. */
const realmErrors = { only: [404, 429, 500, 503] };
const htmlPage = { mediaType: 'text/html', description: 'HTML' };

const userInfo = {
  method: 'GET',
  path: '/protocol/openid-connect/userinfo',
  access: 'bearer',
  request: { path: realmPathSchema },
  summary: "The bearer token's user (OpenID Connect userinfo)",
  errors: { oauth: true, only: [401, 429, 500, 503] },
  responses: [{ status: 200, description: 'Claims of the user', json: userInfoSchema, headers: ['Cache-Control'] }],
} as const satisfies Omit<Operation, 'id' | 'group' | 'area'>;

/** A form of the account page: it answers the next page (or the same form with its error), never JSON. */
const accountForm = <const I extends string, const P extends string>(id: I, path: P, summary: string, form: z.ZodType, example: unknown) =>
  realm({
    id,
    method: 'POST',
    path,
    access: 'public',
    request: { path: realmPathSchema, form },
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

export const authApi = {
  token: realm({
    id: 'auth.token',
    method: 'POST',
    path: '/protocol/openid-connect/token',
    access: 'public',
    request: { path: realmPathSchema, form: tokenRequestSchema },
    summary: 'Obtain or renew tokens (password and refresh_token grants)',
    errors: oauthErrors,
    responses: [{ status: 200, description: 'Tokens', json: tokenResponseSchema, headers: ['Cache-Control', 'Pragma'] }],
    example: { grant_type: 'password', client_id: clientId, ...ada, scope: 'openid' },
  }),
  certs: realm({
    id: 'auth.certs',
    method: 'GET',
    path: '/protocol/openid-connect/certs',
    access: 'public',
    request: { path: realmPathSchema },
    summary: "The realm's JSON Web Key Set",
    errors: realmErrors,
    responses: [{ status: 200, description: 'The public keys that verify access tokens', json: jwksSchema, headers: ['Cache-Control'] }],
  }),
  discovery: realm({
    id: 'auth.discovery',
    method: 'GET',
    path: '/.well-known/openid-configuration',
    access: 'public',
    request: { path: realmPathSchema },
    summary: "The realm's OpenID Connect discovery document",
    errors: realmErrors,
    responses: [{ status: 200, description: 'The OpenID configuration', json: discoverySchema, headers: ['Cache-Control'] }],
  }),
  userinfo: realm({ id: 'auth.userinfo', ...userInfo }),
  userinfoPost: realm({ id: 'auth.userinfoPost', ...userInfo, method: 'POST', summary: `${userInfo.summary}, by POST` }),
  revoke: realm({
    id: 'auth.revoke',
    method: 'POST',
    path: '/protocol/openid-connect/revoke',
    access: 'public',
    request: { path: realmPathSchema, form: revocationRequestSchema },
    summary: 'Revoke a token (RFC 7009): ends its session',
    errors: oauthErrors,
    responses: [{ status: 200, description: 'Revoked, or a token unknown here (the same answer)', headers: ['Cache-Control'] }],
    example: { client_id: clientId, token: refreshToken, token_type_hint: 'refresh_token' },
  }),
  logout: realm({
    id: 'auth.logout',
    method: 'POST',
    path: '/protocol/openid-connect/logout',
    access: 'public',
    request: { path: realmPathSchema, form: logoutRequestSchema },
    summary: "End the refresh token's session (Keycloak's logout)",
    errors: oauthErrors,
    responses: [{ status: 204, description: 'Signed out', headers: ['Cache-Control'] }],
    example: { client_id: clientId, refresh_token: refreshToken },
  }),
  account: realm({
    id: 'auth.account',
    method: 'GET',
    path: '/account',
    access: 'public',
    request: { path: realmPathSchema },
    summary: "The account page: sign in, or see one's profile when signed in",
    description: 'HTML for people, in en, es, ja or pt (`kc_locale`, else `Accept-Language`). `login_hint` fills the e-mail field.',
    errors: realmErrors,
    responses: [{ status: 200, description: 'The page', text: htmlPage, headers: ['Cache-Control'] }],
  }),
  accountSignIn: accountForm('auth.accountSignIn', '/account/sign-in', 'Sign in to the account page', accountSignInSchema, { ...ada, kc_locale: 'en' }),
  accountPassword: accountForm(
    'auth.accountPassword',
    '/account/password',
    'Set a new password (required when the current one is temporary) or change it',
    accountPasswordSchema,
    { csrf: '<csrf of the page>', password: ada.password, 'password-new': 'Difference-Engine-1822', 'password-confirm': 'Difference-Engine-1822' },
  ),
  accountSignOut: accountForm('auth.accountSignOut', '/account/sign-out', 'Sign out of the account page', accountSignOutSchema, { csrf: '<csrf of the page>' }),
};
