import { keys, withoutKeys } from '../../adapters/store/keys';
import { getItem, queryPrefix, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import { NotFoundError } from '../../kernel/errors';
import { openClientSecret } from './client-secret.repository';
import type { IdentityProviderRecord, StoredIdentityProvider } from './identity-provider.entities';
import { MAX_IDENTITY_PROVIDERS } from './identity-provider-limits';

/** Why a write was refused: the cap, the alias taken, or a domain another provider holds (named). */
export type WriteRefusal = { reason: 'limit' } | { reason: 'alias-taken' } | { reason: 'domain-taken'; domain: string } | { reason: 'changed' };

const item = (record: StoredIdentityProvider) => ({ ...keys.identityProvider(record.orgUuid, record.alias), type: 'IDENTITY_PROVIDER', ...record });

const claimDomain = (record: StoredIdentityProvider, domain: string): TableWrite => ({
  Put: {
    Item: { ...keys.identityProviderDomain(record.orgUuid, domain), type: 'IDENTITY_PROVIDER_DOMAIN', orgUuid: record.orgUuid, domain, alias: record.alias },
    ConditionExpression: 'attribute_not_exists(PK) OR alias = :alias',
    ExpressionAttributeValues: { ':alias': record.alias },
  },
});

const releaseDomain = (orgUuid: string, alias: string, domain: string): TableWrite => ({
  Delete: { Key: keys.identityProviderDomain(orgUuid, domain), ConditionExpression: 'alias = :alias', ExpressionAttributeValues: { ':alias': alias } },
});

export async function getStoredProvider(orgUuid: string, alias: string): Promise<StoredIdentityProvider | undefined> {
  return getItem<StoredIdentityProvider>(keys.identityProvider(orgUuid, alias), { consistent: true });
}

/** The organization's providers in alias order. */
export async function listStoredProviders(orgUuid: string): Promise<StoredIdentityProvider[]> {
  const { PK, SKPrefix } = keys.identityProvidersOf(orgUuid);
  return (await queryPrefix<Record<string, unknown>>(PK, SKPrefix)).map((stored) => withoutKeys<StoredIdentityProvider>(stored));
}

/** The alias of the provider of the organization that holds an e-mail domain. */
export async function domainHolder(orgUuid: string, domain: string): Promise<string | undefined> {
  return (await getItem<{ alias: string }>(keys.identityProviderDomain(orgUuid, domain), { consistent: true }))?.alias;
}

/**
 * Writes a new provider with its domain claims and `alongside` (its audit event), counted: all of it
 * or nothing, with why not.
 */
export async function insertProvider(record: StoredIdentityProvider, alongside: readonly TableWrite[]): Promise<WriteRefusal | undefined> {
  const counted: TableWrite = {
    Update: {
      Key: keys.identityProviderCount(record.orgUuid),
      UpdateExpression: 'ADD providers :one',
      ConditionExpression: 'attribute_not_exists(providers) OR providers < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': MAX_IDENTITY_PROVIDERS },
    },
  };
  const put: TableWrite = { Put: { Item: item(record), ConditionExpression: 'attribute_not_exists(PK)' } };
  const failed = await transactWrite([counted, put, ...record.domains.map((domain) => claimDomain(record, domain)), ...alongside]);
  if (failed.length === 0) return undefined;
  if (failed.includes(1)) return { reason: 'alias-taken' };
  if (failed.includes(0)) return { reason: 'limit' };
  return { reason: 'domain-taken', domain: record.domains[failed[0]! - 2] ?? record.domains[0]! };
}

/**
 * Replaces a provider that has not changed since `before` was read, moving its domain claims, with
 * `alongside` (its audit event); why not when refused.
 */
export async function replaceProvider(record: StoredIdentityProvider, before: StoredIdentityProvider, alongside: readonly TableWrite[]): Promise<WriteRefusal | undefined> {
  const put: TableWrite = {
    Put: { Item: item(record), ConditionExpression: 'updatedAt = :read', ExpressionAttributeValues: { ':read': before.updatedAt } },
  };
  const added = record.domains.filter((domain) => !before.domains.includes(domain));
  const removed = before.domains.filter((domain) => !record.domains.includes(domain));
  const failed = await transactWrite([
    put,
    ...added.map((domain) => claimDomain(record, domain)),
    ...removed.map((domain) => releaseDomain(record.orgUuid, record.alias, domain)),
    ...alongside,
  ]);
  if (failed.length === 0) return undefined;
  const claim = failed.find((index) => index >= 1 && index <= added.length);
  return claim !== undefined ? { reason: 'domain-taken', domain: added[claim - 1]! } : { reason: 'changed' };
}

/** Deletes a provider, its domain claims and its place in the count, with `alongside`; false when it was gone or changed. */
export async function removeProvider(before: StoredIdentityProvider, alongside: readonly TableWrite[]): Promise<boolean> {
  const remove: TableWrite = {
    Delete: { Key: keys.identityProvider(before.orgUuid, before.alias), ConditionExpression: 'updatedAt = :read', ExpressionAttributeValues: { ':read': before.updatedAt } },
  };
  const uncount: TableWrite = { Update: { Key: keys.identityProviderCount(before.orgUuid), UpdateExpression: 'ADD providers :minus', ExpressionAttributeValues: { ':minus': -1 } } };
  const released = before.domains.map((domain) => releaseDomain(before.orgUuid, before.alias, domain));
  return (await transactWrite([remove, uncount, ...released, ...alongside])).length === 0;
}

/** Replaces a provider's sealed secret by the same secret sealed anew; false when it changed meanwhile (an ADMIN's update wins). */
export async function replaceSealedSecret(before: StoredIdentityProvider, sealedClientSecret: string): Promise<boolean> {
  return updateItem({
    Key: keys.identityProvider(before.orgUuid, before.alias),
    UpdateExpression: 'SET sealedClientSecret = :sealed',
    ConditionExpression: 'sealedClientSecret = :before',
    ExpressionAttributeValues: { ':sealed': sealedClientSecret, ':before': before.sealedClientSecret },
  });
}

/** A 404 naming the alias the organization has no provider for. */
export const providerNotFound = (alias: string) =>
  new NotFoundError(`The organization has no identity provider with the alias ${alias}: list them with GET …/identity-providers`);

/** The record without its sealed secret: what every reader outside this module gets. */
export function providerRecordOf(stored: StoredIdentityProvider): IdentityProviderRecord {
  const { sealedClientSecret: _sealed, ...record } = stored;
  return record;
}

const domainOf = (email: string): string | undefined => {
  const at = email.lastIndexOf('@');
  const domain = at < 0 ? '' : email.slice(at + 1).trim().toLowerCase();
  return domain.length > 0 ? domain : undefined;
};

/**
 * For the sign-in broker: the organization's provider whose `domains` hold the e-mail's domain (the
 * part after the last `@`, lower-cased, matched exactly: a subdomain is another domain), if any.
 */
export async function findProviderForEmail(orgUuid: string, email: string): Promise<IdentityProviderRecord | undefined> {
  const domain = domainOf(email);
  const alias = domain === undefined ? undefined : await domainHolder(orgUuid, domain);
  return alias === undefined ? undefined : getProvider(orgUuid, alias);
}

/** For the sign-in broker: the organization's provider of that alias, if any (never its secret: see `providerClientSecret`). */
export async function getProvider(orgUuid: string, alias: string): Promise<IdentityProviderRecord | undefined> {
  const stored = await getStoredProvider(orgUuid, alias);
  return stored && providerRecordOf(stored);
}

/**
 * For the sign-in broker: the provider's client secret in clear, read and opened on each call (the
 * record never carries it, so no record that is logged or answered can leak it). Never log it.
 */
export async function providerClientSecret(record: Pick<IdentityProviderRecord, 'orgUuid' | 'alias'>): Promise<string> {
  const stored = await getStoredProvider(record.orgUuid, record.alias);
  if (!stored) throw providerNotFound(record.alias);
  return openClientSecret(stored.sealedClientSecret, record.orgUuid, record.alias);
}

/** Writes audit events that change nothing else (a brokered sign-in, or its refusal), in one transaction. */
export async function recordProviderEvents(events: readonly TableWrite[]): Promise<void> {
  await transactWrite([...events]);
}
