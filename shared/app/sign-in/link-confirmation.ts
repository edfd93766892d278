import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { identityProvider as defaultIdentityProvider, type IdentityProvider } from '../auth/identity.port';
import type { Language } from '../../kernel/messages/languages';
import { ConflictError, NotFoundError } from '../../kernel/errors';
import { endAuthorizationRequest, getAuthorizationRequest, type AuthorizationRequest } from '../../domain/sessions/authorization.repository';
import {
  countLinkConfirmationFailure,
  getLinkConfirmation,
  saveLinkConfirmation,
  takeLinkConfirmation,
} from '../../domain/sessions/link-confirmation.repository';
import type { IdentityProviderRecord } from '../../domain/identity-providers/identity-provider.entities';
import { getProvider } from '../../domain/identity-providers/identity-provider.repository';
import { auditBrokeredSignIn, linkStanding, linkUserToProvider, type LinkStanding } from '../identity-providers/user-link';
import type { UserRecord } from '../../domain/users/user.entities';
import { findActiveUser } from '../../domain/users/user.repository';
import { pageLanguage } from '../pages/page-language';
import { OAuthError } from '../auth/oauth-errors';
import { canonicalRealm } from '../auth/realm';
import { checkPassword, ExpiredTemporaryPassword, ProviderEnforced } from '../auth/sign-in';
import { codeFor, isRequestsBrowser, refuseRequest, type AuthorizeAnswer } from './sign-in-end';
import { renderLinkConfirmationPage, type LinkConfirmationError } from './link-confirmation-page';
import { renderSignInPage, type PageProblem } from './sign-in-page';

/**
 * The end of a brokered sign-in, once the provider's ID token is checked and the organization's user
 * found: the user's own provider account signs in; another account than the one the user is bound to
 * is refused (a page that says to ask an ADMIN); a first link of a user who can sign in with a password
 * of their own, or of an ADMIN, asks for that password once (Keycloak's first broker login, "verify
 * existing account by re-authentication") before the link is written and the code answered. The
 * confirmation is single use, a few minutes long, and bound to the browser by a cookie's secret.
 */

/** How long the confirmation page may be answered. */
export const LINK_CONFIRMATION_SECONDS = 5 * 60;
/** Wrong passwords one confirmation takes before it ends (each also counts toward the user's lockout). */
const MAX_ATTEMPTS = 5;

/**
 * A brokered sign-in's answer, and what the browser's confirmation cookie becomes: set (its secret and
 * lifetime) when the confirmation page is shown, removed (`null`) once it is answered.
 */
export type BrokerAnswer<S extends number = 200 | 400 | 403> = AuthorizeAnswer<S> & { confirmationCookie?: { secret: string; seconds: number } | null };

const random = () => randomBytes(32).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const now = () => Math.floor(Date.now() / 1000);
const languageOf = (pending: AuthorizationRequest, fallback: Language) => (pending.locale as Language | undefined) ?? fallback;

/** The provider's account `subject` vouched for `user`: signed in, refused, or asked to confirm. */
export async function finishBrokeredLink(
  pending: AuthorizationRequest,
  provider: IdentityProviderRecord,
  user: UserRecord,
  subject: string,
  language: Language,
  identityProvider: IdentityProvider = defaultIdentityProvider,
): Promise<BrokerAnswer> {
  const standing = await linkStanding(user, provider.alias, subject);
  if (standing === 'refused') return refused(pending, provider, user, subject, language);
  if (standing === 'first' && (await mustConfirm(user, provider, identityProvider))) {
    const secret = random();
    const confirmationId = random();
    await saveLinkConfirmation({
      confirmationId,
      realm: pending.realm,
      orgUuid: pending.orgUuid,
      requestId: pending.requestId,
      userUuid: user.uuid,
      alias: provider.alias,
      subject,
      browserSecretHash: sha256(secret),
      expiresAt: now() + LINK_CONFIRMATION_SECONDS,
    });
    const html = renderLinkConfirmationPage({ kind: 'confirm', confirmationId, provider: provider.displayName, email: user.email }, languageOf(pending, language), 'broker');
    return { kind: 'page', status: 200, html, confirmationCookie: { secret, seconds: LINK_CONFIRMATION_SECONDS } };
  }
  return signInLinked(pending, provider, user, subject, standing, language);
}

/**
 * Whether a first link must be confirmed with the user's password: an ADMIN's always, another user's
 * when they have a password of their own (not a temporary one still to be changed). Under an enforced
 * provider no password of its domains signs in, so there is none to ask.
 */
async function mustConfirm(user: UserRecord, provider: IdentityProviderRecord, identityProvider: IdentityProvider): Promise<boolean> {
  if (provider.enforce) return false;
  if (user.role === 'ADMIN') return true;
  return (await identityProvider.passwordStanding(user.uuid)) === 'permanent';
}

/** Links on a first sign-in (no-op when bound), records the sign-in, and answers the code. */
async function signInLinked(
  pending: AuthorizationRequest,
  provider: IdentityProviderRecord,
  user: UserRecord,
  subject: string,
  standing: LinkStanding,
  language: Language,
): Promise<BrokerAnswer<400 | 403>> {
  if (standing === 'first') {
    try {
      await linkUserToProvider(pending.orgUuid, user.uuid, provider.alias, subject);
    } catch (error) {
      if (error instanceof ConflictError && error.code === 'IDENTITY_PROVIDER_LINK_TAKEN') return refused(pending, provider, user, subject, language);
      // Deleted meanwhile: the user, or the provider.
      if (error instanceof ConflictError || error instanceof NotFoundError) {
        return refuseRequest(pending, 'access_denied', 'The user or the identity provider changed during the sign-in; sign in again');
      }
      throw error;
    }
  }
  await auditBrokeredSignIn(user, provider.alias, subject, 'signed-in');
  return codeFor(pending, user, { signedInWith: 'provider' });
}

/** Another account than the user's own: audited, the request ended, and a page (no e-mail named). */
async function refused(pending: AuthorizationRequest, provider: IdentityProviderRecord, user: UserRecord, subject: string, language: Language): Promise<BrokerAnswer<403>> {
  await auditBrokeredSignIn(user, provider.alias, subject, 'refused');
  await endAuthorizationRequest(pending.requestId);
  return { kind: 'page', status: 403, html: renderLinkConfirmationPage({ kind: 'refused', provider: provider.displayName }, languageOf(pending, language), 'broker'), requestCookie: null };
}

/** The confirmation page's form, as the HTTP layer read it. */
export interface ConfirmLinkRequest {
  realm: string;
  form: URLSearchParams;
  acceptLanguage: string | undefined;
  /** The browser says the form came from another site. */
  crossSite: boolean;
  /** The secret of the browser's confirmation cookie, if it sent one. */
  browserSecret: string | undefined;
  /** The secret of the browser's request cookie, if it sent one (`sign-in-end.ts`). */
  requestSecret: string | undefined;
}

/** POST `{issuer}/login-actions/first-broker-login`: the user's password, then the link and the code. */
export async function confirmLink(request: ConfirmLinkRequest, identityProvider: IdentityProvider = defaultIdentityProvider): Promise<BrokerAnswer> {
  const { form } = request;
  const language = pageLanguage(form.get('kc_locale') ?? undefined, request.acceptLanguage);
  const problem = (status: 400 | 403, which: PageProblem): BrokerAnswer<400 | 403> => ({
    kind: 'page',
    status,
    html: renderSignInPage({ kind: 'error', problem: which }, language, 'authenticate'),
    confirmationCookie: null,
  });
  if (request.crossSite) return problem(403, 'cross-site');
  const confirmationId = form.get('confirmation') ?? '';
  const confirmation = confirmationId.length === 43 ? await getLinkConfirmation(confirmationId) : undefined;
  if (!confirmation || confirmation.realm !== canonicalRealm(request.realm) || !sameSecret(confirmation.browserSecretHash, request.browserSecret)) {
    return problem(400, 'expired');
  }
  const { orgUuid, alias, subject } = confirmation;
  const pending = await getAuthorizationRequest(confirmation.requestId);
  // The request's own browser only, before the password is checked.
  if (pending && !isRequestsBrowser(pending, request.requestSecret)) return problem(400, 'expired');
  const [user, provider] = await Promise.all([findActiveUser(orgUuid, confirmation.userUuid), getProvider(orgUuid, alias)]);
  if (!pending || !user || !provider) {
    await takeLinkConfirmation(confirmationId);
    return problem(400, 'expired');
  }
  const wrong = await passwordProblem(pending.realm, user, form.get('password') ?? '', identityProvider);
  if (wrong) {
    const attempts = await countLinkConfirmationFailure(confirmationId);
    if (attempts === undefined || attempts >= MAX_ATTEMPTS) {
      await takeLinkConfirmation(confirmationId);
      return problem(400, 'expired');
    }
    const html = renderLinkConfirmationPage({ kind: 'confirm', confirmationId, provider: provider.displayName, email: user.email, error: wrong }, language, 'confirm');
    return { kind: 'page', status: 200, html };
  }
  // Taken once: a second post of the same page, or a race of two, finds nothing.
  if (!(await takeLinkConfirmation(confirmationId))) return problem(400, 'expired');
  return { ...(await signInLinked(pending, provider, user, subject, 'first', language)), confirmationCookie: null };
}

/** The realm's own password check (lockout included): what was wrong, or nothing when it is the user's password. */
async function passwordProblem(realm: string, user: UserRecord, password: string, identityProvider: IdentityProvider): Promise<LinkConfirmationError | undefined> {
  try {
    const checked = await checkPassword(realm, user.email, password, identityProvider);
    return checked.user.uuid === user.uuid ? undefined : 'invalid-credentials';
  } catch (error) {
    // The provider became enforced meanwhile: its domains have no password to confirm (`mustConfirm`).
    if (error instanceof ProviderEnforced) return undefined;
    if (error instanceof OAuthError && error.error === 'invalid_grant') return error instanceof ExpiredTemporaryPassword ? 'password-expired' : 'invalid-credentials';
    throw error;
  }
}

function sameSecret(expectedHash: string, presented: string | undefined): boolean {
  if (!presented || presented.length > 128) return false;
  const expected = Buffer.from(expectedHash, 'hex');
  const actual = Buffer.from(sha256(presented), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
