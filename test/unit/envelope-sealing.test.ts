import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { readFileSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLocalKms } from '../../infra/local/kms-endpoint';
import { kmsClient } from '../../shared/adapters/clients/kms';
import { open, providerSecretsKey, seal } from '../../shared/adapters/sealing/envelope';
import { envNames } from '../../shared/kernel/config';
import { tempDirs } from '../support/temp-dirs';

/**
 * Envelope sealing (shared/adapters/sealing/envelope.ts) against the local KMS the local stack runs
 * (infra/local/kms-endpoint.ts), through the real KMS client: one data key per container for many
 * values, one Decrypt per data key met, and the KMS refusals the code relies on.
 */

const KEY = 'arn:aws:kms:us-east-1:000000000000:key/SealingProviderSecretsTEST';
const OTHER = 'arn:aws:kms:us-east-1:000000000000:key/SealingMailPasswordsTEST';
const dataDir = tempDirs('envelope-');
let server: Server;
let keyFile: string;
const calls: string[] = [];

beforeAll(async () => {
  keyFile = join(dataDir(), 'sealing-keys.json');
  server = createLocalKms(keyFile, [KEY, OTHER]);
  server.on('request', (request) => calls.push(String(request.headers['x-amz-target']).replace('TrentService.', '')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    [envNames.kmsEndpoint]: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    [envNames.providerSecretsKey]: KEY,
    [envNames.region]: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
});
afterAll(async () => {
  kmsClient().destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  calls.length = 0;
});

test("the keys' material is kept in the data directory, readable by its owner only, and never in a sealed value", async () => {
  const material = JSON.parse(readFileSync(keyFile, 'utf8')) as Record<string, string>;
  expect(Object.keys(material).sort()).toEqual([OTHER, KEY].sort());
  expect(Buffer.from(material[KEY]!, 'base64')).toHaveLength(32);
  expect(statSync(keyFile).mode & 0o077).toBe(0);
  const sealed = await seal(providerSecretsKey, 'a secret', 'org#alias');
  expect(sealed).not.toContain(material[KEY]);
});

test('a container seals many values with one data key, and opens them with one Decrypt', async () => {
  const values = ['one', 'two', 'three', 'four', 'five'];
  const sealed = await Promise.all(values.map((value, index) => seal(providerSecretsKey, value, `org#p${index}`)));
  expect(new Set(sealed.map((value) => value.split('.')[1])).size).toBe(1);
  expect(new Set(sealed).size).toBe(5);
  expect(await Promise.all(sealed.map((value, index) => open(providerSecretsKey, value, `org#p${index}`)))).toEqual(values);
  // The data key may have been made by the first test: at most one GenerateDataKey, exactly one Decrypt.
  expect(calls.filter((call) => call === 'GenerateDataKey').length).toBeLessThanOrEqual(1);
  expect(calls.filter((call) => call === 'Decrypt')).toEqual(['Decrypt']);
});

test('a value opens only bound to what it was sealed for', async () => {
  const sealed = await seal(providerSecretsKey, 'bound', 'org#alias');
  await expect(open(providerSecretsKey, sealed, 'org#other')).rejects.toThrow();
  await expect(open(providerSecretsKey, sealed, 'org#alias')).resolves.toBe('bound');
});

describe('the local KMS refuses what KMS refuses', () => {
  const dataKey = () => kmsClient().send(new GenerateDataKeyCommand({ KeyId: KEY, KeySpec: 'AES_256', EncryptionContext: { purpose: 'p' } }));

  test('an unknown key: NotFoundException', async () => {
    await expect(kmsClient().send(new GenerateDataKeyCommand({ KeyId: `${KEY}-gone`, KeySpec: 'AES_256' }))).rejects.toMatchObject({ name: 'NotFoundException' });
  });

  test('a data key opens with its own key and context only', async () => {
    const { CiphertextBlob, Plaintext } = await dataKey();
    expect(Plaintext).toHaveLength(32);
    const decrypted = await kmsClient().send(new DecryptCommand({ KeyId: KEY, CiphertextBlob, EncryptionContext: { purpose: 'p' } }));
    expect(Buffer.from(decrypted.Plaintext!)).toEqual(Buffer.from(Plaintext!));
    await expect(kmsClient().send(new DecryptCommand({ KeyId: OTHER, CiphertextBlob, EncryptionContext: { purpose: 'p' } }))).rejects.toMatchObject({ name: 'IncorrectKeyException' });
    await expect(kmsClient().send(new DecryptCommand({ KeyId: KEY, CiphertextBlob, EncryptionContext: { purpose: 'q' } }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    const altered = Buffer.from(CiphertextBlob!);
    altered[altered.length - 1]! ^= 1;
    await expect(kmsClient().send(new DecryptCommand({ KeyId: KEY, CiphertextBlob: altered, EncryptionContext: { purpose: 'p' } }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  test('the material survives a restart: a data key made before opens after', async () => {
    const { CiphertextBlob, Plaintext } = await dataKey();
    const again = createLocalKms(keyFile, [KEY, OTHER]);
    await new Promise<void>((resolve) => again.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(again.address() as AddressInfo).port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'TrentService.Decrypt' },
        body: JSON.stringify({ KeyId: KEY, CiphertextBlob: Buffer.from(CiphertextBlob!).toString('base64'), EncryptionContext: { purpose: 'p' } }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { Plaintext: string }).Plaintext).toBe(Buffer.from(Plaintext!).toString('base64'));
    } finally {
      again.close();
    }
  });
});
