import * as z from 'zod';
import { bearerToken } from '../../shared/auth/caller';
import { discovery, logout, revokeToken, userInfo } from '../../shared/auth/openid.service';
import { grantToken, readTokenForm, realmExists } from '../../shared/auth/token.service';
import { tokenSigner } from '../../shared/auth/signer';
import { NotFoundError } from '../../shared/errors';
import { createFunction, publicRoute } from '../../shared/http/handler-factory';
import { ok } from '../../shared/http/types';

// Any realm text is accepted here: the OpenID Connect endpoints answer OAuth errors, never a 422 body.
const realmPath = z.object({ realm: z.string() });
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
const publicCache = { 'cache-control': 'public, max-age=300' };

/** Token endpoint: password and refresh_token grants, answered in OAuth 2.0's own shapes. */
export const token = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody }) =>
    ok(await grantToken(path.realm, readTokenForm(headers['content-type'], rawBody)), noStore),
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
    await revokeToken(path.realm, readTokenForm(headers['content-type'], rawBody));
    return { status: 200, headers: noStore };
  },
});

/** Logout with a refresh token; 204 as Keycloak answers. */
export const endSession = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody }) => {
    await logout(path.realm, readTokenForm(headers['content-type'], rawBody));
    return { status: 204, headers: noStore };
  },
});

export const handlers = {
  'auth.token': token,
  'auth.certs': certs,
  'auth.discovery': discoveryDocument,
  'auth.userinfo': userinfoRoute(),
  'auth.userinfoPost': userinfoRoute(),
  'auth.revoke': revoke,
  'auth.logout': endSession,
};
export const handler = createFunction('auth', handlers);
