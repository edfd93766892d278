import { createHash, createPrivateKey, createPublicKey, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type * as EcdsaSigFormatter from 'ecdsa-sig-formatter';
import { kmsClient } from '../clients/kms';
import { requireLazily } from '../../kernel/lazy';

/** The public half of the signing key, as served by the JWKS endpoint. */
// A type alias, not an interface, so it is assignable to aws-jwt-verify's JSON-object Jwk.
export type PublicJwk = {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
};

/** A key that signs token bytes with ES256 (raw r||s signature) and publishes its public half (the port: `shared/app/auth/signer.port.ts`). */
export interface TokenSigner {
  publicJwk(): Promise<PublicJwk>;
  sign(signingInput: Buffer): Promise<Buffer>;
}

/**
 * The public JWK of a key; its `kid` is the first 16 characters (96 bits) of the RFC 7638 thumbprint,
 * so it follows from the key wherever it lives. Shortened because every access token's header carries
 * it, and the token must stay under 800 characters: 96 bits tell our few keys apart.
 */
export function toPublicJwk(key: KeyObject): PublicJwk {
  const { crv, x, y } = key.export({ format: 'jwk' }) as JsonWebKey;
  if (crv !== 'P-256' || !x || !y) throw new Error('The token signing key must be an EC P-256 key');
  const kid = createHash('sha256').update(JSON.stringify({ crv, kty: 'EC', x, y })).digest('base64url').slice(0, 16);
  return { kty: 'EC', crv: 'P-256', x, y, kid, alg: 'ES256', use: 'sig' };
}

/** Adapter for a private JWK in a file (the local stack generates one under `.local/`). */
export function fileSigner(path: string): TokenSigner {
  const privateKey = createPrivateKey({ key: JSON.parse(readFileSync(path, 'utf8')) as JsonWebKey, format: 'jwk' });
  const jwk = toPublicJwk(createPublicKey(privateKey));
  return {
    publicJwk: async () => jwk,
    sign: async (input) => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
  };
}

/**
 * ecdsa-sig-formatter, loaded by the first signature KMS makes: only the auth function signs, and only
 * on AWS (the local signer answers the JOSE form itself); the functions that verify tokens need none of
 * it. A package left out of the functions' bundles (docs/decisions/lighter-functions.md).
 */
const sigFormatter = /* @__PURE__ */ requireLazily<typeof EcdsaSigFormatter>('ecdsa-sig-formatter', () => require('ecdsa-sig-formatter')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

/** KMS answers a DER-encoded ECDSA signature; JWS wants the raw 64-byte r||s form. */
export function joseSignatureFromDer(der: Uint8Array): Buffer {
  return Buffer.from(sigFormatter().derToJose(Buffer.from(der), 'ES256'), 'base64url');
}

/** KMS publishes the public key as DER SubjectPublicKeyInfo. */
export function publicJwkFromSpki(spki: Uint8Array): PublicJwk {
  return toPublicJwk(createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }));
}

/** Adapter for an asymmetric KMS key (ECC_NIST_P256, SIGN_VERIFY): the private key never leaves KMS. */
export function kmsSigner(keyId: string): TokenSigner {
  let jwk: Promise<PublicJwk> | undefined;
  return {
    publicJwk: () => {
      jwk ??= kmsClient()
        .send(new GetPublicKeyCommand({ KeyId: keyId }))
        .then(({ PublicKey }) => publicJwkFromSpki(PublicKey!))
        .catch((error: unknown) => {
          jwk = undefined;
          throw error;
        });
      return jwk;
    },
    sign: async (input) => {
      const { Signature } = await kmsClient().send(
        new SignCommand({
          KeyId: keyId,
          Message: createHash('sha256').update(input).digest(),
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
      return joseSignatureFromDer(Signature!);
    },
  };
}
