import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAsFunction } from '../../infra/local/kernel/function-context';
import { enableLocalIam } from '../../infra/local/iam';
import { queuedMailOf, unsealPassword, type QueuedMail } from '../../shared/adapters/mail/mail-queue';
import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, getItem, putItem, updateItem } from '../../shared/adapters/store/table';
import { openClientSecret, sealClientSecret } from '../../shared/domain/identity-providers/client-secret.repository';
import { getProvider, providerClientSecret, resealProviderSecrets } from '../../shared/app/identity-providers/identity-provider.service';
import { config } from '../../shared/kernel/config';
import { unique, userArea } from '../support/stack';
import { getMailState } from '../../shared/domain/users/user-mail.repository';
import { createViaApi, freshOrganization, mailQueueSettled, type TestOrg } from '../support/user-helpers';

/**
 * The sealing keys on the local stack: identity providers' client secrets and queued e-mails' passwords
 * sealed under KMS keys (the local KMS, its keys in the data directory), each opened only by the
 * function the template grants it, as local IAM checks every call against the function's role; no
 * sealing key lives in the table; what was sealed under the table's keys before still opens.
 */

// Local IAM in this test process, as the local stack runs it: calls inside `runAsFunction` are checked against that function's role.
const iam = enableLocalIam();

let server: Server;
let base: string;
let org: TestOrg;
beforeAll(async () => {
  await iam.ready;
  server = createServer((request, response) => {
    const issuer = `${base}${request.url!.replace('/.well-known/openid-configuration', '')}`;
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  org = await freshOrganization();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const SECRET = 'provider-client-secret-under-kms';

/** A provider registered through the API (the users function seals its secret); its stored item. */
async function registered(secret = SECRET): Promise<{ alias: string; sealed: string }> {
  const alias = `kms-${unique()}`;
  const created = await org.admin.api.post(userArea(org.orgUuid, '/identity-providers'), {
    alias,
    displayName: 'Sealed',
    issuer: `${base}/${alias}`,
    clientId: 'client',
    clientSecret: secret,
    domains: [`${alias}.example`],
  });
  expect(created.status).toBe(201);
  const item = await getItem<{ sealedClientSecret: string }>(keys.identityProvider(org.orgUuid, alias));
  return { alias, sealed: item!.sealedClientSecret };
}

const denied = (action: string, key: string) => new RegExp(`is not authorized to perform: ${action} on resource: ${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `);

/** Runs a call as `group`, answering the error it was refused with. */
async function refusedAs(group: Parameters<typeof runAsFunction>[0], call: () => Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  const error = await runAsFunction(group, call).then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  if (!error) throw new Error(`${group} was allowed`);
  return error;
}

// First in the file: nothing of either key is cached in this process yet, so each call reaches KMS (and local IAM).
describe('only the functions the template grants may seal or open', () => {
  test("a provider's secret: users seals, auth opens; users, agents and mail cannot open it, agents and auth cannot seal", async () => {
    const { alias, sealed } = await registered();
    const providerKey = config().sealingKeys.providerSecrets!;
    expect(providerKey).toMatch(/^arn:aws:kms:us-east-1:000000000000:key\/SealingProviderSecrets/);

    for (const group of ['agents', 'users', 'mail'] as const) {
      const refused = await refusedAs(group, () => openClientSecret(sealed, org.orgUuid, alias));
      expect(refused.name).toBe('AccessDeniedException');
      expect(refused.$metadata?.httpStatusCode).toBe(400);
      expect(refused.message).toMatch(denied('kms:Decrypt', providerKey));
    }
    for (const group of ['agents', 'auth'] as const) {
      const refused = await refusedAs(group, () => sealClientSecret('another', org.orgUuid, alias));
      expect(refused.message).toMatch(denied('kms:GenerateDataKey', providerKey));
    }

    await expect(runAsFunction('auth', () => openClientSecret(sealed, org.orgUuid, alias))).resolves.toBe(SECRET);
  });

  test("a queued e-mail's password: the functions that queue mail seal, only mail opens", async () => {
    const mailKey = config().sealingKeys.mailPasswords!;
    const request = { id: randomUUID(), kind: 'welcome' as const, orgUuid: org.orgUuid, userUuid: randomUUID(), language: 'en' as const, password: { value: 'Queued-Passw0rd', temporary: true } };
    for (const group of ['agents', 'auth', 'mail'] as const) {
      expect((await refusedAs(group, () => queuedMailOf(request))).message).toMatch(denied('kms:GenerateDataKey', mailKey));
    }
    const queued = await runAsFunction('scim', () => queuedMailOf(request));
    for (const group of ['users', 'scim', 'bulk-worker', 'agents'] as const) {
      expect((await refusedAs(group, () => unsealPassword(queued))).message).toMatch(denied('kms:Decrypt', mailKey));
    }
    await expect(runAsFunction('mail', () => unsealPassword(queued))).resolves.toEqual({ value: 'Queued-Passw0rd', temporary: true });
  });
});

describe('round trips', () => {
  test("a provider's secret is sealed under the KMS key, the data key beside it, and opens for its provider only", async () => {
    const { alias, sealed } = await registered('round-trip-secret');
    const [format, dataKey, body] = sealed.split('.');
    expect(format).toBe('kms1');
    expect(Buffer.from(dataKey!, 'base64url').length).toBeGreaterThan(32);
    expect(Buffer.from(body!, 'base64url').toString('latin1')).not.toContain('round-trip-secret');
    expect(await providerClientSecret((await getProvider(org.orgUuid, alias))!)).toBe('round-trip-secret');

    // Moved to another provider, or altered, it does not open.
    const other = await registered();
    await updateItem({ Key: keys.identityProvider(org.orgUuid, other.alias), UpdateExpression: 'SET sealedClientSecret = :s', ExpressionAttributeValues: { ':s': sealed } });
    await expect(providerClientSecret({ orgUuid: org.orgUuid, alias: other.alias })).rejects.toThrow();
    const flipped = Buffer.from(body!, 'base64url');
    flipped[40]! ^= 1;
    const altered = `${format}.${dataKey}.${flipped.toString('base64url')}`;
    await expect(openClientSecret(altered, org.orgUuid, alias)).rejects.toThrow();
  });

  test("a welcome's password goes through the queue sealed and reaches the mailbox; the queue's message holds no password", async () => {
    // Through the stack: the users function seals the welcome's password, the mail function opens it and sends.
    const created = await createViaApi(org, { email: `sealed-${unique()}@example.test` });
    await mailQueueSettled();
    expect(await getMailState(org.orgUuid, created.uuid, 'welcome')).toMatchObject({ state: 'SENT' });
    const mail = await queuedMailOf({ id: randomUUID(), kind: 'welcome', orgUuid: org.orgUuid, userUuid: created.uuid, language: 'en', password: { value: 'Round-Trip-1', temporary: true } });
    expect(mail.password!.sealed.startsWith('kms1.')).toBe(true);
    expect(JSON.stringify(mail)).not.toContain('Round-Trip-1');
    await expect(unsealPassword(mail)).resolves.toEqual({ value: 'Round-Trip-1', temporary: true });
    // Bound to its message: under another message's id it does not open.
    await expect(unsealPassword({ ...mail, id: randomUUID() })).rejects.toThrow();
  });

  test('no sealing key is an item of the table', async () => {
    await registered();
    await createViaApi(org, { email: `no-key-${unique()}@example.test` });
    expect(await getItem(keys.identityProviderSealKey(), { consistent: true })).toBeUndefined();
    expect(await getItem(keys.mailSealKey(), { consistent: true })).toBeUndefined();
  });
});

describe('what was sealed under the table keys before still opens (the upgrade path)', () => {
  /** AES-256-GCM under `key` as the earlier format sealed: `base64url(iv ‖ tag ‖ ciphertext)`. */
  const legacySeal = (key: Buffer, value: string, boundTo: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  };

  afterAll(async () => {
    await deleteItem({ Key: keys.identityProviderSealKey() });
    await deleteItem({ Key: keys.mailSealKey() });
  });

  test("a provider's secret and a queued password sealed under the table's keys open while those items exist", async () => {
    const providerKey = randomBytes(32);
    const mailKey = randomBytes(32);
    await putItem({ ...keys.identityProviderSealKey(), type: 'IDPSEALKEY', key: providerKey.toString('base64') });
    await putItem({ ...keys.mailSealKey(), type: 'MAILSEALKEY', key: mailKey.toString('base64') });

    const { alias } = await registered();
    await updateItem({
      Key: keys.identityProvider(org.orgUuid, alias),
      UpdateExpression: 'SET sealedClientSecret = :s',
      ExpressionAttributeValues: { ':s': legacySeal(providerKey, 'sealed-before-kms', `${org.orgUuid}#${alias}`) },
    });
    await expect(runAsFunction('auth', () => providerClientSecret({ orgUuid: org.orgUuid, alias }))).resolves.toBe('sealed-before-kms');
    // The operator's command seals it again under the KMS key; then the table's key is no longer needed.
    expect(await resealProviderSecrets(org.orgUuid)).toEqual({ resealed: 1, remaining: 0 });
    expect((await getItem<{ sealedClientSecret: string }>(keys.identityProvider(org.orgUuid, alias)))!.sealedClientSecret).toMatch(/^kms1\./);
    await deleteItem({ Key: keys.identityProviderSealKey() });
    await expect(runAsFunction('auth', () => providerClientSecret({ orgUuid: org.orgUuid, alias }))).resolves.toBe('sealed-before-kms');
    expect(await resealProviderSecrets(org.orgUuid)).toEqual({ resealed: 0, remaining: 0 });

    const id = randomUUID();
    const mail: QueuedMail = {
      id,
      kind: 'welcome',
      orgUuid: org.orgUuid,
      userUuid: randomUUID(),
      language: 'en',
      password: { sealed: legacySeal(mailKey, 'Queued-Before-1', id), temporary: true },
      queuedAt: new Date().toISOString(),
    };
    await expect(runAsFunction('mail', () => unsealPassword(mail))).resolves.toEqual({ value: 'Queued-Before-1', temporary: true });
  });
});
