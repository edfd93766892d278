import { JwtBaseError } from 'aws-jwt-verify/error';
import { config } from '../../kernel/config';
import { deleteSession } from '../../domain/sessions/session.repository';
import { pageLanguage } from '../pages/page-language';
import { realmIssuer, verifyJwtExpiredWithin } from '../auth/jwt';
import { OAuthError } from '../auth/oauth-errors';
import { canonicalRealm, organizationOfRealm } from '../auth/realm';
import { isAllowedRedirect, redirectWith } from '../auth/redirect-uris';
import type { PageProblem } from '../../kernel/messages/messages';
import { problemPage, problemText, signedOutPage } from '../pages/problem-pages';
import type { AuthorizeAnswer } from './sign-in-end';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), as Keycloak shapes it:
 * `{issuer}/protocol/openid-connect/logout` with `id_token_hint` (the ID token of the session to end),
 * `post_logout_redirect_uri` and `state`, where keycloak-js's and openid-client's `logout` send the
 * browser: by GET, or by a form post without `refresh_token` (keycloak-js's `logoutMethod: 'POST'`).
 * There is no browser session here (no cookie): the hint names the session, and without one nothing is
 * ended. A form with a refresh token is the other logout, `openid.service.ts`'s.
 */

export interface EndSessionRequest {
  realm: string;
  /** The parameters as sent: the query string, or the form (a repeated parameter must be seen as one). */
  params: URLSearchParams;
  acceptLanguage: string | undefined;
}

/** How long past its expiry an ID token still names its session: the longest a session can last idle. */
const hintGraceSeconds = () => Math.max(config().sessionMaxSeconds, config().offlineSessionIdleSeconds);
const MAX_HINT = 4096;
/** As the authorization endpoint bounds it. */
const MAX_STATE = 1024;

/** What the request comes to: a problem to show, or the session ended and where the browser goes. */
type Outcome = { problem: PageProblem; status: 400 | 404 } | { redirect?: string };

async function decide(request: EndSessionRequest): Promise<Outcome> {
  const { params } = request;
  // Each parameter once (checked below), an empty one as absent.
  const single = (name: string) => params.get(name) || undefined;
  const problem = (which: PageProblem, status: 400 | 404 = 400): Outcome => ({ problem: which, status });

  if (!(await organizationOfRealm(request.realm))) return problem('unknown-realm', 404);
  if (['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'].some((name) => params.getAll(name).length > 1)) return problem('bad-parameter');
  if ((single('state') ?? '').length > MAX_STATE) return problem('bad-parameter');
  const clientId = single('client_id');
  if (clientId !== undefined && clientId !== config().userPoolClientId) return problem('unknown-client');

  const hint = single('id_token_hint');
  const sessionId = hint === undefined ? undefined : await hintedSession(hint, canonicalRealm(request.realm));
  if (sessionId === null) return problem('bad-id-token-hint');
  const redirectUri = single('post_logout_redirect_uri');
  if (redirectUri !== undefined) {
    if (hint === undefined && clientId === undefined) return problem('logout-needs-client');
    if (!isAllowedRedirect(redirectUri)) return problem('bad-post-logout-redirect');
  }

  if (sessionId !== undefined) await deleteSession(sessionId);
  return redirectUri === undefined ? {} : { redirect: redirectWith(redirectUri, { state: single('state') }) };
}

/** GET `{issuer}/protocol/openid-connect/logout`: ends the hint's session, then back to the application or a signed-out page; a problem is a page. */
export async function endSession(request: EndSessionRequest): Promise<AuthorizeAnswer<200 | 400 | 404>> {
  const outcome = await decide(request);
  if (!('problem' in outcome)) return ended(outcome, request);
  return { kind: 'page', status: outcome.status, html: problemPage(outcome.problem, languageOf(request), { signOut: true }) };
}

/**
 * The same by a form post (no `refresh_token`): its refusals are the form's OAuth errors (400
 * `invalid_request`), as every refusal of that address is, in English.
 */
export async function endSessionByForm(request: EndSessionRequest): Promise<AuthorizeAnswer<200>> {
  const outcome = await decide(request);
  if ('problem' in outcome) throw new OAuthError('invalid_request', problemText(outcome.problem));
  return ended(outcome, request);
}

const languageOf = ({ params, acceptLanguage }: EndSessionRequest) => pageLanguage(params.get('kc_locale') ?? params.get('ui_locales')?.split(' ')[0], acceptLanguage);

/** Back to the application, or the signed-out page. */
function ended(outcome: { redirect?: string }, request: EndSessionRequest): AuthorizeAnswer<200> {
  if (outcome.redirect !== undefined) return { kind: 'redirect', location: outcome.redirect };
  return { kind: 'page', status: 200, html: signedOutPage(languageOf(request)) };
}

/** The session an ID token of this realm, issued to the console, names; null for any other token. */
async function hintedSession(hint: string, realm: string): Promise<string | null> {
  if (hint.length > MAX_HINT) return null;
  let claims: Readonly<Record<string, unknown>>;
  try {
    claims = await verifyJwtExpiredWithin(hint, hintGraceSeconds());
  } catch (error) {
    // A token that is not ours, or past the grace; any other failure (the key) is the service's.
    if (error instanceof JwtBaseError) return null;
    throw error;
  }
  const issuedHere = claims.typ === 'ID' && claims.iss === realmIssuer(realm) && claims.aud === config().userPoolClientId;
  return issuedHere && typeof claims.sid === 'string' ? claims.sid : null;
}
