import { domainStampWrites } from '../../domain/sessions/credential-stamp.repository';
import { randomUUID } from 'node:crypto';
import { changesBetween, REDACTED, type PatchOperation } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import type { AuditAction } from '../../domain/audit/audit-kinds';
import { getOrganization } from '../../domain/org/org.repository';
import type { OrgScope } from '../../domain/users/org-scope';
import { ConflictError, NotFoundError, ValidationError } from '../../kernel/errors';
import { openClientSecret, sealClientSecret, sealedUnderTableKey } from '../../domain/identity-providers/client-secret.repository';
import type { IdentityProviderRecord, StoredIdentityProvider } from '../../domain/identity-providers/identity-provider.entities';
import { brokerRedirectUri, toIdentityProviderResponse, type ShownIdentityProvider } from '../../domain/identity-providers/identity-provider.mapper';
import {
  domainHolder,
  getStoredProvider,
  insertProvider,
  providerNotFound,
  providerRecordOf,
  listStoredProviders,
  removeProvider,
  replaceProvider,
  replaceSealedSecret,
  type WriteRefusal,
} from '../../domain/identity-providers/identity-provider.repository';
import { MAX_IDENTITY_PROVIDERS } from '../../domain/identity-providers/identity-provider-limits';
import type { IdentityProviderCreateBody, IdentityProviderUpdateBody } from '../../domain/identity-providers/identity-provider.schemas';
import { discoverEndpoints } from './openid-discovery';

/**
 * An organization's own OpenID providers (docs/api/identity-providers.md), registered by an ADMIN (the
 * catalogue's access declaration checks that); what the sign-in broker reads of them is the
 * repository's (`getProvider`, `findProviderForEmail`, `providerClientSecret`).
 */

async function realmOf(orgUuid: string): Promise<string> {
  const org = await getOrganization(orgUuid);
  if (!org) throw new NotFoundError('The organization was not found');
  return org.name;
}

const shown = (record: IdentityProviderRecord, realm: string): ShownIdentityProvider => ({ ...record, redirectUri: brokerRedirectUri(realm, record.alias) });

/** The audit event of a change: the provider as the API shows it, and `[REDACTED]` where the secret was set. */
function audited(action: AuditAction, after: ShownIdentityProvider, before: ShownIdentityProvider | undefined, secretSet: boolean) {
  const secret: PatchOperation[] = secretSet ? [{ op: before ? 'replace' : 'add', path: '/clientSecret', value: REDACTED }] : [];
  const view = (provider: ShownIdentityProvider) => toIdentityProviderResponse(provider);
  return auditWrites({
    orgUuid: after.orgUuid,
    action,
    resource: { type: 'IDENTITY_PROVIDER', uuid: after.id },
    changes: action === 'IDENTITY_PROVIDER_DELETED' ? [{ op: 'remove', path: '' }] : [...changesBetween(before && view(before), view(after)), ...secret],
    at: after.updatedAt,
  });
}

async function refusedWrite(orgUuid: string, refusal: WriteRefusal, alias: string): Promise<never> {
  switch (refusal.reason) {
    case 'limit':
      throw new ValidationError({
        details: [{ fieldName: 'alias', errorCode: 'IDENTITY_PROVIDER_LIMIT', message: `The organization has ${MAX_IDENTITY_PROVIDERS} identity providers, the most it may have: delete one first` }],
      });
    case 'alias-taken':
      throw new ConflictError({ code: 'IDENTITY_PROVIDER_EXISTS', message: `The organization has a provider with the alias ${alias} already: choose another alias, or update that one (PUT …/identity-providers/${alias})` });
    case 'domain-taken': {
      const holder = (await domainHolder(orgUuid, refusal.domain)) ?? 'another provider';
      throw new ConflictError({
        code: 'IDENTITY_PROVIDER_DOMAIN_TAKEN',
        message: `The domain ${refusal.domain} belongs to the provider ${holder}: remove it there first, or leave it out here`,
      });
    }
    default:
      throw new ConflictError({ code: 'CHANGED_MEANWHILE', message: 'The provider changed while this ran: read it and try again' });
  }
}

/** Refuses a domain held by another provider before the discovery document is read (the transaction checks again). */
async function checkDomainsFree(orgUuid: string, alias: string, domains: readonly string[]): Promise<void> {
  const holders = await Promise.all(domains.map(async (domain) => ({ domain, holder: await domainHolder(orgUuid, domain) })));
  const taken = holders.find(({ holder }) => holder !== undefined && holder !== alias);
  if (taken) await refusedWrite(orgUuid, { reason: 'domain-taken', domain: taken.domain }, alias);
}

/** The fields a create or an update sets alike: the body's own, its distinct domains, the endpoints its issuer's document names. */
const describedBy = (body: IdentityProviderUpdateBody, domains: string[], endpoints: Awaited<ReturnType<typeof discoverEndpoints>>) => ({
  displayName: body.displayName,
  issuer: body.issuer,
  clientId: body.clientId,
  domains,
  enforce: body.enforce,
  ...endpoints,
});

/** Registers a provider once its discovery document checks out; 409 on a taken alias or domain, 422 past the cap or on a bad document. */
export async function createIdentityProvider(scope: OrgScope, body: IdentityProviderCreateBody): Promise<ShownIdentityProvider> {
  const domains = [...new Set(body.domains)];
  if (await getStoredProvider(scope.orgUuid, body.alias)) await refusedWrite(scope.orgUuid, { reason: 'alias-taken' }, body.alias);
  await checkDomainsFree(scope.orgUuid, body.alias, domains);
  const [endpoints, realm] = await Promise.all([discoverEndpoints(body.issuer), realmOf(scope.orgUuid)]);
  const now = new Date().toISOString();
  const stored: StoredIdentityProvider = {
    id: randomUUID(),
    orgUuid: scope.orgUuid,
    alias: body.alias,
    ...describedBy(body, domains, endpoints),
    sealedClientSecret: await sealClientSecret(body.clientSecret, scope.orgUuid, body.alias),
    createdAt: now,
    updatedAt: now,
  };
  const provider = shown(providerRecordOf(stored), realm);
  const refusal = await insertProvider(stored, [...audited('IDENTITY_PROVIDER_CREATED', provider, undefined, true), ...passwordsEnded(scope.orgUuid, undefined, stored)]);
  if (refusal) await refusedWrite(scope.orgUuid, refusal, body.alias);
  return provider;
}

export async function listIdentityProviders(scope: OrgScope): Promise<ShownIdentityProvider[]> {
  const [providers, realm] = await Promise.all([listStoredProviders(scope.orgUuid), realmOf(scope.orgUuid)]);
  return providers.map((stored) => shown(providerRecordOf(stored), realm));
}

export async function readIdentityProvider(scope: OrgScope, alias: string): Promise<ShownIdentityProvider> {
  const [stored, realm] = await Promise.all([getStoredProvider(scope.orgUuid, alias), realmOf(scope.orgUuid)]);
  if (!stored) throw providerNotFound(alias);
  return shown(providerRecordOf(stored), realm);
}

/**
 * The stored secret was given for one client at one issuer: it goes nowhere else. A new `issuer` or
 * `clientId` without a `clientSecret` beside it is refused before anything is read from the new issuer,
 * so an ADMIN cannot send the write-only secret to a server of their choosing.
 */
function checkSecretGoesWith(current: StoredIdentityProvider, body: IdentityProviderUpdateBody): void {
  const moved = [body.issuer !== current.issuer && 'issuer', body.clientId !== current.clientId && 'clientId'].filter((field) => field !== false);
  if (moved.length === 0 || body.clientSecret !== undefined) return;
  throw new ValidationError({
    details: [
      {
        fieldName: 'clientSecret',
        errorCode: 'FIELD_REQUIRED',
        message: `A new ${moved.join(' and ')} needs the client secret in the same request: send clientSecret again (the one the provider issued for this client)`,
      },
    ],
  });
}

/** Replaces every field (the discovery document read again); an absent `clientSecret` keeps the current one, unless the issuer or client changes. */
export async function updateIdentityProvider(scope: OrgScope, alias: string, body: IdentityProviderUpdateBody): Promise<ShownIdentityProvider> {
  if (body.alias !== undefined && body.alias !== alias) {
    throw new ValidationError({ details: [{ fieldName: 'alias', errorCode: 'FIELD_INVALID', message: `An alias never changes: leave it out, or give ${alias}; to rename, create the provider anew` }] });
  }
  const current = await getStoredProvider(scope.orgUuid, alias);
  if (!current) throw providerNotFound(alias);
  checkSecretGoesWith(current, body);
  const domains = [...new Set(body.domains)];
  await checkDomainsFree(scope.orgUuid, alias, domains);
  const [endpoints, realm] = await Promise.all([discoverEndpoints(body.issuer), realmOf(scope.orgUuid)]);
  const next: StoredIdentityProvider = {
    ...current,
    ...describedBy(body, domains, endpoints),
    ...(body.clientSecret !== undefined ? { sealedClientSecret: await sealClientSecret(body.clientSecret, scope.orgUuid, alias) } : {}),
    updatedAt: new Date().toISOString(),
  };
  const provider = shown(providerRecordOf(next), realm);
  const refusal = await replaceProvider(next, current, [
    ...audited('IDENTITY_PROVIDER_UPDATED', provider, shown(providerRecordOf(current), realm), body.clientSecret !== undefined),
    ...passwordsEnded(scope.orgUuid, current, next),
  ]);
  if (refusal) await refusedWrite(scope.orgUuid, refusal, alias);
  return provider;
}

/**
 * The writes that end the password sessions of the domains a write starts to enforce (all of them when
 * `enforce` turns on, the added ones while it stays on), in the write's own transaction: one stamp per
 * domain, however many users it has (`credential-stamp.ts`).
 */
function passwordsEnded(orgUuid: string, before: Pick<StoredIdentityProvider, 'enforce' | 'domains'> | undefined, after: Pick<StoredIdentityProvider, 'enforce' | 'domains'>) {
  if (!after.enforce) return [];
  const enforcedBefore = before?.enforce ? before.domains : [];
  return domainStampWrites(orgUuid, after.domains.filter((domain) => !enforcedBefore.includes(domain)), Date.now());
}

export async function deleteIdentityProvider(scope: OrgScope, alias: string): Promise<void> {
  const [current, realm] = await Promise.all([getStoredProvider(scope.orgUuid, alias), realmOf(scope.orgUuid)]);
  if (!current) throw providerNotFound(alias);
  const gone = shown(providerRecordOf({ ...current, updatedAt: new Date().toISOString() }), realm);
  if (!(await removeProvider(current, audited('IDENTITY_PROVIDER_DELETED', gone, shown(providerRecordOf(current), realm), false)))) {
    throw new ConflictError({ code: 'CHANGED_MEANWHILE', message: 'The provider changed or was deleted while this ran: read it and try again' });
  }
}

/** The part of an e-mail after its last `@`, lower-cased; undefined when there is none. */
/**
 * For an operator, once after the upgrade to KMS sealing keys (docs/architecture.md#sealed-secrets):
 * seals again under the provider-secrets key every secret of the organization still sealed under the
 * table's key, so that key's item can be deleted. Needs both keys' grants (the operator's role); a
 * provider an ADMIN changes meanwhile keeps the ADMIN's secret. Answers how many were sealed again and
 * how many remain under the table's key.
 */
export async function resealProviderSecrets(orgUuid: string): Promise<{ resealed: number; remaining: number }> {
  let resealed = 0;
  for (const stored of await listStoredProviders(orgUuid)) {
    if (!sealedUnderTableKey(stored.sealedClientSecret)) continue;
    const secret = await openClientSecret(stored.sealedClientSecret, orgUuid, stored.alias);
    if (await replaceSealedSecret(stored, await sealClientSecret(secret, orgUuid, stored.alias))) resealed++;
  }
  const remaining = (await listStoredProviders(orgUuid)).filter((stored) => sealedUnderTableKey(stored.sealedClientSecret)).length;
  return { resealed, remaining };
}

export { findProviderForEmail, getProvider, providerClientSecret } from '../../domain/identity-providers/identity-provider.repository';
/** How the answers show a provider (the bindings map what the use cases return). */
export { toIdentityProviderResponse } from '../../domain/identity-providers/identity-provider.mapper';
export { linkUserToProvider } from './user-link';
