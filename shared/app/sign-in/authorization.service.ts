import { randomBytes } from 'node:crypto';
import { identityProvider as defaultIdentityProvider, type IdentityProvider } from '../auth/identity.port';
import type { Language } from '../../kernel/messages/languages';
import { getAuthorizationRequest, saveAuthorizationRequest, type AuthorizationRequest } from '../../domain/sessions/authorization.repository';
import { findActiveUser } from '../../domain/users/user.repository';
import { findProviderForEmail, getProvider } from '../../domain/identity-providers/identity-provider.repository';
import { ALIAS_PATTERN } from '../../domain/identity-providers/identity-provider-limits';
import { pageLanguage } from '../pages/page-language';
import { startBrokeredSignIn } from './broker';
import { browserBinding, codeFor, codeFromSession, isRequestsBrowser, type AuthorizeAnswer } from './sign-in-end';
import { liveRealmSession, type LiveRealmSession } from './realm-session';
import { firstRefusal, PAGE_CHECKS, parseAuthorization, promptsOf, REQUEST_CHECKS, responseModeOf, valueOf } from './authorization-request';
import { realmIssuer } from '../auth/jwt';
import { OAuthError } from '../auth/oauth-errors';
import { canonicalRealm, organizationOfRealm } from '../auth/realm';
import { redirectWith } from '../auth/redirect-uris';
import { checkPassword, ExpiredTemporaryPassword } from '../auth/sign-in';
import { newPasswordProblem, replacePassword } from '../auth/new-password';
import { renderSignInPage, type PageAt, type PageProblem, type SignInError, type SignInView } from './sign-in-page';

/**
 * The authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636 with S256 only, RFC 9207's `iss`), as
 * Keycloak shapes it: `GET {issuer}/protocol/openid-connect/auth` checks the client and where to send
 * the person back, keeps the request, and answers the sign-in page; its form, posted to
 * `{issuer}/login-actions/authenticate`, checks the password as the password grant does (lockout
 * included), sends a user whose password is still temporary through choosing one, and sends the
 * browser back with a code. The code is exchanged once, within a minute, at the token endpoint.
 */

/** How long a person has to sign in once the application sent them (Keycloak's login timeout is 30 minutes). */
export const SIGN_IN_SECONDS = 15 * 60;
export interface AuthorizeRequest {
  realm: string;
  /** The query string as sent (`a=1&a=2` must be seen as a repeat, which API Gateway's parameter map hides). */
  queryString: string;
  acceptLanguage: string | undefined;
  /** The browser's realm session cookie, if it sent one. */
  realmSessionToken?: string | undefined;
}

const now = () => Math.floor(Date.now() / 1000);

/** GET `{issuer}/protocol/openid-connect/auth`. */
export async function authorize(request: AuthorizeRequest): Promise<AuthorizeAnswer<200 | 400 | 404>> {
  const parsed = parseAuthorization(request.queryString, request.realm);
  const single = (name: string) => valueOf(parsed, name);
  const language = pageLanguage(single('kc_locale') ?? single('ui_locales')?.split(' ')[0] ?? undefined, request.acceptLanguage);
  const problem = (status: 400 | 404, which: PageProblem): AuthorizeAnswer<400 | 404> => ({ kind: 'page', status, html: renderSignInPage({ kind: 'error', problem: which }, language, 'authorize') });

  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return problem(404, 'unknown-realm');
  const pageRefusal = firstRefusal(PAGE_CHECKS, parsed);
  if (pageRefusal) return problem(400, pageRefusal.page);
  const clientId = single('client_id')!;
  const redirectUri = single('redirect_uri')!;

  // From here every refusal goes back to the application, which knows what it asked for.
  const realm = canonicalRealm(request.realm);
  const state = single('state');
  const responseMode = responseModeOf(parsed);
  const back = (error: string, description: string): AuthorizeAnswer => ({
    kind: 'redirect',
    location: redirectWith(redirectUri, { error, error_description: description, state, iss: realmIssuer(realm) }, responseMode),
  });
  const refusal = firstRefusal(REQUEST_CHECKS, parsed);
  if (refusal) return back(refusal.error, refusal.description);
  const challenge = single('code_challenge')!;
  const scope = single('scope');
  const prompts = promptsOf(parsed);
  const maxAge = single('max_age');

  const pending: AuthorizationRequest = {
    requestId: randomBytes(32).toString('base64url'),
    realm,
    orgUuid,
    clientId,
    redirectUri,
    codeChallenge: challenge,
    expiresAt: now() + SIGN_IN_SECONDS,
    locale: language,
    ...(responseMode === 'fragment' ? { responseMode } : {}),
    ...optional({ state, nonce: single('nonce'), scope, loginHint: single('login_hint') }),
  };
  const login = prompts.includes('login') || prompts.includes('select_account');
  if (login || maxAge !== undefined) pending.reauthenticate = { ...(login ? { login: true as const } : {}), ...(maxAge === undefined ? {} : { maxAge: Number(maxAge) }), askedAt: now() };
  // The browser's realm session answers at once, unless the application asks to sign in again
  // (`prompt=login`), or for a sign-in more recent than the session's (`max_age`).
  const live = await liveRealmSession(request.realmSessionToken, orgUuid);
  if (live && !prompts.includes('login') && !prompts.includes('select_account') && !tooOld(live, maxAge)) return codeFromSession(pending, live);
  if (prompts.includes('none')) {
    return back(
      'login_required',
      live ? 'The sign-in is older than max_age allows: send the person to sign in again, without prompt=none' : 'The person is not signed in to the realm: send the request without prompt=none',
    );
  }
  // A sign-in made now replaces the browser's realm session.
  if (live) pending.replacesRealmSession = live.session.sessionId;
  // Only this browser may go on with the request (its cookie): Keycloak's AUTH_SESSION_ID.
  const browser = browserBinding();
  pending.browserHash = browser.hash;
  await saveAuthorizationRequest(pending);
  const requestCookie = { secret: browser.secret, seconds: SIGN_IN_SECONDS };
  // Keycloak's `kc_idp_hint` names the organization's provider to go to; failing that (none, or one
  // the organization does not have), home-realm discovery: an e-mail of a domain the organization
  // federates goes on to its provider; failing both, the page.
  const idpHint = single('kc_idp_hint');
  const provider =
    (idpHint && ALIAS_PATTERN.test(idpHint) ? await getProvider(orgUuid, idpHint) : undefined) ??
    (pending.loginHint ? await findProviderForEmail(orgUuid, pending.loginHint) : undefined);
  if (provider) return { ...(await startBrokeredSignIn(pending, provider, pending.loginHint)), requestCookie };
  return { ...signInPage({ kind: 'sign-in', realm, requestId: pending.requestId, ...optional({ email: pending.loginHint }) }, language, 'authorize'), requestCookie };
}

/** The form of the sign-in page, as the HTTP layer read it. */
export interface AuthenticateRequest {
  realm: string;
  form: URLSearchParams;
  acceptLanguage: string | undefined;
  /** The browser says the form came from another site (login CSRF). */
  crossSite: boolean;
  /** The secret of the browser's request cookie, if it sent one. */
  browserSecret: string | undefined;
}

/** POST `{issuer}/login-actions/authenticate`: sign in, or choose the first password, then back to the application. */
export async function authenticate(request: AuthenticateRequest, identityProvider: IdentityProvider = defaultIdentityProvider): Promise<AuthorizeAnswer<200 | 400 | 403>> {
  const { form } = request;
  const language = pageLanguage(form.get('kc_locale') ?? undefined, request.acceptLanguage);
  const problem = (status: 400 | 403, which: PageProblem): AuthorizeAnswer<400 | 403> => ({ kind: 'page', status, html: renderSignInPage({ kind: 'error', problem: which }, language, 'authenticate') });
  // Login CSRF: another site's form could sign the browser in to an account of its choosing.
  if (request.crossSite) return problem(403, 'cross-site');
  const requestId = form.get('request') ?? '';
  const pending = requestId.length === 43 ? await getAuthorizationRequest(requestId) : undefined;
  // Another browser's request (its form, or its id, replayed here) is no request of this one.
  if (!pending || pending.realm !== canonicalRealm(request.realm) || !isRequestsBrowser(pending, request.browserSecret)) return problem(400, 'expired');

  const username = (form.get('username') ?? '').trim().slice(0, 320);
  if (form.has('password-new')) return choosePassword(pending, form, language, identityProvider);
  const provider = username ? await findProviderForEmail(pending.orgUuid, username) : undefined;
  if (provider) return startBrokeredSignIn(pending, provider, username);
  const again = (error: SignInError) => signInPage({ kind: 'sign-in', realm: pending.realm, requestId, email: username, error }, language, 'authenticate');
  // The sign-in counts from before the check: a credential change that lands while it runs ends what it opens.
  const checkedAtMs = Date.now();
  try {
    const { user, temporary } = await checkPassword(pending.realm, username, form.get('password') ?? '', identityProvider);
    if (temporary) {
      // The password was right but is the welcome e-mail's: the request goes on once the user chose one.
      await saveAuthorizationRequest({ ...pending, mustSetPassword: user.uuid });
      return signInPage({ kind: 'set-password', realm: pending.realm, requestId, email: user.email }, language, 'authenticate');
    }
    return codeFor(pending, user, { startedAtMs: checkedAtMs, signedInWith: 'password' });
  } catch (error) {
    if (!(error instanceof OAuthError && error.error === 'invalid_grant')) throw error;
    return again(error instanceof ExpiredTemporaryPassword ? 'password-expired' : 'invalid-credentials');
  }
}

async function choosePassword(pending: AuthorizationRequest, form: URLSearchParams, language: Language, identityProvider: IdentityProvider): Promise<AuthorizeAnswer> {
  const user = pending.mustSetPassword ? await findActiveUser(pending.orgUuid, pending.mustSetPassword) : undefined;
  if (!user) return { kind: 'page', status: 400, html: renderSignInPage({ kind: 'error', problem: 'expired' }, language, 'authenticate') };
  const retry = (error: SignInError) => signInPage({ kind: 'set-password', realm: pending.realm, requestId: pending.requestId, email: user.email, error }, language, 'authenticate');
  const next = form.get('password-new') ?? '';
  const problem = (await newPasswordProblem(user.uuid, next, form.get('password-confirm') ?? '', true, identityProvider)) ?? (await replacePassword(user, next, identityProvider));
  if (problem) return retry(problem);
  return codeFor(pending, user);
}

/** Whether the session's sign-in is older than the request's `max_age` allows. */
function tooOld(live: LiveRealmSession, maxAge: string | undefined): boolean {
  return maxAge !== undefined && Date.now() - live.session.startedAtMs > Number(maxAge) * 1000;
}

function signInPage(view: SignInView, language: Language, at: PageAt): AuthorizeAnswer {
  return { kind: 'page', status: 200, html: renderSignInPage(view, language, at) };
}

/** The entries whose value is a string (absent, repeated or empty ones left out). */
function optional<T extends Record<string, string | null | undefined>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => typeof value === 'string' && value !== '')) as { [K in keyof T]?: string };
}
