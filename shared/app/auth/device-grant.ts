import { unknownScopeMessage, unknownScopes } from './access-token';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createDeviceAuthorization,
  getDeviceAuthorization,
  notePoll,
  takeApprovedDeviceAuthorization,
  type DeviceAuthorization,
} from '../../domain/sessions/device-authorization.repository';
import { displayUserCode, newUserCode, USER_CODE_ALPHABET, USER_CODE_LENGTH } from '../../domain/sessions/user-code';
import { userStillSignedIn } from '../../domain/users/signed-in-user';
import { realmIssuer } from './jwt';
import { OAuthError } from './oauth-errors';
import { canonicalRealm, organizationOfRealm } from './realm';
import { requireClient, requireParam, startSession, type TokenResponse } from './token.service';

/**
 * The device authorization grant (RFC 8628), at Keycloak's addresses: a command-line tool on a machine
 * without a browser asks `{issuer}/protocol/openid-connect/auth/device` for a device code and a user
 * code, shows the person the code and `{issuer}/device`, and polls the token endpoint with
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` while the person signs in on another device
 * and approves (`shared/app/sign-in/device-verification.ts`).
 */

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** How long the person has to approve (Keycloak's default: 10 minutes). */
export const DEVICE_CODE_SECONDS = 600;
/** The least time between two polls, in seconds, until a `slow_down` adds 5 (RFC 8628 §3.2's default). */
export const POLL_INTERVAL_SECONDS = 5;
/** Leeway for a poll sent on time that the network delayed less than the one before. */
const POLL_LEEWAY_MS = 1000;
const MAX_SCOPE = 256;
/** `<user code>.<secret>`: the code names the record; only the secret's digest is stored. */
const DEVICE_CODE = new RegExp(`^([${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}})\\.([A-Za-z0-9_-]{43})$`);

const now = () => Math.floor(Date.now() / 1000);
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The device authorization response (RFC 8628 §3.2). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** Where the person goes to approve: the realm's verification page. */
export const verificationUri = (realm: string) => `${realmIssuer(canonicalRealm(realm))}/device`;

/** POST `{issuer}/protocol/openid-connect/auth/device`: a new device authorization for the console client. */
export async function authorizeDevice(realm: string, form: Map<string, string>): Promise<DeviceAuthorizationResponse> {
  const clientId = requireClient(form);
  const scope = form.get('scope');
  if (scope !== undefined && scope.length > MAX_SCOPE) throw new OAuthError('invalid_request', `Parameter scope is longer than ${MAX_SCOPE} characters`);
  const unknown = unknownScopes(scope);
  if (unknown.length) throw new OAuthError('invalid_scope', unknownScopeMessage(unknown));
  const orgUuid = await organizationOfRealm(realm);
  if (!orgUuid) throw new OAuthError('invalid_request', 'There is no organization by this realm name: check the issuer address');
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = now() + DEVICE_CODE_SECONDS;
  // 20^8 codes: a draw already taken by a live authorization is all but impossible, but drawn again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const userCode = newUserCode();
    const record: DeviceAuthorization = {
      userCode,
      secretHash: sha256(secret),
      realm: canonicalRealm(realm),
      orgUuid,
      clientId,
      status: 'pending',
      expiresAt,
      interval: POLL_INTERVAL_SECONDS,
      ...(scope ? { scope } : {}),
    };
    if (await createDeviceAuthorization(record)) {
      const page = verificationUri(realm);
      const shown = displayUserCode(userCode);
      return {
        device_code: `${userCode}.${secret}`,
        user_code: shown,
        verification_uri: page,
        verification_uri_complete: `${page}?${new URLSearchParams({ user_code: shown })}`,
        expires_in: DEVICE_CODE_SECONDS,
        interval: POLL_INTERVAL_SECONDS,
      };
    }
  }
  throw new Error('No free user code after three draws');
}

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4, §3.5): the tokens once the
 * person approved, exactly once; until then `authorization_pending` (or `slow_down` for a poll sooner
 * than the interval), `access_denied` once denied, `expired_token` once the code expired.
 */
export async function deviceCodeGrant(realm: string, form: Map<string, string>, clientId: string): Promise<TokenResponse> {
  const invalid = (description: string) => new OAuthError('invalid_grant', description);
  const deviceCode = requireParam(form, 'device_code');
  const [, userCode, secret] = DEVICE_CODE.exec(deviceCode) ?? [];
  if (!userCode || !secret) throw invalid('Device code not valid: send the device_code the device authorization answered');
  const record = await getDeviceAuthorization(userCode);
  const orgUuid = await organizationOfRealm(realm);
  if (!record || !sameDigest(record.secretHash, sha256(secret)) || record.orgUuid !== orgUuid || record.realm !== canonicalRealm(realm)) {
    throw invalid('Device code not valid: send the device_code the device authorization answered');
  }
  if (record.clientId !== clientId) throw invalid('Device code was issued to another client');
  if (record.status === 'exchanged') throw invalid('Device code already used: its tokens were answered once; start a new device authorization');
  if (record.expiresAt <= now()) throw new OAuthError('expired_token', 'The device code has expired: start a new device authorization');
  if (record.status === 'denied') throw new OAuthError('access_denied', 'The person denied the request');
  if (record.status === 'approved') return exchange(realm, record);
  const at = Date.now();
  if (!(await notePoll(record, at, at - record.interval * 1000 + POLL_LEEWAY_MS))) {
    throw new OAuthError('slow_down', `Polled sooner than every ${record.interval} seconds: wait ${record.interval + 5} seconds between polls from now on`);
  }
  throw new OAuthError('authorization_pending', `The person has not yet approved: poll again in ${record.interval} seconds`);
}

/** The one exchange of an approved authorization: marked exchanged first, so a racing second one finds it used. */
async function exchange(realm: string, record: DeviceAuthorization): Promise<TokenResponse> {
  const used = () => new OAuthError('invalid_grant', 'Device code already used: its tokens were answered once; start a new device authorization');
  if (!record.userUuid || !(await takeApprovedDeviceAuthorization(record.userCode))) throw used();
  const authTime = record.authTime ?? now();
  // A password changed (or sessions ended), or the user's domain made its provider the one way in,
  // since the approving sign-in voids the approval, and the session begun here keeps that sign-in's
  // start, so a later change ends it as any other.
  const startedAtMs = record.startedAtMs ?? authTime * 1000 + 999;
  const proof = { startedAtMs, ...(record.signedInWith ? { signedInWith: record.signedInWith } : {}) };
  const user = await userStillSignedIn(record.orgUuid, record.userUuid, proof);
  if (!user) {
    throw new OAuthError('invalid_grant', 'The person who approved can no longer sign in: sign in again with a new device authorization');
  }
  return startSession(realm, {
    orgUuid: record.orgUuid,
    user,
    clientId: record.clientId,
    scope: record.scope,
    authTime,
    startedAtMs,
    ...(record.signedInWith ? { signedInWith: record.signedInWith } : {}),
  });
}

function sameDigest(stored: string, presented: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
