import * as z from 'zod';
import { grantToken, readTokenForm, realmExists } from '../../shared/auth/token.service';
import { tokenSigner } from '../../shared/auth/signer';
import { NotFoundError } from '../../shared/errors';
import { createFunction, publicRoute } from '../../shared/http/handler-factory';
import { ok } from '../../shared/http/types';

// Any realm text is accepted here: the token endpoint answers OAuth errors, never a 422 body.
const realmPath = z.object({ realm: z.string() });
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** Token endpoint: password and refresh_token grants, answered in OAuth 2.0's own shapes. */
export const token = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path, headers, rawBody }) =>
    ok(await grantToken(path.realm, readTokenForm(headers['content-type'], rawBody)), noStore),
});

/** JWKS: the public key that verifies access tokens. */
export const certs = publicRoute({
  schemas: { path: realmPath },
  handle: async ({ path }) => {
    if (!(await realmExists(path.realm))) throw new NotFoundError('The realm was not found');
    return ok({ keys: [await tokenSigner().publicJwk()] }, { 'cache-control': 'public, max-age=300' });
  },
});

export const handlers = { 'auth.token': token, 'auth.certs': certs };
export const handler = createFunction('auth', handlers);
