import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import type { Language } from '../../kernel/messages/languages';
import {
  decideDeviceAuthorization,
  endDeviceSignIn,
  getDeviceSignIn,
  getDeviceAuthorization,
  refundCodeEntry,
  saveDeviceSignIn,
  saveDeviceStep,
  takeCodeEntry,
  takeDeviceStep,
  type DeviceAuthorization,
} from '../../domain/sessions/device-authorization.repository';
import { displayUserCode, normalizeUserCode } from '../../domain/sessions/user-code';
import { auditContext, withAuditContext } from '../../domain/audit/audit-context';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { findActiveUser } from '../../domain/users/user.repository';
import { grantedScope } from '../auth/access-token';
import { redeemCode } from '../auth/code-exchange';
import { verificationUri } from '../auth/device-grant';
import { realmIssuer } from '../auth/jwt';
import { OAuthError } from '../auth/oauth-errors';
import { canonicalRealm, organizationOfRealm } from '../auth/realm';
import { deviceCallbackUri } from '../auth/redirect-uris';
import { pageLanguage } from '../pages/page-language';
import { renderDevicePage, type DeviceProblem, type DeviceView } from './device-page';

/**
 * The device verification page, `{issuer}/device` (RFC 8628 §3.3). The person types the user code (or
 * arrives with it from `verification_uri_complete`), then signs in through the realm's own
 * authorization endpoint: the page is a client of the flow like any other, with the console client id,
 * coming back to `{issuer}/device/callback` with a code bound to a PKCE verifier. What the sign-in is
 * for (the user code, the verifier, the language) is kept server-side under the digest of a random
 * state, and the browser's short-lived cookie holds only that state: a cookie made by hand names
 * nothing. The code is redeemed here (no session begins for the page), and the signed-in person sees
 * which client asks and approves or denies, with a form bound to that step by a single-use token and
 * to the browser by its cookie.
 *
 * Wrong codes are limited per window of 10 minutes: 10 from one address (past it, every entry from the
 * address is refused until the window ends; a right code does not count), and 10,000 for the whole
 * organization, which counts wrong codes only (past it, wrong codes are answered as too many; a right
 * code is never refused by it, so no one can block the organization's devices by typing wrong codes).
 */

/** The window of the wrong-code limits, and the limits. */
export const CODE_ENTRY_WINDOW_SECONDS = 600;
export const WRONG_CODES_PER_ADDRESS = 10;
export const WRONG_CODES_PER_REALM = 10_000;
/** How long a person has to sign in and decide once the code was typed (as the authorization flow gives a sign-in). */
const SIGN_IN_SECONDS = 15 * 60;
/** Longest step token or field read: tokens are 43 characters. */
const MAX_FIELD = 64;

const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** What the HTTP layer read of a request to the page. */
export interface DeviceRequest {
  realm: string;
  acceptLanguage: string | undefined;
  /** The browser says the form came from another site. */
  crossSite: boolean;
  /** The client's address, as the gateway saw it. */
  sourceIp: string;
  /** The page's cookie: the state of the sign-in under way (what it is for is kept server-side). */
  signIn: string | undefined;
}

export type DeviceAnswer =
  | { kind: 'page'; status: 200 | 400 | 403 | 404 | 429; html: string; retryAfter?: number; endSignIn?: true }
  | { kind: 'sign-in'; location: string; signIn: { value: string; seconds: number } };

/** GET `{issuer}/device`: the form for the code, filled from `?user_code=`. */
export async function showDevicePage(request: DeviceRequest, query: URLSearchParams): Promise<DeviceAnswer> {
  const read = readFields(query);
  const language = pageLanguage(read?.get('kc_locale'), request.acceptLanguage);
  if (!(await organizationOfRealm(request.realm))) return problem(404, 'unknown-realm', language);
  if (!read) return problem(400, 'bad-parameter', language, request.realm);
  const typed = read.get('user_code');
  const userCode = normalizeUserCode(typed);
  return page(200, { kind: 'enter', realm: canonicalRealm(request.realm), action: verificationUri(request.realm), userCode: userCode ? displayUserCode(userCode) : undefined }, language);
}

/** POST `{issuer}/device`: a code typed; a right one goes on to sign in. */
export async function enterUserCode(request: DeviceRequest, form: URLSearchParams): Promise<DeviceAnswer> {
  const read = readFields(form);
  const language = pageLanguage(read?.get('kc_locale'), request.acceptLanguage);
  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return problem(404, 'unknown-realm', language);
  if (request.crossSite) return problem(403, 'cross-site', language, request.realm);
  if (!read) return problem(400, 'bad-parameter', language, request.realm);
  const realm = canonicalRealm(request.realm);
  const typed = read.get('user_code');
  const enter = (error: 'wrong-code' | 'too-many', status: 200 | 429 = 200, retryAfter?: number): DeviceAnswer => ({
    ...page(status, { kind: 'enter', realm, action: verificationUri(realm), userCode: typed, error }, language),
    ...(retryAfter ? { retryAfter } : {}),
  });

  const window = Math.floor(now() / CODE_ENTRY_WINDOW_SECONDS);
  const address = [{ orgUuid, window, sourceIp: request.sourceIp, limit: WRONG_CODES_PER_ADDRESS }];
  const windowEnds = (window + 1) * CODE_ENTRY_WINDOW_SECONDS;
  const tooMany = (which: string) => {
    logger.warn('device verification: wrong user codes past the limit', { realm, which });
    return enter('too-many', 429, windowEnds - now());
  };
  if (!(await takeCodeEntry(address, windowEnds + 60))) return tooMany('address');
  const userCode = normalizeUserCode(typed);
  const record = userCode ? await getDeviceAuthorization(userCode) : undefined;
  if (!record || !isOpen(record, orgUuid)) {
    // The organization counts wrong codes only: a right one is never refused by others' mistakes.
    if (!(await takeCodeEntry([{ orgUuid, window, limit: WRONG_CODES_PER_REALM }], windowEnds + 60))) return tooMany('organization');
    return enter('wrong-code');
  }
  await refundCodeEntry(address);

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(32).toString('base64url');
  const location = `${realmIssuer(realm)}/protocol/openid-connect/auth?${new URLSearchParams({
    response_type: 'code',
    client_id: config().userPoolClientId,
    redirect_uri: deviceCallbackUri(realm),
    state,
    code_challenge: sha256(verifier).toString('base64url'),
    code_challenge_method: 'S256',
    kc_locale: language,
  })}`;
  const seconds = Math.max(1, Math.min(SIGN_IN_SECONDS, record.expiresAt - now()));
  await saveDeviceSignIn(sha256(state).toString('hex'), { userCode: record.userCode, orgUuid, verifier, language, expiresAt: now() + seconds });
  return { kind: 'sign-in', location, signIn: { value: state, seconds } };
}

/** GET `{issuer}/device/callback`: back from the flow; the signed-in person sees the consent step. */
export async function finishDeviceSignIn(request: DeviceRequest, query: URLSearchParams): Promise<DeviceAnswer> {
  const read = readFields(query, ['iss', 'error_description']);
  const state = readSignIn(request.signIn);
  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return problem(404, 'unknown-realm', pageLanguage(undefined, request.acceptLanguage));
  const realm = canonicalRealm(request.realm);
  if (!read) return problem(400, 'bad-parameter', pageLanguage(undefined, request.acceptLanguage), realm);
  // The flow's answer must carry the state of this browser's cookie; what it is for is read server-side,
  // and used once: ended when the answer's code is redeemed.
  const stateHash = state ? sha256(state).toString('hex') : '';
  const signIn = state && sameText(read.get('state') ?? '', state) ? await getDeviceSignIn(stateHash, now()) : undefined;
  const language = pageLanguage(signIn?.language, request.acceptLanguage);
  if (!signIn || signIn.orgUuid !== orgUuid) return problem(400, 'expired', language, realm);
  // RFC 9207: the answer names its issuer, which must be this realm.
  if (read.has('iss') && read.get('iss') !== realmIssuer(realm)) return problem(400, 'sign-in-failed', language, realm);
  const code = read.get('code');
  if (!code) return problem(400, 'sign-in-failed', language, realm);
  const signedIn = await redeemCode(realm, { code, redirectUri: deviceCallbackUri(realm), verifier: signIn.verifier }, config().userPoolClientId).catch((error: unknown) => {
    if (error instanceof OAuthError) return undefined;
    throw error;
  });
  if (!signedIn || !(await endDeviceSignIn(stateHash))) return problem(400, 'sign-in-failed', language, realm);
  const record = await getDeviceAuthorization(signIn.userCode);
  if (!record || !isOpen(record, orgUuid)) return problem(400, 'expired', language, realm);
  const step = randomBytes(32).toString('base64url');
  await saveDeviceStep(sha256(step).toString('hex'), {
    userCode: record.userCode,
    browserHash: stateHash,
    orgUuid,
    userUuid: signedIn.user.uuid,
    authTime: signedIn.issued.authTime,
    ...(signedIn.issued.startedAtMs === undefined ? {} : { startedAtMs: signedIn.issued.startedAtMs }),
    ...(signedIn.issued.signedInWith ? { signedInWith: signedIn.issued.signedInWith } : {}),
    expiresAt: Math.min(now() + SIGN_IN_SECONDS, record.expiresAt),
  });
  return page(
    200,
    {
      kind: 'consent',
      realm,
      action: `${verificationUri(realm)}/decision`,
      userCode: displayUserCode(record.userCode),
      step,
      clientId: record.clientId,
      scope: record.scope,
      email: signedIn.user.email,
    },
    language,
  );
}

/** POST `{issuer}/device/decision`: approve or deny, once, with the step's token, from this browser. */
export async function decideDevice(request: DeviceRequest, form: URLSearchParams): Promise<DeviceAnswer> {
  const read = readFields(form);
  const language = pageLanguage(read?.get('kc_locale'), request.acceptLanguage);
  const orgUuid = await organizationOfRealm(request.realm);
  if (!orgUuid) return problem(404, 'unknown-realm', language);
  const realm = canonicalRealm(request.realm);
  if (request.crossSite) return problem(403, 'cross-site', language, realm);
  if (!read) return problem(400, 'bad-parameter', language, realm);
  const decision = read.get('decision');
  const userCode = normalizeUserCode(read.get('user_code'));
  const token = read.get('step') ?? '';
  const state = readSignIn(request.signIn);
  // The step's token comes from the page alone; the browser's cookie must be the one the step was shown to.
  if ((decision !== 'approve' && decision !== 'deny') || !userCode || !token || !state) return problem(403, 'cross-site', language, realm);
  const browserHash = sha256(state).toString('hex');
  const step = await takeDeviceStep(sha256(token).toString('hex'), now(), (shown) => shown.browserHash !== undefined && sameText(shown.browserHash, browserHash));
  if (!step || step.userCode !== userCode || step.orgUuid !== orgUuid) return problem(400, 'expired', language, realm);
  const [user, record] = await Promise.all([findActiveUser(orgUuid, step.userUuid), getDeviceAuthorization(userCode)]);
  const approved = decision === 'approve';
  if (!user || !record) return problem(400, 'expired', language, realm);
  // An approval is the user's own act, recorded on the user in the same transaction: which client may
  // now act as them, with what scope. A denial grants nothing and records nothing.
  const cause = { actor: { uuid: user.uuid, email: user.email }, requestId: auditContext().requestId };
  const events = approved
    ? await withAuditContext(cause, async () =>
        auditWrites({
          orgUuid,
          action: 'USER_DEVICE_AUTHORIZED',
          resource: { type: 'USER', uuid: user.uuid },
          changes: [{ op: 'add', path: '/deviceAuthorization', value: { clientId: record.clientId, scope: grantedScope(record.scope) } }],
        }),
      )
    : [];
  if (!(await decideDeviceAuthorization(userCode, approved ? 'approved' : 'denied', user.uuid, step, now(), events))) {
    return problem(400, 'expired', language, realm);
  }
  logger.info('device authorization decided', { realm, approved });
  return { ...page(200, { kind: 'done', approved }, language), endSignIn: true };
}

/** A record the page may still act on: this organization's, pending, unexpired. */
const isOpen = (record: DeviceAuthorization, orgUuid: string) => record.orgUuid === orgUuid && record.status === 'pending' && record.expiresAt > now();

/**
 * The fields of a query or form, each at most once and within its length; undefined when one is
 * repeated or too long. `free` names fields read by nobody, which may be longer (the flow's `iss`).
 */
function readFields(params: URLSearchParams, free: readonly string[] = []): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (const [name, value] of params) {
    if (fields.has(name) || (value.length > MAX_FIELD && !free.includes(name))) return undefined;
    fields.set(name, value);
  }
  return fields;
}

/** The state of the browser's sign-in cookie: 43 base64url characters, or nothing. */
function readSignIn(cookie: string | undefined): string | undefined {
  return cookie && /^[A-Za-z0-9_-]{43}$/.test(cookie) ? cookie : undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function page(status: 200 | 400 | 403 | 404 | 429, view: DeviceView, language: Language): Extract<DeviceAnswer, { kind: 'page' }> {
  return { kind: 'page', status, html: renderDevicePage(view, language) };
}

/**
 * An error page. The sign-in's cookie stays: another site can send the browser to any of these
 * addresses, and must not end a sign-in under way by it.
 */
function problem(status: 400 | 403 | 404, which: DeviceProblem, language: Language, realm?: string): DeviceAnswer {
  const again = realm ? verificationUri(realm) : undefined;
  return page(status, { kind: 'problem', problem: which, ...(again ? { again } : {}) }, language);
}
