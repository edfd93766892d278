import { fileSigner, kmsSigner, type PublicJwk } from '../../adapters/signing/token-signer';
import { config } from '../../kernel/config';

/** The public half of the signing key, as served by the JWKS endpoint (its shape is the adapter's). */
export type { PublicJwk };

/** Port: signs token bytes with ES256 (raw r||s signature) and publishes the public key; bound below to a KMS key or, locally, a key file. */
export interface TokenSigner {
  publicJwk(): Promise<PublicJwk>;
  sign(signingInput: Buffer): Promise<Buffer>;
}

let cached: TokenSigner | undefined;

/** The configured signer: configuration alone decides between the file and KMS adapters. */
export function tokenSigner(): TokenSigner {
  if (!cached) {
    const key = config().signingKey;
    cached = key.kind === 'kms' ? kmsSigner(key.keyId) : fileSigner(key.path);
  }
  return cached;
}
