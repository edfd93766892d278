import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keys } from '../../adapters/store/keys';
import { tableSecret } from '../../adapters/store/table-secret';

/**
 * A provider's client secret as the table keeps it: AES-256-GCM under a key kept in its own item, the
 * organization and alias as associated data, so the secret shows in no export or dump of the
 * provider's item and a sealed value copied to another provider does not open.
 */
const sealingKey = tableSecret(keys.identityProviderSealKey(), 'IDPSEALKEY');

const boundTo = (orgUuid: string, alias: string) => Buffer.from(`${orgUuid}#${alias}`);

/** `base64url(iv ‖ tag ‖ ciphertext)`. */
export async function sealClientSecret(secret: string, orgUuid: string, alias: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await sealingKey(), iv).setAAD(boundTo(orgUuid, alias));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The secret sealed for this provider; throws when it was sealed for another or under another key. */
export async function openClientSecret(sealed: string, orgUuid: string, alias: string): Promise<string> {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', await sealingKey(), bytes.subarray(0, 12)).setAAD(boundTo(orgUuid, alias));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
