import { randomInt } from 'node:crypto';
import { requireAdmin, requireOrganization } from '../access/org-access';
import { revokeSessionsOf } from '../auth/session.repository';
import type { Caller } from '../auth/caller';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { pageOf, type Page } from '../http/page';
import { cognitoIdentityProvider, type IdentityProvider } from '../identity/identity-provider';
import type { Language, MailKind } from '../mail/mail.templates';
import { sendSafely, sesMailer, type Mailer } from '../mail/mailer';
import { getOrganization } from '../org/org.repository';
import { keys } from '../store/keys';
import { getItems } from '../store/table';
import { compareText, fold, quickMatches } from '../text/matching';
import { grantProblems, resolveAccess, sameAccess, type Access, type AccessInput } from './access-template';
import { readDirectory, type DirectoryEntry } from './user-directory';
import type { UserRecord } from './user.entities';
import {
  addAdmin,
  findUserByEmail,
  getUser,
  releaseClaim,
  removeAdmin,
  sameEmail,
  saveUser,
} from './user.repository';
import { claimEmailFor, registerUser } from './user.service';

/**
 * User administration (spec 4.3): ADMIN's, except that every user reads and updates itself. Another
 * organization, in the path or as the user's, answers 404.
 */

/** The ports these operations reach beyond the store; tests swap them to inject failures. */
export interface UserPorts {
  identityProvider: IdentityProvider;
  mailer: Mailer;
}

let defaultPorts: UserPorts | undefined;
/** The identity provider and mailer of this process (Cognito and SES, or their emulators). */
export const userPorts = (): UserPorts => (defaultPorts ??= { identityProvider: cognitoIdentityProvider, mailer: sesMailer() });
const ports = userPorts;

/** Where and how the request's user e-mails are written: the `language` header and the sign-in address. */
export interface MailContext {
  language: Language;
  /** The sign-in address for a realm (the console, or the realm's token endpoint). */
  signInUrl: (realm: string) => string;
  /** The organization's realm name, when the caller has it already (a bulk job reads it once). */
  realm?: string;
}

async function requireUser(orgUuid: string, userUuid: string): Promise<UserRecord> {
  const user = await getUser(orgUuid, userUuid);
  if (!user) throw new NotFoundError('The user was not found');
  return user;
}

// ---------------------------------------------------------------------------------------------------
// Listing and quicksearch: one read of the organization's directory, then only the page's users.

export type UserOrder = 'createdAt' | 'name' | 'email' | 'company';

export interface UserListQuery {
  page: number;
  linesPerPage: number;
  orderBy: UserOrder;
  direction: 'ASC' | 'DESC';
  searchTerms?: string;
  status: 'ACTIVE' | 'DELETED' | 'ALL';
}

const comparators: Record<UserOrder, (a: DirectoryEntry, b: DirectoryEntry) => number> = {
  createdAt: (a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0),
  name: (a, b) => compareText(a.name, b.name),
  email: (a, b) => compareText(a.email, b.email),
  company: (a, b) => compareText(a.company, b.company),
};

/**
 * A page of users (0-based). Reads: the directory's shards (one BatchGetItem), then the page's users
 * (one BatchGetItem of at most `linesPerPage` items).
 */
export async function listUsers(caller: Caller, orgUuid: string, query: UserListQuery): Promise<Page<UserRecord>> {
  requireAdmin(caller, orgUuid);
  const words = fold(query.searchTerms ?? '').split(/\s+/).filter(Boolean);
  const matches = (entry: DirectoryEntry) => {
    if (query.status !== 'ALL' && entry.status !== query.status) return false;
    if (words.length === 0) return true;
    const text = fold(`${entry.name}\n${entry.email}\n${entry.company}`);
    return words.every((word) => text.includes(word));
  };
  const sign = query.direction === 'ASC' ? 1 : -1;
  const compare = comparators[query.orderBy];
  const found = (await readDirectory(orgUuid))
    .filter(matches)
    .sort((a, b) => sign * (compare(a, b) || comparators.createdAt(a, b) || (a.uuid < b.uuid ? -1 : 1)));

  const slice = found.slice(query.page * query.linesPerPage, (query.page + 1) * query.linesPerPage);
  const users = await getItems<UserRecord>(slice.map((entry) => keys.userKey(orgUuid, entry.uuid)));
  const byUuid = new Map(users.map((user) => [user.uuid, user]));
  const content = slice.flatMap((entry) => byUuid.get(entry.uuid) ?? []);
  return pageOf(content, found.length, query.page, query.linesPerPage, 0);
}

/** Names of the organization's active users matching the quicksearch rule, alphabetical. Reads: the directory. */
export async function quicksearchUsers(caller: Caller, orgUuid: string, term: string, limit: number): Promise<string[]> {
  requireAdmin(caller, orgUuid);
  return (await readDirectory(orgUuid))
    .filter((entry) => entry.status === 'ACTIVE' && quickMatches(term, entry.name))
    .map((entry) => entry.name)
    .sort(compareText)
    .slice(0, limit);
}

// ---------------------------------------------------------------------------------------------------
// Reads and writes of one user.

export interface UserFields {
  name: string;
  email: string;
  image?: string | null;
  company?: string | null;
  password?: string;
}

/** A user of the caller's organization: ADMIN reads anyone, every user reads itself. Reads: the user. */
export async function readUser(caller: Caller, orgUuid: string, userUuid: string): Promise<UserRecord> {
  requireOrganization(caller, orgUuid);
  if (caller.user.role !== 'ADMIN' && caller.user.uuid !== userUuid) {
    throw new ForbiddenError('Only an ADMIN reads other users');
  }
  return userUuid === caller.user.uuid ? caller.user : requireUser(orgUuid, userUuid);
}

function accessOrThrow(input: AccessInput, current?: Access): Access {
  const access = resolveAccess(input, current);
  if (Array.isArray(access)) throw new ValidationError(access);
  return access;
}

async function checkGrants(orgUuid: string, access: Access): Promise<void> {
  const problems = await grantProblems(orgUuid, access.permissions);
  if (problems.length > 0) throw new ValidationError(problems);
}

/** `image` and `company`: left out keeps the value, `null` or blank clears it. */
function optionalText(next: string | null | undefined, current: string | undefined): { value?: string } {
  if (next === undefined) return current === undefined ? {} : { value: current };
  const trimmed = next?.trim();
  return trimmed ? { value: trimmed } : {};
}

function withFields(user: UserRecord, fields: Partial<UserFields>, access: Access, now: string): UserRecord {
  const { image: _image, company: _company, ...rest } = user;
  const image = optionalText(fields.image, user.image).value;
  const company = optionalText(fields.company, user.company).value;
  return {
    ...rest,
    ...(fields.name !== undefined ? { name: fields.name.trim() } : {}),
    ...(fields.email !== undefined ? { email: fields.email.trim() } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(company !== undefined ? { company } : {}),
    role: access.role,
    permissions: access.permissions,
    updatedAt: now,
  };
}

/** A password the welcome e-mail carries when the ADMIN set none: 16 characters meeting the policy. */
export function generatePassword(): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!#%+-=?@'];
  const all = sets.join('');
  const chars = sets.map((set) => set[randomInt(set.length)]!);
  while (chars.length < 16) chars.push(all[randomInt(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

/** The sign-in address of a realm, from a template where `{realm}` stands for the realm's name. */
export const signInAddress =
  (template: string) =>
  (realm: string): string =>
    template.replaceAll('{realm}', encodeURIComponent(realm));

/** Sends a user the e-mail of `kind`; never throws (see `sendSafely`). */
export async function mailUser(kind: MailKind, user: UserRecord, mail: MailContext, mailer: Mailer, password?: string) {
  const realm = mail.realm ?? (await getOrganization(user.orgUuid))?.name ?? '';
  await sendSafely(
    mailer,
    {
      to: user.email,
      kind,
      language: mail.language,
      vars: { name: user.name, realm, email: user.email, signInUrl: mail.signInUrl(realm), ...(password ? { password } : {}) },
    },
    { orgUuid: user.orgUuid, userUuid: user.uuid },
  );
}

/**
 * Creates a user (ADMIN): registers it in the store and the identity provider, then sends the welcome
 * e-mail with its sign-in details (the password the ADMIN set, or a generated one).
 */
export async function createUser(
  caller: Caller,
  orgUuid: string,
  input: UserFields & AccessInput,
  mail: MailContext,
  deps: UserPorts = ports(),
): Promise<UserRecord> {
  requireAdmin(caller, orgUuid);
  const access = accessOrThrow(input);
  await checkGrants(orgUuid, access);
  const password = input.password ?? generatePassword();
  const image = optionalText(input.image, undefined).value;
  const company = optionalText(input.company, undefined).value;
  const user = await registerUser(
    { orgUuid, name: input.name, email: input.email, password, ...access, ...(image ? { image } : {}), ...(company ? { company } : {}) },
    deps.identityProvider,
  );
  await mailUser('welcome', user, mail, deps.mailer, password);
  return user;
}

/**
 * Updates a user: an ADMIN anyone of the organization (never its own role), a user its own name,
 * image, company and password. A new e-mail is claimed before the identity provider is told and the
 * old one given up after the user is written, so the e-mail stays unique at every step.
 */
export async function updateUser(
  caller: Caller,
  orgUuid: string,
  userUuid: string,
  input: UserFields & AccessInput,
  deps: UserPorts = ports(),
): Promise<UserRecord> {
  requireOrganization(caller, orgUuid);
  const isAdmin = caller.user.role === 'ADMIN';
  const isSelf = caller.user.uuid === userUuid;
  if (!isAdmin && !isSelf) throw new ForbiddenError('Only an ADMIN updates other users');
  const target = await requireUser(orgUuid, userUuid);
  if (target.status === 'DELETED') throw new ConflictError('USER_DELETED');

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
      if ((await removeAdmin(orgUuid, userUuid)) === 'last') throw new ConflictError('LAST_ADMIN');
      undo.push(() => addAdmin(orgUuid, userUuid));
    }
    if (email !== target.email) {
      await deps.identityProvider.updateEmail(userUuid, email);
      undo.push(() => deps.identityProvider.updateEmail(userUuid, target.email));
    }
    // Last of the identity-provider steps: a password cannot be put back.
    if (input.password) await deps.identityProvider.setPassword(userUuid, input.password);
    if (!(await saveUser(updated, target, emailChanged ? { claimedEmail: email } : {}))) {
      throw new ConflictError('VERSION_CONFLICT', 'The user changed while it was being updated; read it and try again');
    }
  } catch (error) {
    for (const step of undo.reverse()) await step();
    throw error;
  }
  // After the user holds the new e-mail: a crash here leaves a claim no user backs, which the next
  // claim of that e-mail takes over.
  if (emailChanged) await releaseClaim(orgUuid, target.email, userUuid, 'DONE');
  // A new password ends the user's refresh sessions: whoever knew the old one signs in again.
  if (input.password) await revokeSessionsOf(userUuid);
  return updated;
}

/**
 * Deletes a user logically (ADMIN): its record stays, the identity provider refuses it, its refresh
 * sessions end, and its access tokens stop at the next request (every request loads the user).
 */
export async function deleteUser(
  caller: Caller,
  orgUuid: string,
  userUuid: string,
  deps: UserPorts = ports(),
): Promise<void> {
  requireAdmin(caller, orgUuid);
  const target = await requireUser(orgUuid, userUuid);
  if (userUuid === caller.user.uuid) throw new ConflictError('SELF_DELETE');
  if (target.status === 'DELETED') throw new ConflictError('USER_DELETED', 'The user is already deleted');

  let removedAdmin = false;
  if (target.role === 'ADMIN') {
    const outcome = await removeAdmin(orgUuid, userUuid);
    if (outcome === 'last') throw new ConflictError('LAST_ADMIN');
    removedAdmin = outcome === 'removed';
  }
  const deleted: UserRecord = { ...target, status: 'DELETED', updatedAt: new Date().toISOString() };
  let disabled = false;
  try {
    await deps.identityProvider.disable(userUuid);
    disabled = true;
    if (!(await saveUser(deleted, target))) {
      throw new ConflictError('VERSION_CONFLICT', 'The user changed while it was being deleted; read it and try again');
    }
  } catch (error) {
    if (disabled) await deps.identityProvider.enable(userUuid);
    if (removedAdmin) await addAdmin(orgUuid, userUuid);
    throw error;
  }
  await revokeSessionsOf(userUuid);
}

/**
 * Restores a deleted user named by e-mail (ADMIN), optionally with a new password and new fields,
 * re-enables it in the identity provider and sends the reactivation e-mail.
 */
export async function activateUser(
  caller: Caller,
  orgUuid: string,
  input: Partial<UserFields> & { email: string } & AccessInput,
  mail: MailContext,
  deps: UserPorts = ports(),
): Promise<UserRecord> {
  requireAdmin(caller, orgUuid);
  const target = await findUserByEmail(orgUuid, input.email.trim());
  if (!target) throw new NotFoundError('No user of the organization has this e-mail');
  if (target.status === 'ACTIVE') throw new ConflictError('USER_ACTIVE');

  const access = accessOrThrow(input, target);
  if (!sameAccess(access, target)) await checkGrants(orgUuid, access);
  const { email: _email, ...fields } = input;
  const restored: UserRecord = { ...withFields(target, fields, access, new Date().toISOString()), status: 'ACTIVE' };

  // Enabling can be undone, a new password cannot: enable first, set the password last.
  await deps.identityProvider.enable(target.uuid);
  try {
    if (input.password) await deps.identityProvider.setPassword(target.uuid, input.password);
    if (!(await saveUser(restored, target))) {
      throw new ConflictError('VERSION_CONFLICT', 'The user changed while it was being reactivated; read it and try again');
    }
  } catch (error) {
    await deps.identityProvider.disable(target.uuid);
    throw error;
  }
  await mailUser('reactivation', restored, mail, deps.mailer, input.password);
  return restored;
}
