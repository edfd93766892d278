import type { OrgScope } from '../../domain/users/org-scope';
import { revokeSessionsOf } from '../../domain/sessions/session-revocation.repository';
import { ConflictError, ForbiddenError, NotFoundError } from '../../kernel/errors';
import { sameAccess, type AccessInput } from '../../domain/users/access-template';
import { passwordPolicy } from '../../domain/users/password-policy.port';
import { userAuditWrites } from '../../domain/users/user-audit.repository';
import { accessOrThrow, checkGrants, optionalTexts, withFields, type UserFields } from '../../domain/users/user-changes';
import { queueUserMails, type MailContext } from './user-mail';

/** What a request says of the e-mails it causes: their language (the `language` header). */
export type MailRequestContext = Pick<MailContext, 'language'>;
import { userPorts, type UserPorts } from './identity-provider.port';
import { requireUser } from '../../domain/users/user.repository';
import { claimEmailFor, registerUser } from './user-registration';
import type { UserRecord } from '../../domain/users/user.entities';
import { addAdmin, findUserByEmail, removeAdmin, sameEmail, saveUser, stampCredentials } from '../../domain/users/user.repository';
import { releaseClaim } from '../../domain/users/user-email-claims.repository';
import { count } from '../../kernel/metrics';

/**
 * A user's lifecycle (docs/api/users.md): creation, update, logical deletion and reactivation, each a sequence of
 * store and identity-provider steps undone in reverse when a later one fails. The handler authorizes
 * the scope: ADMIN's, except that a user updates itself.
 */

/**
 * Creates a user: registers it in the store and the identity provider, then queues the welcome e-mail
 * with its sign-in details (the password the ADMIN set, or a generated one).
 */
export async function createUser(
  scope: OrgScope,
  input: UserFields & AccessInput,
  mail: MailRequestContext,
  deps: UserPorts = userPorts(),
): Promise<UserRecord> {
  const { orgUuid } = scope;
  const access = accessOrThrow(input);
  await checkGrants(orgUuid, access);
  const password = input.password ?? passwordPolicy.generate();
  const user = await registerUser(
    {
      orgUuid,
      name: input.name,
      email: input.email,
      password,
      temporaryPassword: !input.password,
      ...access,
      ...optionalTexts(input),
    },
    deps.identityProvider,
  );
  count('UsersCreated');
  // The e-mail waits in the mail queue for its turn at SES's rate: the answer does not.
  await queueUserMails([{ kind: 'welcome', orgUuid, userUuid: user.uuid, language: mail.language, password: { value: password, temporary: !input.password } }]);
  return user;
}

/**
 * Updates a user: an ADMIN anyone of the organization (never its own role), a user its own name,
 * image, company and password. A new e-mail is claimed before the identity provider is told and the
 * old one given up after the user is written, so the e-mail stays unique at every step.
 */
export async function updateUser(
  scope: OrgScope,
  userUuid: string,
  input: UserFields & AccessInput,
  deps: UserPorts = userPorts(),
): Promise<UserRecord> {
  const { orgUuid, isAdmin } = scope;
  const isSelf = scope.caller.uuid === userUuid;
  if (!isAdmin && !isSelf) throw new ForbiddenError('Only an ADMIN updates other users');
  const target = await requireUser(orgUuid, userUuid);
  if (target.status === 'DELETED') throw new ConflictError({ code: 'USER_DELETED' });

  const access = accessOrThrow(input, target);
  const accessChanged = !sameAccess(access, target);
  if (accessChanged && isSelf) throw new ForbiddenError('You may not change your own role or permissions');
  const email = input.email.trim();
  const emailChanged = !sameEmail(email, target.email);
  if (emailChanged && !isAdmin) throw new ForbiddenError('Only an ADMIN changes a user\u2019s e-mail');
  if (accessChanged) await checkGrants(orgUuid, access);

  const now = new Date().toISOString();
  const updated = withFields(target, input, access, now);
  const undo: (() => Promise<void>)[] = [];
  try {
    if (emailChanged) {
      await claimEmailFor(orgUuid, email, userUuid, now, { adoptAbandoned: false });
      undo.push(() => releaseClaim(orgUuid, email, userUuid));
    }
    if (target.role === 'ADMIN' && access.role !== 'ADMIN') {
      if ((await removeAdmin(orgUuid, userUuid)) === 'last') throw new ConflictError({ code: 'LAST_ADMIN' });
      undo.push(() => addAdmin(orgUuid, userUuid));
    }
    if (email !== target.email) {
      await deps.identityProvider.updateEmail(userUuid, email);
      undo.push(() => deps.identityProvider.updateEmail(userUuid, target.email));
    }
    // Last of the identity-provider steps: a password cannot be put back. Its stamp ends every session
    // begun before, those of sign-ins still in flight with the old password included.
    if (input.password) {
      await deps.identityProvider.setPassword(userUuid, input.password);
      updated.credentialsChangedAt = await stampCredentials(orgUuid, userUuid);
    }
    const alongside = userAuditWrites('USER_UPDATED', target, updated, { passwordSet: input.password !== undefined });
    if (!(await saveUser(updated, target, { ...(emailChanged ? { claimedEmail: email } : {}), alongside }))) {
      throw new ConflictError({ code: 'VERSION_CONFLICT', message: 'The user changed while it was being updated; read it and try again' });
    }
  } catch (error) {
    for (const step of undo.reverse()) await step();
    throw error;
  }
  // After the user holds the new e-mail: a crash here leaves a claim no user backs, which the next
  // claim of that e-mail takes over.
  if (emailChanged) await releaseClaim(orgUuid, target.email, userUuid, 'DONE');
  // A new password ends the user's sessions: whoever knew the old one signs in again.
  if (input.password) await revokeSessionsOf(userUuid);
  count('UsersUpdated');
  return updated;
}

/**
 * Deletes a user logically: its record stays, the identity provider refuses it, its refresh sessions
 * end, and its access tokens stop at the next request (every request loads the user).
 */
export async function deleteUser(scope: OrgScope, userUuid: string, deps: UserPorts = userPorts()): Promise<void> {
  const { orgUuid } = scope;
  const target = await requireUser(orgUuid, userUuid);
  if (userUuid === scope.caller.uuid) throw new ConflictError({ code: 'SELF_DELETE' });
  if (target.status === 'DELETED') throw new ConflictError({ code: 'USER_DELETED', message: 'The user is already deleted' });

  let removedAdmin = false;
  if (target.role === 'ADMIN') {
    const outcome = await removeAdmin(orgUuid, userUuid);
    if (outcome === 'last') throw new ConflictError({ code: 'LAST_ADMIN' });
    removedAdmin = outcome === 'removed';
  }
  const deleted: UserRecord = { ...target, status: 'DELETED', updatedAt: new Date().toISOString() };
  let disabled = false;
  try {
    await deps.identityProvider.disable(userUuid);
    disabled = true;
    // Every session begun before ends, even one the revocation below cannot see yet, and stays ended if the user is reactivated.
    deleted.credentialsChangedAt = await stampCredentials(orgUuid, userUuid);
    if (!(await saveUser(deleted, target, { alongside: userAuditWrites('USER_DELETED', target, deleted) }))) {
      throw new ConflictError({ code: 'VERSION_CONFLICT', message: 'The user changed while it was being deleted; read it and try again' });
    }
  } catch (error) {
    if (disabled) await deps.identityProvider.enable(userUuid);
    if (removedAdmin) await addAdmin(orgUuid, userUuid);
    throw error;
  }
  count('UsersDeleted');
  await revokeSessionsOf(userUuid);
}

/**
 * Restores a deleted user named by e-mail, optionally with a new password and new fields, re-enables
 * it in the identity provider and sends the reactivation e-mail.
 */
export async function activateUser(
  scope: OrgScope,
  input: Partial<UserFields> & { email: string } & AccessInput,
  mail: MailRequestContext,
  deps: UserPorts = userPorts(),
): Promise<UserRecord> {
  const { orgUuid } = scope;
  const target = await findUserByEmail(orgUuid, input.email.trim());
  if (!target) throw new NotFoundError('No user of the organization has this e-mail');
  if (target.status === 'ACTIVE') throw new ConflictError({ code: 'USER_ACTIVE' });

  const access = accessOrThrow(input, target);
  if (!sameAccess(access, target)) await checkGrants(orgUuid, access);
  const { email: _email, ...fields } = input;
  const restored: UserRecord = { ...withFields(target, fields, access, new Date().toISOString()), status: 'ACTIVE' };

  // Enabling can be undone, a new password cannot: enable first, set the password last.
  await deps.identityProvider.enable(target.uuid);
  try {
    if (input.password) {
      await deps.identityProvider.setPassword(target.uuid, input.password);
      restored.credentialsChangedAt = await stampCredentials(orgUuid, target.uuid);
    }
    const alongside = userAuditWrites('USER_REACTIVATED', target, restored, { passwordSet: input.password !== undefined });
    if (!(await saveUser(restored, target, { alongside }))) {
      throw new ConflictError({ code: 'VERSION_CONFLICT', message: 'The user changed while it was being reactivated; read it and try again' });
    }
  } catch (error) {
    await deps.identityProvider.disable(target.uuid);
    throw error;
  }
  count('UsersReactivated');
  const password = input.password === undefined ? {} : { password: { value: input.password, temporary: false } };
  await queueUserMails([{ kind: 'reactivation', orgUuid, userUuid: restored.uuid, language: mail.language, ...password }]);
  return restored;
}
