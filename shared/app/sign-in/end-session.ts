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
import { endRealmSession, liveRealmSession } from './realm-session';
import { renderSignInPage } from './sign-in-page';

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), as Keycloak shapes it:
 * `{issuer}/protocol/openid-connect/logout` with `id_token_hint` (the ID token of the session to end),
 * `post_logout_redirect_uri` and `state`, where keycloak-js's and openid-client's `logout` send the
 * browser: by GET, or by a form post without `refresh_token` (keycloak-js's `logoutMethod: 'POST'`).
 * The hint names the refresh session to end; the browser's realm session (its cookie) ends with it when
 * it is the hint's user's, or, without a hint, when the request did not come from another site. Another
 * site's request without a hint, while the browser has a realm session, answers a page that asks the
 * person to confirm (as Keycloak does), whose form, posted from this site, signs out: no site signs a
 * person out behind their back, and a logout without a hint still ends the session when the person
 * wants it to. A form with a refresh token is the other logout, `openid.service.ts`'s.
 */

export interface EndSessionRequest {
  realm: string;
  /** The parameters as sent: the query string, or the form (a repeated parameter must be seen as one). */
  params: URLSearchParams;
  acceptLanguage: string | undefined;
  /** The browser's realm session cookie, if it sent one. */
  realmSessionToken?: string | undefined;
  /** The browser says another site sent it here (`Sec-Fetch-Site`, or an `Origin` not this host). */
  crossSite?: boolean;
}

/** How long past its expiry an ID token still names its session: the longest a session can last idle. */
const hintGraceSeconds = () => Math.max(config().sessionMaxSeconds, config().offlineSessionIdleSeconds);
const MAX_HINT = 4096;
/** As the authorization endpoint bounds it. */
const MAX_STATE = 1024;

/** What the request comes to: a problem to show, or the sessions ended and where the browser goes (`realmEnded`: its cookie goes too). */
type Outcome = { problem: PageProblem; status: 400 | 404 } | { confirm: Record<string, string>; realm: string } | { redirect?: string; realmEnded?: true };

/** What the confirmation page's form posts back: the request's own parameters, and the mark that it is the confirmation. */
const CONFIRMED = 'logout_confirm';
const CARRIED = ['client_id', 'post_logout_redirect_uri', 'state', 'ui_locales', 'kc_locale'] as const;

async function decide(request: EndSessionRequest): Promise<Outcome> {
  const { params } = request;
  // Each parameter once (checked below), an empty one as absent.
  const single = (name: string) => params.get(name) || undefined;
  const problem = (which: PageProblem, status: 400 | 404 = 400): Outcome => ({ problem: which, status });

  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return problem('unknown-realm', 404);
  if (['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'].some((name) => params.getAll(name).length > 1)) return problem('bad-parameter');
  if ((single('state') ?? '').length > MAX_STATE) return problem('bad-parameter');
  const clientId = single('client_id');
  if (clientId !== undefined && clientId !== config().userPoolClientId) return problem('unknown-client');

  const hint = single('id_token_hint');
  const hinted = hint === undefined ? undefined : await hintedSession(hint, canonicalRealm(request.realm));
  if (hinted === null) return problem('bad-id-token-hint');
  const redirectUri = single('post_logout_redirect_uri');
  if (redirectUri !== undefined) {
    if (hint === undefined && clientId === undefined) return problem('logout-needs-client');
    if (!isAllowedRedirect(redirectUri)) return problem('bad-post-logout-redirect');
  }

  if (hinted === undefined && request.crossSite && (await liveRealmSession(request.realmSessionToken, orgUuid))) {
    const fields = Object.fromEntries(CARRIED.flatMap((name) => (single(name) === undefined ? [] : [[name, single(name)!]])));
    return { confirm: { ...fields, [CONFIRMED]: '1' }, realm: canonicalRealm(request.realm) };
  }
  if (hinted !== undefined) await deleteSession(hinted.sessionId);
  const realmEnded = request.realmSessionToken !== undefined && (await endsRealmSession(request, orgUuid, hinted?.userUuid));
  return { ...(redirectUri === undefined ? {} : { redirect: redirectWith(redirectUri, { state: single('state') }) }), ...(realmEnded ? { realmEnded } : {}) };
}

/** Ends the browser's realm session when the logout is its person's: the hint's user, or, without a hint, a request of this site. */
async function endsRealmSession(request: EndSessionRequest, orgUuid: string, hintedUser: string | undefined): Promise<boolean> {
  if (hintedUser === undefined) {
    if (request.crossSite) return false;
    await endRealmSession(request.realmSessionToken, orgUuid);
    return true;
  }
  const live = await liveRealmSession(request.realmSessionToken, orgUuid);
  if (live?.user.uuid !== hintedUser) return live === undefined;
  await endRealmSession(request.realmSessionToken, orgUuid);
  return true;
}

/** GET `{issuer}/protocol/openid-connect/logout`: ends the hint's session, then back to the application or a signed-out page; a problem is a page. */
export async function endSession(request: EndSessionRequest): Promise<AuthorizeAnswer<200 | 400 | 404>> {
  const outcome = await decide(request);
  if ('confirm' in outcome) return confirmation(outcome, request);
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
  if ('confirm' in outcome) return confirmation(outcome, request);
  return ended(outcome, request);
}

const languageOf = ({ params, acceptLanguage }: EndSessionRequest) => pageLanguage(params.get('kc_locale') ?? params.get('ui_locales')?.split(' ')[0], acceptLanguage);

/** The page that asks the person to confirm a sign-out another site asked for. */
function confirmation(outcome: { confirm: Record<string, string>; realm: string }, request: EndSessionRequest): AuthorizeAnswer<200> {
  return { kind: 'page', status: 200, html: renderSignInPage({ kind: 'confirm-sign-out', realm: outcome.realm, fields: outcome.confirm }, languageOf(request), 'authorize') };
}

/** Whether a form posted to the logout address is the confirmation page's. */
export const isSignOutConfirmation = (form: Map<string, string> | URLSearchParams): boolean => form.has(CONFIRMED);

/** Back to the application, or the signed-out page; the realm session's cookie removed when it ended. */
function ended(outcome: { redirect?: string; realmEnded?: true }, request: EndSessionRequest): AuthorizeAnswer<200> {
  const cookie = outcome.realmEnded ? { realmSession: null } : {};
  if (outcome.redirect !== undefined) return { kind: 'redirect', location: outcome.redirect, ...cookie };
  return { kind: 'page', status: 200, html: signedOutPage(languageOf(request)), ...cookie };
}

/** The session an ID token of this realm, issued to the console, names, and its user; null for any other token. */
async function hintedSession(hint: string, realm: string): Promise<{ sessionId: string; userUuid: string } | null> {
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
  return issuedHere && typeof claims.sid === 'string' && typeof claims.sub === 'string' ? { sessionId: claims.sid, userUuid: claims.sub } : null;
}
