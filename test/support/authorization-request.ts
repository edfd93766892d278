import { createHash, randomBytes } from 'node:crypto';
import { stack } from './stack';

/** The loopback redirect the tests' authorization requests name (a native application's, RFC 8252). */
export const TEST_REDIRECT = 'http://127.0.0.1:8765/callback';

export const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;

/** A fresh PKCE pair (S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * An authorization request of the console client to a realm, with a fresh PKCE pair: its address and
 * what the test needs back (the verifier, the state). `extra` adds or replaces parameters.
 */
export function authorizationRequest(realm: string, extra: Record<string, string> = {}): { url: string; verifier: string; state: string; redirectUri: string } {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: TEST_REDIRECT,
    state: 'app-state',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url: `${issuerOf(realm)}/protocol/openid-connect/auth?${query}`, verifier, state: query.get('state')!, redirectUri: query.get('redirect_uri')! };
}
