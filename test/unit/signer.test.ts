import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { joseSignatureFromDer, publicJwkFromSpki, toPublicJwk } from '../../shared/adapters/signing/token-signer';

// The KMS adapter's two conversions, checked against real ECDSA from node:crypto: KMS signs P-256 keys
// with DER-encoded signatures and publishes SubjectPublicKeyInfo, exactly as node:crypto does below.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const message = Buffer.from('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0');

test('a DER signature becomes a 64-byte r||s signature that verifies as JWS (ieee-p1363)', () => {
  for (let i = 0; i < 20; i++) {
    // Repeat: DER lengths vary with leading zero bytes of r and s.
    const der = sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });

    const jose = joseSignatureFromDer(der);

    expect(jose).toHaveLength(64);
    expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
  }
});

test('the JWK from SPKI bytes equals the JWK of the key, with a stable thumbprint kid', () => {
  const spki = publicKey.export({ format: 'der', type: 'spki' });

  const jwk = publicJwkFromSpki(spki);

  expect(jwk).toEqual(toPublicJwk(publicKey));
  expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  expect(jwk.kid).toMatch(/^[A-Za-z0-9_-]{16}$/);
  expect(jwk).not.toHaveProperty('d');
});

test('a key that is not P-256 is refused', () => {
  const other = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;

  expect(() => toPublicJwk(other)).toThrow(/P-256/);
});
