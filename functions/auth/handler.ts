import * as z from 'zod';
import { ACCOUNT_PAGE_POLICY } from '../../shared/account/account-page';
import { withAuditContext } from '../../shared/audit/audit-context';
import { changePassword, showAccount, signIn, signOut, type AccountAnswer, type AccountRequest } from '../../shared/account/account.service';
import { bearerToken } from '../../shared/auth/caller';
import { discovery, logout, revokeToken, userInfo } from '../../shared/auth/openid.service';
import { realmExists } from '../../shared/auth/realm';
import { grantToken, readTokenForm } from '../../shared/auth/token.service';
import { tokenSigner } from '../../shared/auth/signer';
import { NotFoundError } from '../../shared/errors';
import { createFunction, publicRoute } from '../../shared/http/handler-factory';
import { ok, type Reply } from '../../shared/http/types';
import type { RouteInput } from '../../shared/http/handler-factory';

// Any realm text is accepted here: the OpenID Connect endpoints answer OAuth errors, never a 422 body.
const realmPath = z.object({ realm: z.string() });
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
const publicCache = { 'cache-control': 'public, max-age=300' };

/**
 * A sign-in's request, as the cause of what it changes: no caller is known yet, and a lock-out it
 * starts names the locked user itself (`sign-in.ts`).
 */
const asSignIn = <T>(requestId: string, work: () => Promise<T>): Promise<T> =>
  withAuditContext({ actor: { uuid: null, email: null }, requestId }, work);

/** Token endpoint: password and refresh_token grants, answered in OAuth 2.0's own shapes. */
export const token = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody, requestId }) =>
    ok(await asSignIn(requestId, () => grantToken(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization))), noStore),
});

/** JWKS: the public key that verifies every realm's tokens. */
export const certs = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path }) => {
    if (!(await realmExists(path.realm))) throw new NotFoundError('The realm was not found');
    return ok({ keys: [await tokenSigner().publicJwk()] }, publicCache);
  },
});

/** The realm's OpenID Connect discovery document. */
export const discoveryDocument = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path }) => ok(await discovery(path.realm), publicCache),
});

/** userinfo, GET and POST alike: the bearer token's user. */
const userinfoRoute = () =>
  publicRoute({
    schemas: { path: realmPath },
    handle: async ({ path, headers }) => ok(await userInfo(path.realm, bearerToken(headers.authorization)), noStore),
  });

/** RFC 7009 revocation: always 200 once the client is known. */
export const revoke = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody }) => {
    await revokeToken(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization));
    return { status: 200, headers: noStore };
  },
});

/** Logout with a refresh token; 204 as Keycloak answers. */
export const endSession = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody }) => {
    await logout(path.realm, readTokenForm(headers['content-type'], rawBody, headers.authorization));
    return { status: 204, headers: noStore };
  },
});

const FORM_TYPE = /^application\/x-www-form-urlencoded(\s*;.*)?$/i;

function isOwnOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false; // `null`, or not an origin at all
  }
}

/** What the account page's handlers read of a request; a form body only when it is a form. */
function accountRequest(input: RouteInput<{ path: typeof realmPath }>): AccountRequest {
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
    cookies,
    crossSite,
    locale: rawQuery.kc_locale,
    acceptLanguage: headers['accept-language'],
    status: rawQuery.status,
    ...(isForm ? { form: new URLSearchParams(rawBody ?? '') } : {}),
  };
}

/** A page, or a 303 back to the page; never stored, never framed, only its own style and forms. */
function pageReply(answer: AccountAnswer): Reply {
  const headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const cookies = answer.cookies ? { cookies: answer.cookies } : {};
  if (answer.kind === 'redirect') return { status: 303, headers: { ...headers, location: answer.location }, ...cookies };
  return {
    status: 200,
    body: answer.html,
    contentType: 'text/html; charset=utf-8',
    headers: { ...headers, 'content-security-policy': ACCOUNT_PAGE_POLICY },
    ...cookies,
  };
}

const accountRoute = (handle: (request: AccountRequest) => Promise<AccountAnswer>) =>
  publicRoute({
    schemas: { path: realmPath },
    handle: async (input) => pageReply(await asSignIn(input.requestId, () => handle(accountRequest(input)))),
  });

export const handlers = {
  'auth.token': token,
  'auth.certs': certs,
  'auth.discovery': discoveryDocument,
  'auth.userinfo': userinfoRoute(),
  'auth.userinfoPost': userinfoRoute(),
  'auth.revoke': revoke,
  'auth.logout': endSession,
  'auth.account': accountRoute((request) => showAccount(request)),
  'auth.accountSignIn': accountRoute((request) => signIn(request)),
  'auth.accountPassword': accountRoute((request) => changePassword(request)),
  'auth.accountSignOut': accountRoute((request) => signOut(request)),
};
export const handler = createFunction('auth', handlers);
