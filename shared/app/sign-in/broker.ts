import { createHash, randomBytes } from 'node:crypto';
import { verifyJwtSync } from 'aws-jwt-verify/jwt-verifier';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { config } from '../../kernel/config';
import { logger } from '../../kernel/logger';
import type { Language } from '../../kernel/messages/languages';
import { brokerAuthorizationRequest, takeBrokeredRequest, type AuthorizationRequest } from '../../domain/sessions/authorization.repository';
import type { IdentityProviderRecord } from '../../domain/identity-providers/identity-provider.entities';
import { getProvider, providerClientSecret } from '../../domain/identity-providers/identity-provider.repository';
import { brokerRedirectUri } from '../../domain/identity-providers/identity-provider.mapper';
import { findUserByEmail } from '../../domain/users/user.repository';
import { providerHttp } from '../identity-providers/provider-http.port';
import { isRequestsBrowser, refuseRequest, type AuthorizeAnswer } from './sign-in-end';
import { canonicalRealm } from '../auth/realm';
import { renderSignInPage } from './sign-in-page';
import { finishBrokeredLink, type BrokerAnswer } from './link-confirmation';

/**
 * Sign-in brokered to an organization's own OpenID provider (Keycloak's identity brokering): the
 * person is sent to the provider's authorization endpoint with a `state`, `nonce` and PKCE of this
 * service's own; the provider's answer at `{issuer}/broker/{alias}/endpoint` is exchanged at its token
 * endpoint (with the client secret) under the outbound rules webhooks follow, its ID token checked
 * (signature by the provider's JWKS, `iss`, `aud`, `azp`, `exp`, `iat`, `nonce`, `sub`), and the
 * organization's user with the token's verified e-mail found: the request goes back to its application
 * with a code (the user's own provider account, or a first link, confirmed with the user's password
 * when they have one: `link-confirmation.ts`), with `access_denied`, or to a refusal page (another
 * provider account than the one the user is bound to).
 */

/** How far in the future an ID token's `iat` may be: the provider's clock may run a little ahead. */
const CLOCK_SKEW_SECONDS = 300;
/** OpenID Connect Core §2: `sub` is at most 255 ASCII characters. */
const MAX_SUBJECT = 255;

/** How much of the provider's token answer and JWKS is read (real ones are a few KiB), and how long each call may take. */
const MAX_PROVIDER_BYTES = 64 * 1024;
const PROVIDER_TIMEOUT_MS = 5_000;

const random = () => randomBytes(32).toString('base64url');

/** Sends the person on to the provider: `login_hint` carries the e-mail they gave, if any. */
export async function startBrokeredSignIn(pending: AuthorizationRequest, provider: IdentityProviderRecord, email?: string): Promise<AuthorizeAnswer<400>> {
  const broker = { alias: provider.alias, state: random(), nonce: random(), codeVerifier: random() };
  await brokerAuthorizationRequest(pending.requestId, broker);
  const url = new URL(provider.authorizationEndpoint);
  const params = {
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: brokerRedirectUri(pending.realm, provider.alias),
    scope: 'openid email profile',
    state: broker.state,
    nonce: broker.nonce,
    code_challenge: createHash('sha256').update(broker.codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(email ? { login_hint: email } : {}),
    // What the application asked of the sign-in, asked of the provider in turn (checked by its `auth_time`).
    ...(pending.reauthenticate?.login ? { prompt: 'login' } : {}),
    ...(pending.reauthenticate?.maxAge === undefined ? {} : { max_age: String(pending.reauthenticate.maxAge) }),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { kind: 'redirect', location: url.toString() };
}

/** Why a brokered sign-in is refused: said to the application (`error_description`), never a provider's own words. */
class Denied extends Error {}

/**
 * GET `{issuer}/broker/{alias}/endpoint`: the provider's answer, in the browser that made the request
 * (`browserSecret`, its request cookie): the same answer opened in another browser finds nothing.
 */
export async function finishBrokeredSignIn(realm: string, alias: string, queryString: string, language: Language, browserSecret: string | undefined): Promise<BrokerAnswer> {
  const params = new URLSearchParams(queryString);
  const state = params.get('state') ?? '';
  const pending = state.length === 43 ? await takeBrokeredRequest(state, (request) => isRequestsBrowser(request, browserSecret)) : undefined;
  // Without its request there is nowhere safe to go back to: the page says to start again.
  if (!pending?.broker || pending.realm !== canonicalRealm(realm) || pending.broker.alias !== alias) {
    return { kind: 'page', status: 400, html: renderSignInPage({ kind: 'error', problem: 'expired' }, language, 'authorize') };
  }
  try {
    const providerError = params.get('error');
    if (providerError !== null) throw new Denied(`The identity provider refused the sign-in (${providerError.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64)})`);
    const code = params.get('code');
    if (!code || code.length > 4096) throw new Denied('The identity provider answered without a code');
    const provider = await getProvider(pending.orgUuid, alias);
    if (!provider) throw new Denied('The identity provider is no longer registered for this organization');
    const claims = await verifiedClaims(provider, pending, code);
    // A provider speaks for its own domains only: never for an e-mail of another provider's, or of none.
    const domain = claims.email.slice(claims.email.lastIndexOf('@') + 1).toLowerCase();
    if (!provider.domains.includes(domain)) throw new Denied("The identity provider gave an e-mail outside the domains it is registered for; ask an administrator to add the domain to the provider");
    const user = await findUserByEmail(pending.orgUuid, claims.email);
    if (!user || user.status !== 'ACTIVE') throw new Denied('No active user of this organization has the e-mail the identity provider gave; ask an administrator to add it');
    return await finishBrokeredLink(pending, provider, user, claims.subject, language);
  } catch (error) {
    if (!(error instanceof Denied)) throw error;
    logger.info('brokered sign-in denied', { alias, reason: error.message });
    return refuseRequest(pending, 'access_denied', error.message);
  }
}

/** The provider's ID token for this code, checked; its verified e-mail and its subject. */
async function verifiedClaims(provider: IdentityProviderRecord, pending: AuthorizationRequest, code: string): Promise<{ email: string; subject: string }> {
  const outbound = { allowLoopbackHttp: config().webhooks.allowLoopbackHttp, maxBytes: MAX_PROVIDER_BYTES, timeoutMs: PROVIDER_TIMEOUT_MS };
  const secret = await providerClientSecret(provider);
  const basic = Buffer.from(`${encodeURIComponent(provider.clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  const answer = await providerHttp.postForm(
    new URL(provider.tokenEndpoint),
    { accept: 'application/json', authorization: `Basic ${basic}` },
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: brokerRedirectUri(pending.realm, provider.alias),
      code_verifier: pending.broker!.codeVerifier,
    }),
    outbound,
  );
  if (!answer.ok) throw new Denied(`The identity provider's token endpoint did not answer the code (${answer.detail ?? 'no answer'})`);
  const idToken = parseObject(answer.body)?.id_token;
  if (typeof idToken !== 'string') throw new Denied('The identity provider answered no ID token');

  const jwks = await providerHttp.getDocument(new URL(provider.jwksUri), { accept: 'application/json' }, outbound);
  const keys = jwks.ok ? parseObject(jwks.body) : undefined;
  if (!keys || !Array.isArray(keys.keys)) throw new Denied("The identity provider's keys (its jwks_uri) could not be read");
  let payload: JwtPayload;
  try {
    // Only the keys read above: the library fetches nothing of its own.
    payload = verifyJwtSync(idToken, keys as unknown as Parameters<typeof verifyJwtSync>[1], { issuer: provider.issuer, audience: provider.clientId });
  } catch {
    throw new Denied("The identity provider's ID token is not valid (signature, issuer, audience or expiry)");
  }
  // OpenID Connect Core §2 makes `exp` and `iat` required: a token without them never ends, or was never dated.
  if (typeof payload.exp !== 'number') throw new Denied("The identity provider's ID token has no expiry (exp): it must send one");
  if (typeof payload.iat !== 'number') throw new Denied("The identity provider's ID token has no issue time (iat): it must send one");
  if (payload.iat > Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS) throw new Denied("The identity provider's ID token is issued in the future (iat): check the provider's clock");
  // OpenID Connect Core §3.1.3.7: a token for several audiences names the one it was issued to, and an
  // `azp` present names this service's client, whatever the audience.
  const severalAudiences = Array.isArray(payload.aud) && payload.aud.length > 1;
  if ((severalAudiences || payload.azp !== undefined) && payload.azp !== provider.clientId) {
    throw new Denied("The identity provider's ID token was issued to another client (azp)");
  }
  if (payload.nonce !== pending.broker!.nonce) throw new Denied("The identity provider's ID token does not carry this sign-in's nonce");
  const email = typeof payload.email === 'string' ? payload.email.trim() : '';
  if (!email || email.length > 320) throw new Denied('The identity provider gave no e-mail: release the email claim to this application');
  // Entra ID sends no `email_verified`; its optional claim `xms_edov` says the e-mail's domain is one the tenant verified.
  const vouched = (claim: unknown) => claim === true || claim === 'true' || claim === 1 || claim === '1';
  if (!vouched(payload.email_verified) && !vouched(payload.xms_edov)) {
    throw new Denied('The identity provider has not verified the e-mail address: it must send email_verified true (Microsoft Entra ID: the xms_edov optional claim)');
  }
  const subject = payload.sub;
  if (typeof subject !== 'string' || !subject || subject.length > MAX_SUBJECT) throw new Denied("The identity provider's ID token names no subject (sub) of at most 255 characters");
  checkReauthentication(pending.reauthenticate, payload.auth_time);
  return { email, subject };
}

/**
 * When the application asked for a new sign-in, or one at most `max_age` old, the provider must show
 * it signed the person in as asked (OpenID Connect Core §2, `auth_time`): its own session answering
 * silently would pass an application's step-up without anyone typing anything.
 */
function checkReauthentication(asked: AuthorizationRequest['reauthenticate'], authTime: unknown): void {
  if (!asked) return;
  if (typeof authTime !== 'number') throw new Denied("The application asked for a new sign-in, and the identity provider's ID token does not say when the person signed in (auth_time): it must send it");
  const now = Math.floor(Date.now() / 1000);
  if (asked.login && authTime < asked.askedAt - CLOCK_SKEW_SECONDS) throw new Denied('The application asked for a new sign-in, and the identity provider answered with an earlier one: sign in again at the provider');
  if (asked.maxAge !== undefined && now - authTime > asked.maxAge + CLOCK_SKEW_SECONDS) throw new Denied('The application asked for a sign-in more recent than max_age, and the identity provider answered with an older one: sign in again at the provider');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
