import { OAuthError } from '../auth/oauth-errors';
import { organizationOfRealm } from '../auth/realm';
import { deleteOfflineSessionOf, offlineSessionsPage } from '../../domain/sessions/session.repository';
import { pageTokenOf, positionOf, type PageBinding } from '../../adapters/store/page-token';
import { checkPassword, ExpiredTemporaryPassword } from '../auth/sign-in';
import { newPasswordProblem, replacePassword } from '../auth/new-password';
import { ForbiddenError, NotFoundError } from '../../kernel/errors';
import { cognitoIdentityProvider, type IdentityProvider } from '../../adapters/identity/identity-provider';
import type { Language } from '../../adapters/mail/mail-terms';
import { findActiveUser } from '../../domain/users/user.repository';
import { sessionsView } from '../../domain/users/user-offline-sessions';
import type { UserRecord } from '../../domain/users/user.entities';
import { pageLanguage } from '../pages/page-language';
import { renderAccountPage, type FieldError, type Notice, type OfflineToken, type PageAt, type View } from './account-page';
import { findProviderForEmail } from '../../domain/identity-providers/identity-provider.service';
import { finishAccountSso, startAccountSso } from './account-sso';
import { beginAccountSession, csrfMatches, endAccountSession, readAccountSession, type AccountSession } from './account-session';

/**
 * The account page at `{issuer}/account` (Keycloak's account console, reduced to what a new user
 * needs): sign in with e-mail and password; set a password of one's own when the current one is the
 * temporary one of a welcome e-mail (nothing else is possible until then); see one's profile; change
 * the password; see and revoke one's offline tokens; sign out. Sign-in goes through the token endpoint's own check, brute-force lockout
 * included. Forms answer "back to the page" when done (so a reload never posts twice), with the page
 * session begun or ended, or the form again with what was wrong; the HTTP layer turns those into a
 * redirect and a cookie.
 */

export interface AccountRequest {
  realm: string;
  /** The token of the browser's page session (its cookie), if it sent one. */
  sessionToken: string | undefined;
  /** `kc_locale`, as Keycloak names it; else the browser's Accept-Language; else English. */
  locale: string | undefined;
  acceptLanguage: string | undefined;
  form?: URLSearchParams;
  status?: string;
  /** The browser says the form was posted from another site (`Sec-Fetch-Site`, or an `Origin` not this host). */
  crossSite?: boolean;
  /** `pageToken`: where the page's list of offline tokens starts (its "more" link), the first ones without it. */
  pageToken?: string | undefined;
}

/** A page session begun (its token and lifetime), or `null`: the browser's session has ended. */
export type SessionChange = { token: string; seconds: number } | null;

/** A page to show. */
export type AccountPage = { kind: 'page'; html: string };

export type AccountAnswer =
  | AccountPage
  /** Back to the page, in its language, with a notice; `session` when the page session began or ended. */
  | { kind: 'back'; language: Language; notice?: Notice; session?: SessionChange }
  /** On to the organization's identity provider; the browser keeps the sign-in's verifier (a cookie of the page's). */
  | { kind: 'away'; location: string; sso: { verifier: string; seconds: number } };


const NOTICES: readonly string[] = ['password-saved', 'signed-out', 'session-ended', 'offline-token-revoked'] satisfies Notice[];

/** GET `…/account`: the sign-in form, the set-password form, or the profile. */
export async function showAccount(request: AccountRequest): Promise<AccountPage> {
  const context = await pageContext(request);
  const notice = NOTICES.includes(request.status ?? '') ? (request.status as Notice) : undefined;
  return render(context, 'page', await currentView(context, notice));
}

/** POST `…/account/sign-in`. */
export async function signIn(request: AccountRequest, identityProvider: IdentityProvider = cognitoIdentityProvider): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const username = request.form?.get('username') ?? '';
  const password = request.form?.get('password') ?? '';
  // The organization's provider signs in its domains' people: always when it is enforced, else when they gave no password.
  const provider = username.length <= 320 ? await findProviderForEmail(context.orgUuid, username.trim()) : undefined;
  if (provider && (provider.enforce || !password)) {
    const { location, verifier, seconds } = await startAccountSso(context.realm, context.orgUuid, provider, username.trim(), context.language);
    return { kind: 'away', location, sso: { verifier, seconds } };
  }
  try {
    // Before the check: a password change that lands while it runs ends the session it begins.
    const startedAtMs = Date.now();
    const { orgUuid, user, temporary } = await checkPassword(context.realm, username, password, identityProvider);
    // A sign-in replaces the page session the browser had, if any.
    if (context.account) await endAccountSession(context.account);
    const session = await beginAccountSession(orgUuid, user.uuid, temporary, { startedAtMs, signedInWith: 'password' });
    return back(context, undefined, session);
  } catch (error) {
    if (!(error instanceof OAuthError && error.error === 'invalid_grant')) throw error;
    const reason = error instanceof ExpiredTemporaryPassword ? 'password-expired' : 'invalid-credentials';
    return render(context, 'form', { kind: 'sign-in', realm: context.realm, email: username.slice(0, 320), error: reason });
  }
}

/** GET `…/account/sso`: back from the organization's identity provider, signed in, or the sign-in form saying why not. */
export async function finishSso(request: AccountRequest & { code?: string; error?: string; ssoVerifier?: string }): Promise<Exclude<AccountAnswer, { kind: 'away' }>> {
  const context = await pageContext(request);
  const session = request.error === undefined ? await finishAccountSso(context.realm, context.orgUuid, request.code, request.ssoVerifier) : undefined;
  if (!session) return render(context, 'form', { kind: 'sign-in', realm: context.realm, error: 'provider-refused' });
  if (context.account) await endAccountSession(context.account);
  return back(context, undefined, session);
}

/** POST `…/account/password`: sets the first password of a temporary account, or changes the password. */
export async function changePassword(
  request: AccountRequest,
  identityProvider: IdentityProvider = cognitoIdentityProvider,
): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account, form } = context;
  if (!account || !csrfMatches(account, form.get('csrf') ?? undefined)) return back(context, account ? undefined : 'session-ended');
  const user = await findActiveUser(account.session.orgUuid, account.session.userUuid);
  if (!user) return endAndSignIn(context, account);

  const firstPassword = Boolean(account.session.mustSetPassword);
  const retry = async (error: FieldError) =>
    render(
      context,
      'form',
      firstPassword ? { kind: 'set-password', realm: context.realm, email: user.email, csrf: account.csrf, error } : await profileView(context, account, error),
    );
  const next = form.get('password-new') ?? '';
  const problem = await newPasswordProblem(user.uuid, next, form.get('password-confirm') ?? '', firstPassword, identityProvider);
  if (problem) return retry(problem);
  if (!firstPassword) {
    // Changing a password asks for the current one, checked as a sign-in is (a failure counts).
    try {
      await checkPassword(context.realm, user.email, form.get('password') ?? '', identityProvider);
    } catch (error) {
      if (error instanceof OAuthError && error.error === 'invalid_grant') return retry('invalid-credentials');
      throw error;
    }
  }
  // A new password ends every session of the user, this page's included; the page goes on in a new one.
  const refused = await replacePassword(user, next, identityProvider);
  if (refused) return retry(refused);
  const session = await beginAccountSession(user.orgUuid, user.uuid, false);
  return back(context, 'password-saved', session);
}

/** POST `…/account/sign-out`. */
export async function signOut(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account } = context;
  if (account && csrfMatches(account, context.form.get('csrf') ?? undefined)) {
    await endAccountSession(account);
    return back(context, 'signed-out', null);
  }
  return back(context, account ? undefined : 'signed-out');
}

/** POST `…/account/revoke-offline-token`: ends one of the user's own offline sessions (its token stops working). */
export async function revokeOfflineToken(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account, form } = context;
  if (!account || !csrfMatches(account, form.get('csrf') ?? undefined)) return back(context, account ? undefined : 'session-ended');
  if (account.session.mustSetPassword) return back(context, undefined);
  const sessionId = form.get('session') ?? '';
  // Only one of the user's own: another user's id, or a token already ended, changes nothing.
  const revoked = sessionId !== '' && sessionId.length <= 64 && (await deleteOfflineSessionOf(account.session.userUuid, sessionId));
  return back(context, revoked ? 'offline-token-revoked' : undefined);
}

interface PageContext {
  realm: string;
  orgUuid: string;
  language: Language;
  account: AccountSession | undefined;
  form: URLSearchParams;
  pageToken: string | undefined;
}

async function pageContext(request: AccountRequest): Promise<PageContext> {
  // Login CSRF: another site's form could sign the browser in to an account of its choosing.
  if (request.form && request.crossSite) throw new ForbiddenError('The form was posted from another site');
  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) throw new NotFoundError('The realm was not found');
  return {
    realm: request.realm.toLowerCase(),
    orgUuid,
    language: pageLanguage(request.locale, request.acceptLanguage),
    account: await readAccountSession(request.sessionToken, orgUuid),
    form: request.form ?? new URLSearchParams(),
    pageToken: request.pageToken,
  };
}

/** How many offline tokens the page lists at once: the rest are a "more" link away. */
const OFFLINE_TOKENS_SHOWN = 20;

const offlineListing = (userUuid: string): PageBinding => ({ listing: 'auth.account.offlineTokens', owner: userUuid, query: {} });

/**
 * A page of the user's offline tokens, from where the page token says (the first ones for none, or
 * for one that is not the page's own, expired or altered: the page shows the list from its start),
 * with the next page's token.
 */
async function offlineTokensOf(user: UserRecord, pageToken: string | undefined): Promise<{ tokens: OfflineToken[]; more?: string }> {
  const userUuid = user.uuid;
  const start = pageToken === undefined ? undefined : await positionOf<string>(pageToken, offlineListing(userUuid)).catch(() => undefined);
  const { sessions, next } = await offlineSessionsPage(userUuid, OFFLINE_TOKENS_SHOWN, start?.after, await sessionsView(user));
  const tokens = sessions.map((session) => {
    const createdAt = session.createdAt ?? session.authTime ?? session.expiresAt;
    return { id: session.sessionId, createdAt, lastUsedAt: session.lastUsedAt ?? createdAt };
  });
  return { tokens, ...(next === undefined ? {} : { more: await pageTokenOf(offlineListing(userUuid), { number: 0, after: next }) }) };
}

async function currentView(context: PageContext, notice: Notice | undefined): Promise<View> {
  const { account } = context;
  if (!account) return { kind: 'sign-in', realm: context.realm, ...(notice ? { notice } : {}) };
  if (account.session.mustSetPassword) {
    const user = await findActiveUser(account.session.orgUuid, account.session.userUuid);
    if (!user) return { kind: 'sign-in', realm: context.realm, notice: 'session-ended' };
    return { kind: 'set-password', realm: context.realm, email: user.email, csrf: account.csrf };
  }
  return profileView(context, account, undefined, notice);
}

async function profileView(context: PageContext, account: AccountSession, error?: FieldError, notice?: Notice): Promise<View> {
  const { orgUuid, userUuid } = account.session;
  const user = await findActiveUser(orgUuid, userUuid);
  if (!user) return { kind: 'sign-in', realm: context.realm, notice: 'session-ended' };
  const offline = await offlineTokensOf(user, context.pageToken);
  return {
    kind: 'profile',
    profile: { name: user.name, email: user.email, realm: context.realm, role: user.role },
    csrf: account.csrf,
    offlineTokens: offline.tokens,
    ...(offline.more ? { moreOfflineTokens: offline.more } : {}),
    ...(error ? { error } : {}),
    ...(notice ? { notice } : {}),
  };
}

async function endAndSignIn(context: PageContext, account: AccountSession): Promise<AccountAnswer> {
  await endAccountSession(account);
  return back(context, 'session-ended', null);
}

function render(context: PageContext, at: PageAt, view: View): AccountPage {
  return { kind: 'page', html: renderAccountPage(view, context.language, at) };
}

/** Back to the page from a form, in the page's language. */
function back(context: PageContext, notice: Notice | undefined, session?: SessionChange): Extract<AccountAnswer, { kind: 'back' }> {
  return { kind: 'back', language: context.language, ...(notice ? { notice } : {}), ...(session !== undefined ? { session } : {}) };
}
