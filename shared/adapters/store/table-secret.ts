import { randomBytes } from 'node:crypto';
import type { ItemKey } from './keys';
import { getItem, putItem } from './table';

/**
 * A 32-byte secret kept as one item of the table, made by the first function that needs it (the first
 * writer wins, every reader then takes its value) and read once per container. Anyone who can read the
 * table can read it: it keeps what it protects from those who hold only a token or a queue message.
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
