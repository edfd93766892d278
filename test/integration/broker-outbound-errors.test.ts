import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { stack, unique, userArea } from '../support/stack';
import { createViaApi, freshOrganization, type TestOrg } from '../support/user-helpers';

/**
 * The broker's calls to a provider's token endpoint follow the outbound rules: when the endpoint fails,
 * the application is told the rule (`error_description`), never what the endpoint answered. The
 * provider is a server of the test's that publishes a discovery document and an authorization endpoint
 * of its own, and points `token_endpoint` at a server that misbehaves: a 500 with a body and a
 * reason phrase, a server that is not HTTP, a closed port.
 */

const REDIRECT = 'http://127.0.0.1:8765/callback';
const MARK = 'internal-detail-9b2d';
const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;

const servers: Array<Server | NetServer> = [];
async function listening<S extends Server | NetServer>(server: S): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(async () => {
  for (const server of servers) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close();
  }
});

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

/** A provider whose authorization endpoint sends the person straight back with a code, and whose token endpoint is `tokenEndpoint`. */
async function providerWith(tokenEndpoint: string): Promise<{ domain: string }> {
  let issuer = '';
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: tokenEndpoint, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] }),
      );
    }
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', randomBytes(16).toString('hex'));
      back.searchParams.set('state', url.searchParams.get('state')!);
      return void response.writeHead(302, { location: back.toString() }).end();
    }
    response.writeHead(404).end();
  });
  issuer = await listening(server);
  const domain = `corp-${unique()}.example`;
  const created = await org.admin.api.post(userArea(org.orgUuid, '/identity-providers'), {
    alias: `p-${unique()}`,
    displayName: 'Corp',
    issuer,
    clientId: 'client',
    clientSecret: 'secret',
    domains: [domain],
  });
  expect(created.status).toBe(201);
  return { domain };
}

/** Signs a user of `domain` in through its provider, as a browser would: the redirect back to the application. */
async function signInAt(domain: string): Promise<URL> {
  const user = await createViaApi(org, { email: `someone-${unique()}@${domain}` });
  const authorize = `${issuerOf(org.realm)}/protocol/openid-connect/auth?${new URLSearchParams({
    response_type: 'code',
    client_id: stack().clientId,
    redirect_uri: REDIRECT,
    state: 'app-state',
    code_challenge_method: 'S256',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    login_hint: user.email,
  })}`;
  let response = await fetch(authorize, { redirect: 'manual' });
  // The browser's sign-in request cookie: the broker goes on only in the browser that began the sign-in.
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('AUTH_SESSION_ID='))?.split(';')[0];
  for (let hops = 0; hops < 3 && response.status === 302; hops++) {
    const location = response.headers.get('location')!;
    if (location.startsWith(REDIRECT)) return new URL(location);
    const toStack = new URL(location).origin === new URL(stack().authUrl).origin;
    response = await fetch(location, { redirect: 'manual', headers: toStack && cookie ? { cookie } : {} });
  }
  throw new Error(`The sign-in did not come back to the application (${response.status})`);
}

function expectRuleOnly(back: URL, rule: string | RegExp): void {
  expect(back.searchParams.get('error')).toBe('access_denied');
  expect(back.searchParams.get('state')).toBe('app-state');
  expect(back.searchParams.get('error_description')).toEqual(typeof rule === 'string' ? rule : expect.stringMatching(rule));
  expect(back.toString()).not.toMatch(new RegExp(`${MARK}|ECONN|EPIPE|HPE_|Parse Error|SSH-2|invalid_client|Internal`));
}

test("a token endpoint answering 500 with a body: the application reads the status, never the body or reason phrase", async () => {
  const failing = await listening(
    createServer((_request, response) => response.writeHead(500, `Oops ${MARK}`, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: MARK }))),
  );
  const { domain } = await providerWith(`${failing}/token`);

  expectRuleOnly(await signInAt(domain), "The identity provider's token endpoint did not answer the code (The receiver answered 500, not 2xx)");
});

test('a token endpoint that is not HTTP, or a closed port: one sentence, whatever answered', async () => {
  const banner = await listening(createNetServer((socket) => socket.end(`SSH-2.0-OpenSSH_9.6 ${MARK}\r\n`)));
  const closedServer = createNetServer();
  const closed = await new Promise<string>((resolve) => closedServer.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(closedServer.address() as AddressInfo).port}`)));
  await new Promise((resolve) => closedServer.close(resolve));

  const descriptions = new Set<string>();
  for (const endpoint of [`${banner}/token`, `${closed}/token`]) {
    const back = await signInAt((await providerWith(endpoint)).domain);
    expectRuleOnly(back, /^The identity provider's token endpoint did not answer the code \(No answer could be read: .*port 443 or 8443/);
    descriptions.add(back.searchParams.get('error_description')!);
  }
  expect(descriptions.size).toBe(1);
});
