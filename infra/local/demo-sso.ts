import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { HOST, portIfFree } from './emulator-ports';
import type { SeededOrg } from './seed';
import { readBody } from './kernel/gateway-answers';
import { closeServer, listenOnLoopback } from './kernel/gateway-port';

/**
 * The local stack's own OpenID provider (oidc-provider), standing for an organization's Okta or Entra
 * ID (docs/local-stack.md#the-demo-openid-provider): one demo user, one client (the API's sign-in
 * broker), a minimal sign-in form. Local use only: everything it knows is printed in the banner.
 */

export const DEMO_SSO = {
  alias: 'demo-sso',
  displayName: 'Demo SSO (local)',
  domain: 'sso.example',
  clientId: 'management-api-broker',
  /** Local only, printed in the banner and stack.json. */
  clientSecret: 'demo-sso-client-secret',
  user: { email: 'ada@sso.example', password: 'Ada-Sso-Demo-1', name: 'Ada Lovelace', sub: 'ada' },
  /** The seeded organization whose domain `sso.example` signs in here. */
  realm: 'globex',
} as const;

export interface DemoSso { issuer: string; port: number; stop(): Promise<void> }

type Stored = Record<string, unknown>;
/** oidc-provider's storage, in memory on purpose (its sessions end with the stack): its own in-memory adapter warns at each start. */
function memoryAdapter() {
  const items = new Map<string, { payload: Stored; expires: number }>();
  const live = (key: string) => {
    const item = items.get(key);
    if (item && item.expires > Date.now()) return item.payload;
    items.delete(key);
  };
  return class {
    constructor(private readonly model: string) {}
    upsert = async (id: string, payload: Stored, expiresIn?: number) => void items.set(`${this.model}:${id}`, { payload, expires: Date.now() + (expiresIn ?? Infinity) * 1000 });
    find = async (id: string) => live(`${this.model}:${id}`);
    findByUid = async (uid: string) => [...items.keys()].filter((key) => key.startsWith(`${this.model}:`)).map(live).find((payload) => payload?.uid === uid);
    consume = async (id: string) => void Object.assign(live(`${this.model}:${id}`) ?? {}, { consumed: Math.floor(Date.now() / 1000) });
    destroy = async (id: string) => void items.delete(`${this.model}:${id}`);
    revokeByGrantId = async (grantId: string) => items.forEach((item, key) => item.payload.grantId === grantId && items.delete(key));
  };
}

/** Lifetimes set, not left to the defaults that warn when first used (seconds; a demo's sessions are short). */
const TTL = { AccessToken: 3600, IdToken: 3600, RefreshToken: 86_400, Interaction: 3600, Session: 86_400, Grant: 86_400 };

const page = (uid: string, error?: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo SSO: sign in</title></head>
<body style="font-family: system-ui; max-width: 24rem; margin: 4rem auto">
<h1>Demo SSO</h1>
<p>The local stack's OpenID provider. Sign in as <code>${DEMO_SSO.user.email}</code>, password <code>${DEMO_SSO.user.password}</code>.</p>
${error ? `<p role="alert" style="color: #b00">${error}</p>` : ''}
<form method="post" action="/interaction/${encodeURIComponent(uid)}">
<p><label>E-mail <input name="login" type="email" autocomplete="username" required autofocus></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button type="submit">Sign in</button></p>
</form></body></html>`;

/** Starts the provider on `preferredPort` (its last one, so its issuer stays the same) when free, else a free one. */
export async function startDemoSso(preferredPort: number | undefined, redirectUri: string): Promise<DemoSso> {
  const { default: Provider } = await import('oidc-provider');
  const server = createServer();
  const port = await listenOnLoopback(server, await portIfFree(preferredPort));
  const issuer = `http://${HOST}:${port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { user } = DEMO_SSO;
  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    ttl: TTL,
    // Only the stack's broker calls it, server to server: no browser origin needs CORS.
    clientBasedCORS: () => false,
    renderError: (ctx: { type: string; body: string }, out: { error: string }) =>
      void Object.assign(ctx, { type: 'text/plain', body: `The demo OpenID provider refused the request (${out.error}): start again from the application.` }),
    // The authorization code flow with client_secret_basic: the registration defaults.
    clients: [{ client_id: DEMO_SSO.clientId, client_secret: DEMO_SSO.clientSecret, redirect_uris: [redirectUri] }],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'demo-sso-rs256', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    // The claims go into the ID token too, where the broker reads them, not only into userinfo.
    conformIdTokenClaims: false,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) =>
      id === user.sub ? { accountId: id, claims: () => ({ sub: id, email: user.email, email_verified: true, name: user.name }) } : undefined,
    // The one client is the stack's own: what it asks for is granted without a consent page.
    loadExistingGrant: async (ctx: DemoGrantContext) => {
      const { Grant } = ctx.oidc.provider;
      const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) return Grant.find(existing);
      const grant = new Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const interaction = /^\/interaction\/([^/?]+)/.exec(request.url ?? '');
    if (!interaction) return void callback(request, response);
    const uid = decodeURIComponent(interaction[1]!);
    const showPage = (error?: string) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(uid, error));
    const answer = async () => {
      if (request.method !== 'POST') return showPage();
      const form = new URLSearchParams((await readBody(request, 16 * 1024))?.toString('utf8'));
      if (form.get('login')?.toLowerCase() !== user.email || form.get('password') !== user.password) return showPage('Wrong e-mail or password.');
      await provider.interactionFinished(request, response, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
    };
    answer().catch(() => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' }).end('The sign-in expired: start again from the application.');
    });
  });
  return { issuer, port, stop: () => closeServer(server) };
}

interface DemoGrantContext {
  oidc: {
    provider: { Grant: { new (init: { clientId: string; accountId: string }): DemoGrant; find(id: string): Promise<DemoGrant | undefined> } };
    session: { accountId: string; grantIdFor(clientId: string): string | undefined };
    client: { clientId: string };
  };
}
interface DemoGrant { addOIDCScope(scope: string): void; save(): Promise<string> }

/**
 * Registers the demo provider for its organization's domain, through the repository, and that
 * organization's user linked to its account there. Run at every start: the issuer follows the port.
 */
export async function ensureDemoSsoRegistration(orgs: readonly SeededOrg[], issuer: string) {
  const org = orgs.find((seeded) => seeded.name === DEMO_SSO.realm);
  if (!org) throw new Error(`The demo organization ${DEMO_SSO.realm} was not seeded`);
  const [{ findUserByEmail }, { registerUser }, { generatePassword }, repository, { sealClientSecret }] = await Promise.all([
    import('../../shared/domain/users/user.repository'),
    import('../../shared/app/users/user-registration'),
    import('../../shared/adapters/identity/password-policy'),
    import('../../shared/domain/identity-providers/identity-provider.repository'),
    import('../../shared/domain/identity-providers/client-secret.repository'),
  ]);
  if (!(await findUserByEmail(org.uuid, DEMO_SSO.user.email))) {
    // Signs in at the provider; the password here is never shown (Cognito needs one).
    await registerUser({ orgUuid: org.uuid, name: DEMO_SSO.user.name, email: DEMO_SSO.user.email, password: generatePassword(), role: 'ADMIN', permissions: [] });
  }
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const now = new Date().toISOString();
  const current = await repository.getStoredProvider(org.uuid, DEMO_SSO.alias);
  const record = {
    id: current?.id ?? randomUUID(),
    orgUuid: org.uuid,
    alias: DEMO_SSO.alias,
    displayName: DEMO_SSO.displayName,
    issuer,
    clientId: DEMO_SSO.clientId,
    domains: [DEMO_SSO.domain],
    enforce: false,
    authorizationEndpoint: discovery.authorization_endpoint!,
    tokenEndpoint: discovery.token_endpoint!,
    jwksUri: discovery.jwks_uri!,
    sealedClientSecret: await sealClientSecret(DEMO_SSO.clientSecret, org.uuid, DEMO_SSO.alias),
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
  const same = current && current.issuer === issuer && current.tokenEndpoint === record.tokenEndpoint && current.authorizationEndpoint === record.authorizationEndpoint;
  const refused = same ? undefined : current ? await repository.replaceProvider(record, current, []) : await repository.insertProvider(record, []);
  if (refused) throw new Error(`The demo OpenID provider could not be registered (${refused.reason})`);
  // An ADMIN whose password nobody knows: linked beforehand, its first sign-in there has no password to confirm.
  const demoUser = await findUserByEmail(org.uuid, DEMO_SSO.user.email);
  if (demoUser && demoUser.identityProvider?.subject === undefined) {
    const { linkUserToProvider } = await import('../../shared/app/identity-providers/user-link');
    await linkUserToProvider(org.uuid, demoUser.uuid, DEMO_SSO.alias, DEMO_SSO.user.sub);
  }
  const { alias, domain, clientId, clientSecret, user } = DEMO_SSO;
  return { issuer, realm: org.name, alias, domain, user: { email: user.email, password: user.password }, clientId, clientSecret };
}
