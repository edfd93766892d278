import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { kmsClient } from '../clients/kms';
import { config, ConfigError, envNames, type Config } from '../../kernel/config';

/**
 * Envelope sealing under a KMS key (docs/architecture.md#sealed-secrets): a value is sealed with
 * AES-256-GCM under a data key that KMS made (GenerateDataKey), and keeps that data key beside it as
 * KMS encrypted it; opening asks KMS to decrypt the data key (Decrypt). The key itself never leaves
 * KMS, and no item of the table holds anything that opens what the table keeps: reading a sealed value
 * needs the table and the key's grant, which only the functions that use the value hold.
 *
 * A data key seals many values: it is made once per container and key (each function's own on the
 * local stack, where functions share one process), used for at most `DATA_KEY_USES` values or
 * `DATA_KEY_MS`, then replaced. A data key decrypted to open a value is kept likewise, so a warm
 * container asks KMS once per data key it meets. The one code path serves AWS and the local stack;
 * configuration alone (the key's ARN, the KMS endpoint) tells them apart.
 */

/** A KMS key and what it seals: its ARN is read from `variable`; `purpose` is the encryption context every call carries. */
export interface SealingKey {
  purpose: string;
  variable: string;
  keyId(settings: Config): string | undefined;
}

export const providerSecretsKey: SealingKey = {
  purpose: 'identity-provider-client-secret',
  variable: envNames.providerSecretsKey,
  keyId: (settings) => settings.sealingKeys.providerSecrets,
};

export const mailPasswordsKey: SealingKey = {
  purpose: 'queued-mail-password',
  variable: envNames.mailPasswordsKey,
  keyId: (settings) => settings.sealingKeys.mailPasswords,
};

/** What starts a sealed value of this format; the earlier format (base64url, no dot) never holds a dot. */
const FORMAT = 'kms1';
const DATA_KEY_USES = 10_000;
const DATA_KEY_MS = 60 * 60 * 1000;
/** Decrypted data keys kept per container and key: the oldest goes first. */
const OPENED_KEPT = 64;

interface DataKey {
  plaintext: Buffer;
  /** The data key as KMS encrypted it, stored beside every value it seals. */
  encrypted: string;
  uses: number;
  madeAt: number;
}

interface KeyCache {
  /** The data key being made, or made. */
  sealing?: Promise<DataKey>;
  /** The data key made, once it is. */
  current?: DataKey;
  opened: Map<string, Promise<Buffer>>;
}

/** Per configuration: one per container in Lambda, one per function on the local stack (each its own environment). */
const caches = new WeakMap<Config, Map<string, KeyCache>>();

function cacheOf(settings: Config, keyId: string): KeyCache {
  let byKey = caches.get(settings);
  if (!byKey) caches.set(settings, (byKey = new Map()));
  let cache = byKey.get(keyId);
  if (!cache) byKey.set(keyId, (cache = { opened: new Map() }));
  return cache;
}

function keyIdOf(key: SealingKey, settings: Config): string {
  const keyId = key.keyId(settings);
  if (!keyId) throw new ConfigError(`Missing environment variable ${key.variable}: the KMS key that seals each ${key.purpose}`);
  return keyId;
}

const context = (key: SealingKey) => ({ purpose: key.purpose });

/** The data key this container seals with: made by KMS on first use, and again once it has sealed enough or lived long enough. */
function sealingDataKey(key: SealingKey, keyId: string, cache: KeyCache): Promise<DataKey> {
  const current = cache.current;
  // A key being made (no current one yet) or a fresh one: every caller shares it.
  if (cache.sealing && (current === undefined || (current.uses < DATA_KEY_USES && Date.now() - current.madeAt < DATA_KEY_MS))) return cache.sealing;
  cache.current = undefined;
  const making = kmsClient()
    .send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context(key) }))
    .then(({ Plaintext, CiphertextBlob }) => {
      const made = { plaintext: Buffer.from(Plaintext!), encrypted: Buffer.from(CiphertextBlob!).toString('base64url'), uses: 0, madeAt: Date.now() };
      if (cache.sealing === making) cache.current = made;
      return made;
    });
  making.catch(() => {
    if (cache.sealing === making) cache.sealing = undefined;
  });
  cache.sealing = making;
  return making;
}

/**
 * `value` sealed under `key`, bound to `boundTo` (associated data: it opens only with the same), as
 * `kms1.<encrypted data key>.<iv ‖ tag ‖ ciphertext>`, each part base64url.
 */
export async function seal(key: SealingKey, value: string, boundTo: string): Promise<string> {
  const settings = config();
  const keyId = keyIdOf(key, settings);
  const dataKey = await sealingDataKey(key, keyId, cacheOf(settings, keyId));
  dataKey.uses++;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv).setAAD(Buffer.from(boundTo));
  const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return `${FORMAT}.${dataKey.encrypted}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/** Whether `sealed` is of this format (else it was sealed before the KMS keys: see the callers' legacy opening). */
export const isEnvelope = (sealed: string): boolean => sealed.startsWith(`${FORMAT}.`);

function openedDataKey(key: SealingKey, keyId: string, cache: KeyCache, encrypted: string): Promise<Buffer> {
  let opened = cache.opened.get(encrypted);
  if (!opened) {
    opened = kmsClient()
      .send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: Buffer.from(encrypted, 'base64url'), EncryptionContext: context(key) }))
      .then(({ Plaintext }) => Buffer.from(Plaintext!));
    opened.catch(() => cache.opened.delete(encrypted));
    cache.opened.set(encrypted, opened);
    if (cache.opened.size > OPENED_KEPT) cache.opened.delete(cache.opened.keys().next().value!);
  }
  return opened;
}

/** The value `sealed` holds; throws when it was sealed under another key or purpose, bound to another `boundTo`, or altered. */
export async function open(key: SealingKey, sealed: string, boundTo: string): Promise<string> {
  const [format, encrypted, body] = sealed.split('.');
  if (format !== FORMAT || !encrypted || !body) throw new Error(`Not a value sealed under a KMS key (${key.purpose})`);
  const settings = config();
  const keyId = keyIdOf(key, settings);
  const dataKey = await openedDataKey(key, keyId, cacheOf(settings, keyId), encrypted);
  const bytes = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', dataKey, bytes.subarray(0, 12)).setAAD(Buffer.from(boundTo));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
