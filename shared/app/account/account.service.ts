import { OAuthError } from '../auth/oauth-errors';
import { organizationOfRealm } from '../auth/realm';
import { deleteOfflineSessionOf, offlineSessionsPage } from '../../domain/sessions/session.repository';
import { pageTokenOf, positionOf, type PageBinding } from '../../domain/requests/page-token.repository';
import { checkPassword } from '../auth/sign-in';
import { newPasswordProblem, replacePassword } from '../auth/new-password';
import { ForbiddenError, NotFoundError } from '../../kernel/errors';
import { identityProvider as defaultIdentityProvider, type IdentityProvider } from '../auth/identity.port';
import type { Language } from '../../kernel/messages/languages';
import { findActiveUser } from '../../domain/users/user.repository';
import { sessionsView } from '../../domain/users/user-sessions';
import type { UserRecord } from '../../domain/users/user.entities';
import { pageLanguage } from '../pages/page-language';
import { renderAccountPage, type FieldError, type Notice, type OfflineToken, type PageAt, type View } from './account-page';
import { endRealmSession } from '../sign-in/realm-session';
import { accountSignInRequest, finishAccountSso } from './account-sso';
import { beginAccountSession, csrfMatches, endAccountSession, readAccountSession, type AccountSession } from './account-session';

/**
 * The account page at `{issuer}/account` (Keycloak's account console, reduced to what a new user
 * needs): see one's profile; change the password; see and revoke one's offline tokens; sign out. The
 * page signs its people in through the realm's authorization flow (`account-sso.ts`), like any other
 * client, so a browser signed in to the realm opens it without a password, and the flow's steps (the
 * password and its lockout, a temporary password's replacement, the organization's provider) are the
 * page's too. Forms answer "back to the page" when done (so a reload never posts twice), with the page
 * session begun or ended, or the form again with what was wrong; the HTTP layer turns those into a
 * redirect and a cookie.
 */

export interface AccountRequest {
  realm: string;
  /** The token of the browser's page session (its cookie), if it sent one. */
  sessionToken: string | undefined;
  /** The browser's realm session cookie, if it sent one (signing out ends it). */
  realmSessionToken?: string | undefined;
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
  /** Back to the page, in its language, with a notice; `session` when the page session began or ended; `realmSignedOut` when the realm session ended too. */
  | { kind: 'back'; language: Language; notice?: Notice; session?: SessionChange; realmSignedOut?: true }
  /** On to the realm's authorization endpoint; the browser keeps the sign-in's verifier (a cookie of the page's). */
  | { kind: 'away'; location: string; sso: { verifier: string; seconds: number } };


const NOTICES: readonly string[] = ['password-saved', 'signed-out', 'session-ended', 'offline-token-revoked'] satisfies Notice[];

/**
 * GET `…/account`: the profile; without a page session, on to the realm's sign-in (which answers at
 * once for a browser signed in to the realm), unless the page has something to say first (signed out,
 * the session ended): then that, and a link to sign in.
 */
export async function showAccount(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const notice = NOTICES.includes(request.status ?? '') ? (request.status as Notice) : undefined;
  if (!context.account && !notice) return toSignIn(context);
  return render(context, 'page', await currentView(context, notice));
}

/** POST `…/account/sign-in`: on to the realm's sign-in, the e-mail given (if any) as its `login_hint`. */
export async function signIn(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const username = (request.form?.get('username') ?? '').trim();
  return toSignIn(context, username.length <= 320 ? username : undefined);
}

function toSignIn(context: PageContext, loginHint?: string): AccountAnswer {
  const { location, verifier, seconds } = accountSignInRequest(context.realm, context.language, loginHint || undefined);
  return { kind: 'away', location, sso: { verifier, seconds } };
}

/** GET `…/account/sso`: back from the realm's sign-in, signed in, or the page saying why not (with a link to try again). */
export async function finishSso(request: AccountRequest & { code?: string; error?: string; ssoVerifier?: string }): Promise<Exclude<AccountAnswer, { kind: 'away' }>> {
  const context = await pageContext(request);
  const session = request.error === undefined ? await finishAccountSso(context.realm, context.orgUuid, request.code, request.ssoVerifier) : undefined;
  if (!session) return render(context, 'form', { kind: 'sign-in', realm: context.realm, error: 'provider-refused' });
  if (context.account) await endAccountSession(context.account);
  return back(context, undefined, session);
}

/** POST `…/account/password`: changes the password (a temporary one is replaced in the realm's sign-in, before the page opens). */
export async function changePassword(
  request: AccountRequest,
  identityProvider: IdentityProvider = defaultIdentityProvider,
): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account, form } = context;
  if (!account || !csrfMatches(account, form.get('csrf') ?? undefined)) return back(context, account ? undefined : 'session-ended');
  const user = await findActiveUser(account.session.orgUuid, account.session.userUuid);
  if (!user) return endAndSignIn(context, account);

  const retry = async (error: FieldError) => render(context, 'form', await profileView(context, account, error));
  const next = form.get('password-new') ?? '';
  const problem = await newPasswordProblem(user.uuid, next, form.get('password-confirm') ?? '', false, identityProvider);
  if (problem) return retry(problem);
  // Changing a password asks for the current one, checked as a sign-in is (a failure counts).
  try {
    await checkPassword(context.realm, user.email, form.get('password') ?? '', identityProvider);
  } catch (error) {
    if (error instanceof OAuthError && error.error === 'invalid_grant') return retry('invalid-credentials');
    throw error;
  }
  // A new password ends every session of the user, this page's included; the page goes on in a new one.
  const refused = await replacePassword(user, next, identityProvider);
  if (refused) return retry(refused);
  const session = await beginAccountSession(user.orgUuid, user.uuid);
  return back(context, 'password-saved', session);
}

/** POST `…/account/sign-out`. */
export async function signOut(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account } = context;
  if (account && csrfMatches(account, context.form.get('csrf') ?? undefined)) {
    // Signing out of the page signs the browser out of the realm too, as Keycloak's account console does.
    await Promise.all([endAccountSession(account), endRealmSession(request.realmSessionToken, account.session.orgUuid)]);
    return { ...back(context, 'signed-out', null), realmSignedOut: true };
  }
  return back(context, account ? undefined : 'signed-out');
}

/** POST `…/account/revoke-offline-token`: ends one of the user's own offline sessions (its token stops working). */
export async function revokeOfflineToken(request: AccountRequest): Promise<AccountAnswer> {
  const context = await pageContext(request);
  const { account, form } = context;
  if (!account || !csrfMatches(account, form.get('csrf') ?? undefined)) return back(context, account ? undefined : 'session-ended');
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
