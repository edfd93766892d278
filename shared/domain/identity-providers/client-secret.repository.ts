import { keys } from '../../adapters/store/keys';
import { openUnderTableKey } from '../../adapters/store/table-secret';
import { isEnvelope, open, providerSecretsKey, seal } from '../../adapters/sealing/envelope';

/**
 * A provider's client secret as the table keeps it: sealed under the provider-secrets KMS key
 * (envelope encryption: `shared/adapters/sealing/envelope.ts`), the organization and alias as
 * associated data, so the secret shows in no export or dump of the provider's item, a sealed value
 * copied to another provider does not open, and only a function granted the key's Decrypt (the one
 * that signs people in through the provider) opens it.
 */

const boundTo = (orgUuid: string, alias: string) => `${orgUuid}#${alias}`;

export function sealClientSecret(secret: string, orgUuid: string, alias: string): Promise<string> {
  return seal(providerSecretsKey, secret, boundTo(orgUuid, alias));
}

/**
 * The secret sealed for this provider; throws when it was sealed for another, under another key, or
 * altered. A secret sealed before the KMS key (under the key an item of the table kept) still opens
 * while that item exists: docs/architecture.md#sealed-secrets.
 */
export function openClientSecret(sealed: string, orgUuid: string, alias: string): Promise<string> {
  if (isEnvelope(sealed)) return open(providerSecretsKey, sealed, boundTo(orgUuid, alias));
  return openUnderTableKey(keys.identityProviderSealKey(), sealed, boundTo(orgUuid, alias));
}

/** Whether a sealed secret is of the earlier format, under the table's key (to be sealed again under KMS). */
export const sealedUnderTableKey = (sealed: string): boolean => !isEnvelope(sealed);
