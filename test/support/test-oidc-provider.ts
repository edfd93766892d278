import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as Jose from 'jose';

/**
 * An OpenID provider played by the test, on 127.0.0.1: discovery, an authorization endpoint that
 * signs in `nextUser` at once (the person at the provider's own page), a token endpoint that checks the
 * client's secret and PKCE, and its keys. It can misbehave, one way at a time (`behaviour`).
 */

const load = process.getBuiltinModule('node:module').createRequire(__filename);
const jose = load('jose') as typeof Jose;

export type Misbehaviour =
  | 'good'
  | 'refuses'
  | 'wrong-audience'
  | 'wrong-issuer'
  | 'wrong-nonce'
  | 'bad-signature'
  | 'expired'
  | 'unverified-email'
  | 'entra-verified-domain'
  | 'no-email'
  | 'token-error'
  | 'no-exp'
  | 'no-iat'
  | 'future-iat'
  | 'foreign-azp'
  | 'no-sub';

interface Issued {
  clientId: string;
  redirectUri: string;
  nonce: string;
  challenge: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  behaviour: Misbehaviour;
  /** Who signs in at the provider's page next. */
  nextUser: { email: string; sub?: string; /** Epoch seconds the person signed in at the provider (`auth_time`), when it says. */ authTime?: number };
  /** The last authorization request the provider received. */
  lastRequest: URLSearchParams | undefined;
  close(): Promise<void>;
}

export async function startTestProvider(): Promise<TestProvider> {
  const { publicKey, privateKey } = await jose.generateKeyPair('RS256');
  const other = await jose.generateKeyPair('RS256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, Issued>();
  const provider: TestProvider = {
    issuer: '',
    clientId: `client-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(16).toString('base64url'),
    behaviour: 'good',
    nextUser: { email: 'nobody@example.test' },
    lastRequest: undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  const idToken = async (issued: Issued) => {
    const { behaviour, nextUser } = provider;
    const claims: Record<string, unknown> = {
      ...(behaviour === 'no-sub' ? {} : { sub: nextUser.sub ?? createHash('sha256').update(nextUser.email).digest('hex').slice(0, 20) }),
      // An authorized party other than the client the code was issued to, with that client still the audience.
      ...(behaviour === 'foreign-azp' ? { azp: 'another-client' } : {}),
      nonce: behaviour === 'wrong-nonce' ? 'another-nonce' : issued.nonce,
      ...(behaviour === 'no-email' ? {} : { email: nextUser.email }),
      ...(behaviour === 'no-email' || behaviour === 'entra-verified-domain' ? {} : { email_verified: behaviour !== 'unverified-email' }),
      // Entra ID's way: no email_verified, the optional claim xms_edov instead.
      ...(behaviour === 'entra-verified-domain' ? { xms_edov: true } : {}),
      ...(nextUser.authTime === undefined ? {} : { auth_time: nextUser.authTime }),
    };
    const now = Math.floor(Date.now() / 1000);
    const token = new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(behaviour === 'wrong-issuer' ? 'https://elsewhere.example' : provider.issuer)
      .setAudience(behaviour === 'wrong-audience' ? 'another-client' : issued.clientId);
    if (behaviour !== 'no-iat') token.setIssuedAt(behaviour === 'expired' ? now - 7200 : behaviour === 'future-iat' ? now + 3600 : now);
    if (behaviour !== 'no-exp') token.setExpirationTime(behaviour === 'expired' ? now - 3600 : behaviour === 'future-iat' ? now + 7200 : now + 300);
    return token.sign(behaviour === 'bad-signature' ? other.privateKey : privateKey);
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', provider.issuer);
    const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: provider.issuer,
        authorization_endpoint: `${provider.issuer}/authorize`,
        token_endpoint: `${provider.issuer}/token`,
        jwks_uri: `${provider.issuer}/jwks`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (request.method === 'GET' && url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (request.method === 'GET' && url.pathname === '/authorize') {
      provider.lastRequest = url.searchParams;
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      if (provider.behaviour === 'refuses') {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user is not assigned to this application');
      } else {
        const code = randomBytes(24).toString('base64url');
        codes.set(code, {
          clientId: url.searchParams.get('client_id')!,
          redirectUri: url.searchParams.get('redirect_uri')!,
          nonce: url.searchParams.get('nonce')!,
          challenge: url.searchParams.get('code_challenge')!,
        });
        back.searchParams.set('code', code);
      }
      return void response.writeHead(302, { location: back.toString() }).end();
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        void (async () => {
          const form = new URLSearchParams(body);
          const basic = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
          const [id, secret] = basic.split(':').map(decodeURIComponent);
          if (id !== provider.clientId || secret !== provider.clientSecret) return json(401, { error: 'invalid_client' });
          const issued = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          if (
            provider.behaviour === 'token-error' ||
            !issued ||
            issued.redirectUri !== form.get('redirect_uri') ||
            createHash('sha256').update(verifier).digest('base64url') !== issued.challenge
          ) {
            return json(400, { error: 'invalid_grant' });
          }
          json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: await idToken(issued) });
        })();
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return provider;
}

/** The body that registers the provider with an organization (`POST …/identity-providers`). */
export function registrationOf(provider: TestProvider, registration: { alias: string; displayName: string; domains: string[]; enforce?: boolean }) {
  return { ...registration, issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret };
}
