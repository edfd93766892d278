import { ConflictError, NotFoundError } from '../../kernel/errors';
import { userAuditWrites } from '../users/user-audit';
import type { UserRecord } from '../users/user.entities';
import { getUser, saveUser, type StoredUser } from '../users/user.repository';
import { getStoredProvider } from './identity-provider.repository';

/**
 * For the sign-in broker: notes that a user signs in at the organization's provider `alias`
 * (`identityProvider` on the user), with its audit event `USER_IDENTITY_PROVIDER_LINKED` in the same
 * transaction. Linked to that provider already: nothing written. Throws `NotFoundError` when the user
 * or the provider is not the organization's, `ConflictError` when the user is deleted.
 */
export async function linkUserToProvider(orgUuid: string, userUuid: string, alias: string): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [user, provider] = await Promise.all([getUser(orgUuid, userUuid, { consistent: true }), getStoredProvider(orgUuid, alias)]);
    if (!user) throw new NotFoundError('The user was not found');
    if (!provider) throw new NotFoundError(`The organization has no identity provider with the alias ${alias}`);
    if (user.status === 'DELETED') throw new ConflictError({ code: 'USER_DELETED' });
    if (user.identityProvider?.alias === alias) return;
    const now = new Date().toISOString();
    const linked: UserRecord = { ...user, identityProvider: { alias, linkedAt: now }, updatedAt: now };
    if (await saveUser(linked, user as StoredUser, { alongside: userAuditWrites('USER_IDENTITY_PROVIDER_LINKED', user, linked) })) return;
  }
  throw new ConflictError({ code: 'CHANGED_MEANWHILE' });
}
