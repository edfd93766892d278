import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { verifyJwtSync } from 'aws-jwt-verify/jwt-verifier';
import type { Jwks } from 'aws-jwt-verify/jwk';
import { config } from '../../kernel/config';
import { REALM_NAME } from '../../domain/org/org.entities';
import { tokenSigner } from './signer.port';

/** The issuer of a realm, Keycloak's `{api}/auth/realms/{realm}`; `TOKEN_ISSUER` is the `{api}/auth` base. */
/** The claims every token of a session carries (Keycloak's names). */
export interface SessionClaims {
  iss: string;
  aud: string;
  azp: string;
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export function realmIssuer(realm: string): string {
  return `${config().tokenIssuer}/realms/${realm}`;
}

/** The realm an issuer names, when it is one of ours. */
export function realmOfIssuer(issuer: unknown): string | undefined {
  const prefix = `${config().tokenIssuer}/realms/`;
  if (typeof issuer !== 'string' || !issuer.startsWith(prefix)) return undefined;
  const realm = issuer.slice(prefix.length);
  return REALM_NAME.test(realm) ? realm : undefined;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Signs claims as a compact ES256 JWS with the one signing key every realm shares (`iss` binds the
 * realm). The header carries no `typ`: every byte counts toward the 800-character access token.
 */
export async function signJwt(claims: object): Promise<string> {
  const signer = tokenSigner();
  const { kid } = await signer.publicJwk();
  const signingInput = `${b64({ alg: 'ES256', kid })}.${b64(claims)}`;
  const signature = await signer.sign(Buffer.from(signingInput));
  return `${signingInput}.${signature.toString('base64url')}`;
}

let verifier: Promise<{ verify: (token: string, graceSeconds?: number) => Record<string, unknown> }> | undefined;

function jwtVerifier() {
  verifier ??= tokenSigner()
    .publicJwk()
    .then((jwk) => {
      // The key comes from the signer, so verification never calls out over HTTP: aws-jwt-verify's
      // synchronous verification against that one key (its JwtVerifier class adds only fetching a JWKS).
      // Issuer and audience differ by realm and token type: callers check them on the verified claims.
      const jwks = { keys: [jwk] } as unknown as Jwks;
      // The one key, as a key object made once (the library would make it again for every token).
      const keyObject = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
      return {
        verify: (token: string, graceSeconds = 0) => verifyJwtSync(token, jwks, { issuer: null, audience: null, graceSeconds }, () => keyObject) as Record<string, unknown>,
      };
    })
    .catch((error: unknown) => {
      verifier = undefined;
      throw error;
    });
  return verifier;
}

/**
 * Tokens whose signature this container has verified, with their claims. A client sends the same
 * access token for its every request until it expires, and the ECDSA check is most of what verifying
 * costs; a token's signature is good or bad once and for all under the one key the verifier holds, so
 * the same string is not checked twice. Its expiry is checked on every use. Bounded: the oldest entry
 * goes first; an entry past its `exp` goes when it is next presented (and is verified again, which
 * refuses it as expired).
 */
const verified = new Map<string, Readonly<Record<string, unknown>>>();
const VERIFIED_TOKENS_KEPT = 1000;

/** Past `exp`, as aws-jwt-verify decides it (no grace). */
const expired = (claims: Readonly<Record<string, unknown>>) => typeof claims.exp === 'number' && claims.exp < Date.now() / 1000;

/** Verifies a JWT's signature, algorithm and expiry against our key; throws on any failure. */
export async function verifyJwt(token: string): Promise<Readonly<Record<string, unknown>>> {
  const known = verified.get(token);
  if (known && !expired(known)) return known;
  verified.delete(token);
  // A token naming another key than the signer's one is refused by the verifier (its `kid` is not in the JWKS).
  const { verify } = await jwtVerifier();
  const claims = Object.freeze(verify(token));
  if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value!);
  verified.set(token, claims);
  return claims;
}

/**
 * Verifies a JWT's signature and algorithm against our key, taking it up to `graceSeconds` past its
 * expiry (an ID token named as a hint, which outlives its few minutes); throws on any failure. Never
 * for a credential: `verifyJwt` is.
 */
export async function verifyJwtExpiredWithin(token: string, graceSeconds: number): Promise<Readonly<Record<string, unknown>>> {
  const { verify } = await jwtVerifier();
  return Object.freeze(verify(token, graceSeconds));
}
