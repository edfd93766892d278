import { createDecipheriv, randomBytes } from 'node:crypto';
import type { ItemKey } from './keys';
import { getItem, putItem } from './table';

/**
 * A 32-byte secret kept as one item of the table, made by the first function that needs it (the first
 * writer wins, every reader then takes its value) and read once per container. Anyone who can read the
 * table can read it: it keeps what it protects from those who hold only a token or a queue message.
 * Only what signs (page tokens) keeps its key so; what is sealed is sealed under KMS keys
 * (`shared/adapters/sealing/envelope.ts`).
 */
export function tableSecret(key: ItemKey, type: string): () => Promise<Buffer> {
  let cached: Promise<Buffer> | undefined;
  return () => {
    cached ??= (async () => {
      const stored = await getItem<{ key: string }>(key, { consistent: true });
      if (stored) return Buffer.from(stored.key, 'base64');
      await putItem({ ...key, type, key: randomBytes(32).toString('base64') }, { ConditionExpression: 'attribute_not_exists(PK)' });
      const written = await getItem<{ key: string }>(key, { consistent: true });
      return Buffer.from(written!.key, 'base64');
    })().catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
    return cached;
  };
}

const legacyKeys = new Map<string, Promise<Buffer>>();

/**
 * Opens a value sealed before the sealing keys moved to KMS: `base64url(iv ‖ tag ‖ ciphertext)`,
 * AES-256-GCM under the key the item `key` of the table keeps, `boundTo` as associated data. Reads that
 * item (once per container) and never makes it: where it is gone, such a value no longer opens
 * (docs/architecture.md#sealed-secrets says when it may be deleted).
 */
export async function openUnderTableKey(key: ItemKey, sealed: string, boundTo: string): Promise<string> {
  const name = `${key.PK}/${key.SK}`;
  let secret = legacyKeys.get(name);
  if (!secret) {
    secret = getItem<{ key: string }>(key, { consistent: true }).then((stored) => {
      if (!stored) throw new Error(`The value was sealed under a table key that is gone (${key.PK})`);
      return Buffer.from(stored.key, 'base64');
    });
    secret.catch(() => legacyKeys.delete(name));
    legacyKeys.set(name, secret);
  }
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', await secret, bytes.subarray(0, 12)).setAAD(Buffer.from(boundTo));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
