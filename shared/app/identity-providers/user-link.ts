import { ConflictError, NotFoundError } from '../../kernel/errors';
import { auditContext, withAuditContext } from '../../domain/audit/audit-context';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import type { OrgScope } from '../../domain/users/org-scope';
import { userAuditWrites } from '../../domain/users/user-audit.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { getUser, readUser, saveUser, stampCredentials, type StoredUser } from '../../domain/users/user.repository';
import { revokeSessionsOf } from '../../domain/sessions/session-revocation.repository';
import { getStoredProvider, recordProviderEvents } from '../../domain/identity-providers/identity-provider.repository';

/**
 * A user's link to one of the organization's providers, bound to the provider's `sub` for the user
 * (Keycloak's federated identity: the provider's alias and its user id). The first brokered sign-in
 * writes it; from then on only that account of that provider signs the user in there, whatever e-mail
 * it claims, until an ADMIN removes the link.
 */

/** How a provider's account stands with a user: the user's own, another than the one bound, or a first link. */
export type LinkStanding = 'bound' | 'refused' | 'first';

/**
 * Where the account `subject` of the provider `alias` stands with `user`. A link without a subject
 * (made before subjects were recorded) binds nothing; nor does one to a provider the organization no
 * longer has: the next sign-in is a first link, asked and audited as one.
 */
export async function linkStanding(user: UserRecord, alias: string, subject: string): Promise<LinkStanding> {
  const link = user.identityProvider;
  if (link?.subject === undefined) return 'first';
  if (link.alias === alias) return link.subject === subject ? 'bound' : 'refused';
  return (await getStoredProvider(user.orgUuid, link.alias)) ? 'refused' : 'first';
}

/** The user as the cause of what its own sign-in writes (nobody else acted), in the sign-in's request. */
const asUser = <T>(user: UserRecord, work: () => Promise<T>): Promise<T> =>
  withAuditContext({ actor: { uuid: user.uuid, email: user.email }, requestId: auditContext().requestId }, work);

/**
 * For the sign-in broker: links a user to the organization's provider `alias` and the provider's
 * account `subject` (`identityProvider` on the user), with its audit event
 * `USER_IDENTITY_PROVIDER_LINKED` by the user in the same transaction. Linked to that account already:
 * nothing written. Throws `NotFoundError` when the user or the provider is not the organization's,
 * `ConflictError` when the user is deleted, or bound meanwhile to another account
 * (`IDENTITY_PROVIDER_LINK_TAKEN`).
 */
export async function linkUserToProvider(orgUuid: string, userUuid: string, alias: string, subject: string): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [user, provider] = await Promise.all([getUser(orgUuid, userUuid, { consistent: true }), getStoredProvider(orgUuid, alias)]);
    if (!user) throw new NotFoundError('The user was not found');
    if (!provider) throw new NotFoundError(`The organization has no identity provider with the alias ${alias}`);
    if (user.status === 'DELETED') throw new ConflictError({ code: 'USER_DELETED' });
    const standing = await linkStanding(user, alias, subject);
    if (standing === 'bound') return;
    if (standing === 'refused') throw new ConflictError({ code: 'IDENTITY_PROVIDER_LINK_TAKEN' });
    const now = new Date().toISOString();
    const linked: UserRecord = { ...user, identityProvider: { alias, linkedAt: now, subject }, updatedAt: now };
    const saved = await asUser(user, async () => saveUser(linked, user as StoredUser, { alongside: userAuditWrites('USER_IDENTITY_PROVIDER_LINKED', user, linked) }));
    if (saved) return;
  }
  throw new ConflictError({ code: 'CHANGED_MEANWHILE' });
}

/**
 * An ADMIN removes a user's link (`DELETE …/users/{userId}/identity-provider-link`): the next sign-in
 * at a provider is a first link again. Audited as `USER_IDENTITY_PROVIDER_UNLINKED` by the ADMIN, in
 * the same transaction. A link is removed because the account it names is not (or no longer) the
 * person's: what that account began ends with it, as a password change ends what the old password
 * began (the credential stamp, then the sessions revoked). A user of another organization, or one
 * without a link, is a 404.
 */
export async function unlinkUserFromProvider(scope: OrgScope, userUuid: string): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const seen = await readUser(scope, userUuid);
    const user = (await getUser(seen.orgUuid, seen.uuid, { consistent: true })) ?? seen;
    if (!user.identityProvider) throw new NotFoundError('The user has no identity-provider link: GET …/users/{userId} shows identityProvider when it has one');
    const { identityProvider: _removed, ...rest } = user;
    const unlinked: UserRecord = { ...rest, updatedAt: new Date().toISOString() };
    if (await saveUser(unlinked, user as StoredUser, { alongside: userAuditWrites('USER_IDENTITY_PROVIDER_UNLINKED', user, unlinked) })) {
      await stampCredentials(user.orgUuid, user.uuid);
      await revokeSessionsOf(user.uuid);
      return;
    }
  }
  throw new ConflictError({ code: 'CHANGED_MEANWHILE' });
}

/**
 * Records a brokered sign-in of `user` (`USER_IDENTITY_PROVIDER_SIGNED_IN`), or its refusal because
 * the provider's account is not the one the user is bound to (`USER_IDENTITY_PROVIDER_REFUSED`): by
 * the user, naming the provider's alias and the account's `sub` (`test` operations: nothing changed).
 */
export async function auditBrokeredSignIn(user: UserRecord, alias: string, subject: string, outcome: 'signed-in' | 'refused'): Promise<void> {
  await asUser(user, async () =>
    recordProviderEvents(
      auditWrites({
        orgUuid: user.orgUuid,
        action: outcome === 'signed-in' ? 'USER_IDENTITY_PROVIDER_SIGNED_IN' : 'USER_IDENTITY_PROVIDER_REFUSED',
        resource: { type: 'USER', uuid: user.uuid },
        changes: [
          { op: 'test', path: '/identityProvider/alias', value: alias },
          { op: 'test', path: '/identityProvider/subject', value: subject },
        ],
      }),
    ),
  );
}
