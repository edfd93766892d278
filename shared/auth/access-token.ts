import { randomUUID } from 'node:crypto';
import { JwtVerifier } from 'aws-jwt-verify';
import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import { config } from '../config';
import { UnauthenticatedError } from '../errors';
import { tokenSigner } from './signer';

/** Claims of our access tokens: kept few so a token stays well under the spec's 800 characters. */
export interface AccessClaims {
  iss: string;
  sub: string;
  org: string;
  sid: string;
  jti: string;
  azp: string;
  typ: 'Bearer';
  scope: string;
  iat: number;
  exp: number;
}

export const TOKEN_SCOPE = 'profile email';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Issues a compact ES256 access token for a user session. */
export async function issueAccessToken(subject: {
  userUuid: string;
  orgUuid: string;
  sessionId: string;
  clientId: string;
}): Promise<{ token: string; expiresIn: number }> {
  const { tokenIssuer, accessTokenSeconds } = config();
  const signer = tokenSigner();
  const { kid } = await signer.publicJwk();
  const iat = Math.floor(Date.now() / 1000);
  const claims: AccessClaims = {
    iss: tokenIssuer,
    sub: subject.userUuid,
    org: subject.orgUuid,
    sid: subject.sessionId,
    jti: randomUUID(),
    azp: subject.clientId,
    typ: 'Bearer',
    scope: TOKEN_SCOPE,
    iat,
    exp: iat + accessTokenSeconds,
  };
  const signingInput = `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64(claims)}`;
  const signature = await signer.sign(Buffer.from(signingInput));
  return { token: `${signingInput}.${signature.toString('base64url')}`, expiresIn: accessTokenSeconds };
}

let verifier: Promise<{ verify: (token: string) => Promise<unknown>; kid: string }> | undefined;

function accessTokenVerifier() {
  verifier ??= tokenSigner()
    .publicJwk()
    .then((jwk) => {
      const jwtVerifier = JwtVerifier.create({
        issuer: config().tokenIssuer,
        audience: null,
        jwksUri: `${config().tokenIssuer}/certs`,
        customJwtCheck: ({ payload }) => {
          if (payload.typ !== 'Bearer' || typeof payload.org !== 'string' || typeof payload.sub !== 'string') {
            throw new Error('Not an access token');
          }
        },
      });
      // The key is loaded from the signer, so verification never calls out over HTTP.
      jwtVerifier.cacheJwks({ keys: [jwk] });
      return { verify: (token: string) => jwtVerifier.verify(token), kid: jwk.kid };
    })
    .catch((error: unknown) => {
      verifier = undefined;
      throw error;
    });
  return verifier;
}

/** Verifies signature, issuer, expiry and shape of an access token; any failure is a 401. */
export async function verifyAccessToken(token: string): Promise<AccessClaims> {
  const { verify, kid } = await accessTokenVerifier();
  try {
    // A token naming a key we do not hold is refused here, before the verifier would try to fetch it.
    if (decomposeUnverifiedJwt(token).header.kid !== kid) throw new Error('Unknown key id');
    return (await verify(token)) as AccessClaims;
  } catch (error) {
    throw new UnauthenticatedError('The bearer token is invalid or expired', { cause: error });
  }
}
