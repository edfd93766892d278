import { config } from '../../kernel/config';
import { deleteSession } from '../../domain/sessions/session.repository';
import { pageLanguage } from '../pages/page-language';
import { realmIssuer, verifyJwtExpiredWithin } from '../auth/jwt';
import { canonicalRealm, organizationOfRealm } from '../auth/realm';
import { isAllowedRedirect, redirectWith } from '../auth/redirect-uris';
import type { AuthorizeAnswer } from './sign-in-end';
import { renderSignInPage, type PageProblem } from './sign-in-page';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), as Keycloak shapes it:
 * `GET {issuer}/protocol/openid-connect/logout` with `id_token_hint` (the ID token of the session to
 * end), `post_logout_redirect_uri` and `state`, where keycloak-js's and openid-client's `logout` send
 * the browser. There is no browser session here (no cookie): the hint names the session, and without
 * one nothing is ended. The form post to the same address (a refresh token) is `openid.service.ts`'s.
 */

export interface EndSessionRequest {
  realm: string;
  /** The query string as sent (a repeated parameter must be seen as one). */
  queryString: string;
  acceptLanguage: string | undefined;
}

/** How long past its expiry an ID token still names its session: the longest a session can last idle. */
const hintGraceSeconds = () => Math.max(config().sessionMaxSeconds, config().offlineSessionIdleSeconds);
const MAX_HINT = 4096;

/** GET `{issuer}/protocol/openid-connect/logout`: ends the hint's session, then back to the application or a signed-out page. */
export async function endSession(request: EndSessionRequest): Promise<AuthorizeAnswer<200 | 400 | 404>> {
  const params = new URLSearchParams(request.queryString);
  // Each parameter once (checked below), an empty one as absent.
  const single = (name: string) => params.get(name) || undefined;
  const language = pageLanguage(single('kc_locale') ?? single('ui_locales')?.split(' ')[0], request.acceptLanguage);
  const page = <S extends 200 | 400 | 404>(status: S, problem?: PageProblem): AuthorizeAnswer<S> => ({
    kind: 'page',
    status,
    html: renderSignInPage(problem ? { kind: 'error', problem } : { kind: 'signed-out' }, language, 'authorize'),
  });

  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return page(404, 'unknown-realm');
  if (['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'].some((name) => params.getAll(name).length > 1)) return page(400, 'repeated-parameter');
  const clientId = single('client_id');
  if (clientId !== undefined && clientId !== config().userPoolClientId) return page(400, 'unknown-client');

  const hint = single('id_token_hint');
  const sessionId = hint === undefined ? undefined : await hintedSession(hint, canonicalRealm(request.realm));
  if (sessionId === null) return page(400, 'bad-id-token-hint');
  const redirectUri = single('post_logout_redirect_uri');
  if (redirectUri !== undefined) {
    if (hint === undefined && clientId === undefined) return page(400, 'logout-needs-client');
    if (!isAllowedRedirect(redirectUri)) return page(400, 'bad-redirect');
  }

  if (sessionId !== undefined) await deleteSession(sessionId);
  if (redirectUri === undefined) return page(200);
  return { kind: 'redirect', location: redirectWith(redirectUri, { state: single('state') }) };
}

/** The session an ID token of this realm, issued to the console, names; null for any other token. */
async function hintedSession(hint: string, realm: string): Promise<string | null> {
  if (hint.length > MAX_HINT) return null;
  const claims = await verifyJwtExpiredWithin(hint, hintGraceSeconds()).catch(() => undefined);
  const issuedHere = claims && claims.typ === 'ID' && claims.iss === realmIssuer(realm) && claims.aud === config().userPoolClientId;
  return issuedHere && typeof claims.sid === 'string' ? claims.sid : null;
}
