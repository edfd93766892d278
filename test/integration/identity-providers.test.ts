import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { keys } from '../../shared/adapters/store/keys';
import { getItem } from '../../shared/adapters/store/table';
import { findProviderForEmail, getProvider, linkUserToProvider, providerClientSecret } from '../../shared/app/identity-providers/identity-provider.service';
import { MAX_IDENTITY_PROVIDERS } from '../../shared/domain/identity-providers/identity-provider-limits';
import type { AuditEventDto } from '../support/audit-helpers';
import { eventsWhen, ofOrg } from '../support/change-events-helpers';
import { expectError, type StandardErrorBody } from '../support/error-body';
import { createViaApi, freshOrganization, member, readUser, type TestOrg } from '../support/user-helpers';
import { unique, userArea } from '../support/stack';

/**
 * An organization's own OpenID providers through the API of the real local stack, each issuer served
 * by a discovery server of the test's on 127.0.0.1 (the local stack allows loopback http), which can
 * also misbehave: 404, not JSON, another issuer, no code flow, no token endpoint.
 */

type Behaviour = 'good' | 'missing' | 'failing' | 'not-json' | 'wrong-issuer' | 'odd-issuer' | 'no-code' | 'no-token-endpoint';
/** What a server says of itself beyond its status: never repeated to the ADMIN. */
const BACKSTAGE = 'internal-detail-5c1e';

let server: Server;
let base: string;
/** The paths the discovery server was asked for, in order. */
const discoveryReads: string[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    discoveryReads.push(request.url ?? '');
    const match = /^\/([a-z-]+)-[^/]+\/\.well-known\/openid-configuration$/.exec(request.url ?? '');
    const behaviour = match?.[1] as Behaviour | undefined;
    const issuer = `${base}${request.url!.replace('/.well-known/openid-configuration', '')}`;
    const document: Record<string, unknown> = {
      issuer: behaviour === 'wrong-issuer' ? 'https://elsewhere.example' : behaviour === 'odd-issuer' ? `internal notes ${BACKSTAGE}` : issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: behaviour === 'no-code' ? ['id_token'] : ['code', 'id_token'],
    };
    if (behaviour === 'no-token-endpoint') delete document.token_endpoint;
    if (!behaviour || behaviour === 'missing') return void response.writeHead(404, `Gone ${BACKSTAGE}`).end(`not here: ${BACKSTAGE}`);
    if (behaviour === 'failing') return void response.writeHead(500, `Oops ${BACKSTAGE}`).end(`stack trace at ${BACKSTAGE}`);
    if (behaviour === 'not-json') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An issuer of the discovery server that behaves so. */
const issuerThat = (behaviour: Behaviour) => `${base}/${behaviour}-${unique()}`;

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const SECRET = 'top-secret-client-value';
const providersUrl = (path = '') => userArea(org.orgUuid, `/identity-providers${path}`);
const body = (overrides: Record<string, unknown> = {}) => ({
  alias: `okta-${unique()}`,
  displayName: 'Acme Okta',
  issuer: issuerThat('good'),
  clientId: 'client-1',
  clientSecret: SECRET,
  domains: [`corp-${unique()}.example`],
  ...overrides,
});
type Provider = Record<string, unknown> & { id: string; alias: string; issuer: string; domains: string[] };
const create = (overrides: Record<string, unknown> = {}, as = org.admin) => as.api.post<Provider>(providersUrl(), body(overrides));

async function auditOf(resourceUuid: string): Promise<AuditEventDto[]> {
  return (await org.admin.api.get<{ content: AuditEventDto[] }>(userArea(org.orgUuid, `/audit-events?resourceUuid=${resourceUuid}`))).body.content;
}

test('create, list, read, update and delete: the secret is never answered, the redirect URI is the realm broker endpoint, the endpoints read from discovery', async () => {
  const sent = body({ domains: ['Corp-A.Example', 'corp-b.example'.replace('corp-b', `corp-b-${unique()}`)] });
  const created = await org.admin.api.post<Provider>(providersUrl(), sent);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    alias: sent.alias,
    displayName: 'Acme Okta',
    issuer: sent.issuer,
    clientId: 'client-1',
    domains: ['corp-a.example', sent.domains[1]],
    enforce: false,
    authorizationEndpoint: `${sent.issuer}/authorize`,
    tokenEndpoint: `${sent.issuer}/token`,
    jwksUri: `${sent.issuer}/jwks`,
  });
  expect(created.body.redirectUri).toMatch(new RegExp(`^https?://[^/]+(/.*)?/realms/${org.realm}/broker/${sent.alias}/endpoint$`));
  expect(created.text).not.toContain(SECRET);
  expect(created.body).not.toHaveProperty('clientSecret');

  const listed = await org.admin.api.get<Provider[]>(providersUrl());
  expect(listed.status).toBe(200);
  expect(listed.body.map((provider) => provider.alias)).toContain(sent.alias);
  expect(listed.text).not.toContain(SECRET);
  const read = await org.admin.api.get<Provider>(providersUrl(`/${sent.alias}`));
  expect(read.body).toEqual(created.body);

  // The secret left out: kept.
  const { clientSecret: _kept, alias: _alias, ...replacement } = { ...sent, displayName: 'Acme SSO', enforce: true, domains: ['corp-a.example'] };
  const updated = await org.admin.api.put<Provider>(providersUrl(`/${sent.alias}`), replacement);
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ displayName: 'Acme SSO', enforce: true, domains: ['corp-a.example'], createdAt: created.body.createdAt });
  expect(updated.text).not.toContain(SECRET);
  const record = await getProvider(org.orgUuid, sent.alias);
  expect(await providerClientSecret(record!)).toBe(SECRET);
  expect(JSON.stringify(record)).not.toContain(SECRET);
  // The domain dropped is free again.
  expect(await findProviderForEmail(org.orgUuid, `someone@${sent.domains[1]}`)).toBeUndefined();
  expect((await findProviderForEmail(org.orgUuid, 'Ada.Lovelace@CORP-A.example'))?.alias).toBe(sent.alias);
  expect(await findProviderForEmail(org.orgUuid, 'ada@sub.corp-a.example')).toBeUndefined();

  const changedSecret = await org.admin.api.put<Provider>(providersUrl(`/${sent.alias}`), { ...replacement, clientSecret: 'another-secret' });
  expect(changedSecret.status).toBe(200);
  expect(await providerClientSecret(record!)).toBe('another-secret');

  expect((await org.admin.api.delete(providersUrl(`/${sent.alias}`))).status).toBe(204);
  expect((await org.admin.api.get(providersUrl(`/${sent.alias}`))).status).toBe(404);
  expect(await findProviderForEmail(org.orgUuid, 'ada@corp-a.example')).toBeUndefined();

  const audited = await auditOf(created.body.id);
  expect(audited.map((event) => event.action).sort()).toEqual(['IDENTITY_PROVIDER_CREATED', 'IDENTITY_PROVIDER_DELETED', 'IDENTITY_PROVIDER_UPDATED', 'IDENTITY_PROVIDER_UPDATED']);
  expect(audited.every((event) => event.actor.uuid === org.admin.uuid && event.resource.type === 'IDENTITY_PROVIDER')).toBe(true);
  const published = await eventsWhen((event) => ofOrg(org.orgUuid)(event) && event.detail.data.resource.uuid === created.body.id, 4);
  expect(published.map((event) => event.detail.type.split('.').slice(-2).join('.')).sort()).toEqual([
    'identity-provider.created',
    'identity-provider.deleted',
    'identity-provider.updated',
    'identity-provider.updated',
  ]);
  expect(published[0]!.detail.subject).toBe(`identity-providers/${created.body.id}`);
  expect(JSON.stringify([audited, published])).not.toContain(SECRET);
  expect(JSON.stringify([audited, published])).not.toContain('another-secret');
  expect(JSON.stringify(audited)).toContain('[REDACTED]');
});

test('a new issuer or clientId needs clientSecret in the same request: without it 422 on clientSecret, nothing read from the new issuer, nothing changed', async () => {
  const created = await create();
  expect(created.status).toBe(201);
  const { alias, clientSecret: _secret, ...kept } = body({ alias: created.body.alias, issuer: created.body.issuer, domains: created.body.domains });
  const elsewhere = issuerThat('good');
  const readBefore = discoveryReads.length;

  for (const [change, moved] of [
    [{ issuer: elsewhere }, 'issuer'],
    [{ clientId: 'client-2' }, 'clientId'],
    [{ issuer: elsewhere, clientId: 'client-2' }, 'issuer and clientId'],
  ] as const) {
    const refused = expectError(await org.admin.api.put(providersUrl(`/${alias}`), { ...kept, ...change }), 422, 'VALIDATION_FAILED');
    expect(refused.details).toEqual([
      { fieldName: 'clientSecret', errorCode: 'FIELD_REQUIRED', message: expect.stringMatching(new RegExp(`^A new ${moved} needs the client secret.*send clientSecret again`)) },
    ]);
  }
  expect(discoveryReads.slice(readBefore).some((path) => path.startsWith(new URL(elsewhere).pathname))).toBe(false);
  const unchanged = await org.admin.api.get<Provider>(providersUrl(`/${alias}`));
  expect(unchanged.body).toEqual(created.body);
  expect(await providerClientSecret((await getProvider(org.orgUuid, alias))!)).toBe(SECRET);
  expect((await auditOf(created.body.id)).map((event) => event.action)).toEqual(['IDENTITY_PROVIDER_CREATED']);

  // The same issuer and client: the secret may stay out.
  expect((await org.admin.api.put(providersUrl(`/${alias}`), { ...kept, displayName: 'Renamed' })).status).toBe(200);
  // With the secret, the move is allowed, and the new secret is the one kept.
  const moved = await org.admin.api.put<Provider>(providersUrl(`/${alias}`), { ...kept, issuer: elsewhere, clientId: 'client-2', clientSecret: 'the-new-issuers-secret' });
  expect(moved.status).toBe(200);
  expect(moved.body).toMatchObject({ issuer: elsewhere, clientId: 'client-2', tokenEndpoint: `${elsewhere}/token` });
  expect(await providerClientSecret((await getProvider(org.orgUuid, alias))!)).toBe('the-new-issuers-secret');
});

test('a duplicate alias is 409; a domain another provider holds is 409 naming that provider', async () => {
  const first = await create();
  expect(first.status).toBe(201);
  expectError(await create({ alias: first.body.alias }), 409, 'IDENTITY_PROVIDER_EXISTS');
  const taken = await create({ domains: [first.body.domains[0]!.toUpperCase()] });
  expectError(taken, 409, 'IDENTITY_PROVIDER_DOMAIN_TAKEN');
  expect((taken.body as unknown as { message: string }).message).toContain(first.body.alias);

  const second = await create();
  const { alias: _alias, clientSecret: _secret, ...moved } = body({ issuer: second.body.issuer, domains: [...second.body.domains, first.body.domains[0]!] });
  expectError(await org.admin.api.put(providersUrl(`/${second.body.alias}`), moved), 409, 'IDENTITY_PROVIDER_DOMAIN_TAKEN');
  // Another organization may hold the same domain in its own realm.
  const other = await freshOrganization();
  const elsewhere = await other.admin.api.post(userArea(other.orgUuid, '/identity-providers'), body({ alias: first.body.alias, domains: first.body.domains }));
  expect(elsewhere.status).toBe(201);
});

test.each([
  ['missing', /answered 404/],
  ['not-json', /did not answer JSON/],
  ['wrong-issuer', /names the issuer "https:\/\/elsewhere\.example".*exactly/],
  // Not an issuer identifier: not repeated.
  ['odd-issuer', /^(?!.*internal-detail).*names another issuer, not .*exactly/],
  ['no-code', /authorization code flow/],
  ['no-token-endpoint', /no token_endpoint/],
] as const)('a discovery document that is %s is refused 422 on issuer, saying what to fix', async (behaviour, message) => {
  const answer = await create({ issuer: issuerThat(behaviour) });
  const error = expectError(answer, 422, 'VALIDATION_FAILED');
  expect(error.details).toEqual([expect.objectContaining({ fieldName: 'issuer', errorCode: 'IDENTITY_PROVIDER_DISCOVERY_FAILED', message: expect.stringMatching(message) })]);
});

test("an issuer's server is named by the rule, never by what it answered: a 500's body, a server that is not HTTP, a closed port", async () => {
  const failing = expectError(await create({ issuer: issuerThat('failing') }), 422, 'VALIDATION_FAILED');
  expect(failing.details).toEqual([expect.objectContaining({ fieldName: 'issuer', message: expect.stringMatching(/could not be read: it answered 500\. Check the issuer/) })]);
  const missing = await create({ issuer: issuerThat('missing') });
  expect(missing.text).not.toContain(BACKSTAGE);
  expect(JSON.stringify(failing)).not.toContain(BACKSTAGE);

  const banner = createNetServer((socket) => socket.end(`SSH-2.0-OpenSSH_9.6 ${BACKSTAGE}\r\n`));
  await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
  try {
    for (const issuer of [`http://127.0.0.1:${(banner.address() as AddressInfo).port}/realm`, 'http://127.0.0.1:9/nothing']) {
      const answer = await create({ issuer });
      const error = expectError(answer, 422, 'VALIDATION_FAILED');
      expect(error.details).toEqual([
        expect.objectContaining({ fieldName: 'issuer', message: expect.stringMatching(/could not be read: no answer could be read\. Check that the issuer accepts https on port 443 or 8443/) }),
      ]);
      expect(answer.text).not.toMatch(new RegExp(`${BACKSTAGE}|ECONN|HPE_|Parse Error|SSH-2`));
    }
  } finally {
    banner.close();
  }
});

test('an issuer on another port than 443 or 8443 is refused 422 naming the rule, before anything is read', async () => {
  for (const issuer of ['https://sso.example.com:8080', 'https://93.184.215.14:22/realms/x']) {
    const error = expectError(await create({ issuer }), 422, 'VALIDATION_FAILED');
    expect(error.details).toEqual([
      expect.objectContaining({ fieldName: 'issuer', message: "The issuer's port must be 443 or 8443 (or none): outbound calls reach those ports only: give the provider's issuer identifier, e.g. https://login.example.com" }),
    ]);
  }
});

test('an issuer that is not https, or a host nothing answers on, is refused 422', async () => {
  // Its message names "this local stack", which expectError takes for a leaked stack trace.
  const plain = await create({ issuer: 'http://sso.example.com' });
  expect(plain.status).toBe(422);
  expect((plain.body as unknown as StandardErrorBody).details?.[0]).toMatchObject({ fieldName: 'issuer', message: expect.stringMatching(/must be https/) });
  const closed = expectError(await create({ issuer: 'http://127.0.0.1:9/nothing' }), 422, 'VALIDATION_FAILED');
  expect(closed.details?.[0]).toMatchObject({ fieldName: 'issuer', message: expect.stringMatching(/could not be read/) });
});

test('invalid alias and domains are 422 before anything is read', async () => {
  const error = expectError(await create({ alias: 'Not A Slug', domains: ['user@corp.example'] }), 422, 'VALIDATION_FAILED');
  expect(error.details?.map((detail) => detail.fieldName).sort()).toEqual(['alias', 'domains.0']);
  expectError(await create({ domains: [] }), 422, 'VALIDATION_FAILED');
});

test(`an organization holds at most ${MAX_IDENTITY_PROVIDERS} providers: one more is 422 until one is deleted`, async () => {
  const full = await freshOrganization();
  const url = (path = '') => userArea(full.orgUuid, `/identity-providers${path}`);
  const made = [];
  for (let index = 0; index < MAX_IDENTITY_PROVIDERS; index++) made.push((await full.admin.api.post<Provider>(url(), body())).body);
  expect(made.every((provider) => typeof provider.alias === 'string')).toBe(true);
  const refused = expectError(await full.admin.api.post(url(), body()), 422, 'VALIDATION_FAILED');
  expect(refused.details?.[0]).toMatchObject({ errorCode: 'IDENTITY_PROVIDER_LIMIT', message: expect.stringMatching(/delete one first/) });
  expect((await full.admin.api.delete(url(`/${made[0]!.alias}`))).status).toBe(204);
  expect((await full.admin.api.post(url(), body())).status).toBe(201);
});

test('a non-ADMIN is refused 403; another organization answers 404', async () => {
  const editor = await member(org, 'EDITOR');
  expect((await create({}, editor)).status).toBe(403);
  expect((await editor.api.get(providersUrl())).status).toBe(403);
  const other = await freshOrganization();
  expect((await other.admin.api.get(providersUrl())).status).toBe(404);
  expect((await create({}, other.admin)).status).toBe(404);
});

test('linkUserToProvider shows on the user, audited as USER_IDENTITY_PROVIDER_LINKED', async () => {
  const provider = (await create()).body;
  const user = await createViaApi(org);
  expect(await readUser(org, user.uuid)).not.toHaveProperty('identityProvider');
  await linkUserToProvider(org.orgUuid, user.uuid, provider.alias, 'subject-1');
  const linked = await readUser(org, user.uuid);
  expect(linked.identityProvider).toEqual({ alias: provider.alias, linkedAt: expect.any(String), subject: 'subject-1' });
  // Linked again: nothing changes.
  await linkUserToProvider(org.orgUuid, user.uuid, provider.alias, 'subject-1');
  expect((await readUser(org, user.uuid)).identityProvider).toEqual(linked.identityProvider);
  const audited = (await auditOf(user.uuid)).filter((event) => event.action === 'USER_IDENTITY_PROVIDER_LINKED');
  expect(audited).toHaveLength(1);
  expect(audited[0]!.changes).toEqual([{ op: 'add', path: '/identityProvider', value: linked.identityProvider }]);
  // Another account of the same provider: refused, the link kept.
  await expect(linkUserToProvider(org.orgUuid, user.uuid, provider.alias, 'subject-2')).rejects.toMatchObject({ code: 'IDENTITY_PROVIDER_LINK_TAKEN' });
  expect((await readUser(org, user.uuid)).identityProvider).toEqual(linked.identityProvider);
  await expect(linkUserToProvider(org.orgUuid, user.uuid, 'no-such-provider', 'subject-1')).rejects.toThrow(/no identity provider/);
});

test('the client secret is stored sealed, never in clear', async () => {
  const provider = (await create()).body;
  const item = await getItem<Record<string, unknown>>(keys.identityProvider(org.orgUuid, provider.alias));
  expect(JSON.stringify(item)).not.toContain(SECRET);
  expect(item).toHaveProperty('sealedClientSecret');
});
