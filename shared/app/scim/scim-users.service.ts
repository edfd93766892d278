import { BadRequestError, ConflictError } from '../../kernel/errors';
import { sameAccess } from '../../domain/users/access-template';
import { accessOrThrow } from '../../domain/users/user-changes';
import { activateUser, createUser, deleteUser, updateUser, type MailRequestContext } from '../users/user-lifecycle';
import { entriesByCreation, readUserCount } from '../../domain/users/user-index.repository';
import type { UserRecord } from '../../domain/users/user.entities';
import { findUserByEmail, getUsers, requireUser } from '../../domain/users/user.repository';
import { filterableOf, matching, parseFilter, SCAN_MAX_USERS, type Filterable } from './scim-filter';
import { checkEnterpriseResource } from './scim-enterprise';
import { checkedPatch, patchedName } from './scim-patch';
import { projectionOf, type AttributeSelection } from './scim-projection';
import { SCIMMY } from './scim-schema';
import type { ScimCaller } from './scim-tokens';
import { desiredOf, toScimUser, versionOf, type DesiredUser } from './scim-user.mapper';
import { groupDigits } from '../../kernel/text/numbers';

export { versionOf, type UserRecord };

/**
 * SCIM Users (RFC 7644 §3) as the users area's own use cases: a creation is `createUser`, a change
 * `updateUser`, `active: false` and DELETE `deleteUser`, `active: true` `activateUser`, each with the
 * same validation, transaction, audit event and e-mails as the matching user operation. This module
 * only translates: SCIM resources to the users' fields, and filters to reads of the users index.
 */

/** What a SCIM request brings besides its body: the token's scope, where its resources live, and its e-mails' context. */
export interface ScimContext {
  caller: ScimCaller;
  baseUrl: string;
  mail: MailRequestContext;
}

/**
 * A resource as validated by scimmy's User schema (with the access and enterprise extensions), the
 * enterprise extension checked strictly first (scimmy drops what it does not know); 400 `invalidValue`
 * otherwise.
 */
function incomingUser(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequestError({ code: 'INVALID_VALUE', message: 'The body must be a SCIM User (a JSON object)' });
  checkEnterpriseResource(body as Record<string, unknown>);
  try {
    return JSON.parse(JSON.stringify(new SCIMMY.Schemas.User(body, 'in'))) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) throw error;
    throw new BadRequestError({ code: 'INVALID_VALUE', message: 'The body is not a SCIM User this service provider reads: check it against GET /Schemas', cause: error });
  }
}

/** The user of the organization with this id, active or not. */
export const readScimUser = (context: ScimContext, id: string): Promise<UserRecord> => requireUser(context.caller.scope.orgUuid, id);

/** 412 unless `ifMatch` (when sent) names the user's current version. */
export function checkVersion(user: UserRecord, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const asked = ifMatch.split(',').map((tag) => tag.trim());
  if (!asked.includes(versionOf(user))) throw new ConflictError({ code: 'VERSION_CONFLICT' });
}

/** POST /Users: `createUser`, with the token's default access when the resource carries no extension. */
export async function createScimUser(context: ScimContext, body: unknown): Promise<UserRecord> {
  const desired = desiredOf(incomingUser(body));
  const { scope, token } = context.caller;
  const access = desired.access ?? token.defaultAccess;
  if (!access) {
    throw new BadRequestError({ code: 'INVALID_VALUE', message: 'Give the user a role in the access extension, or issue the SCIM token with a defaultAccess for users created without it' });
  }
  const created = await createUser(scope, { name: desired.name, email: desired.email, ...(desired.externalId ? { externalId: desired.externalId } : {}), ...access }, context.mail);
  // A directory may provision a user it has disabled: created, then deactivated as DELETE …/users/{id} does.
  if (!desired.active) return deactivate(context, created);
  return created;
}

/** PUT /Users/{id}: the resource replaces the user's SCIM attributes (access left out stays as it is). */
export async function replaceScimUser(context: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<UserRecord> {
  const current = await readScimUser(context, id);
  checkVersion(current, ifMatch);
  return apply(context, current, desiredOf(incomingUser(body), current));
}

/**
 * PATCH /Users/{id}: the operations, checked and spelled canonically (`scim-patch.ts`), applied by
 * scimmy to the user as SCIM shows it, all in memory, so one invalid operation refuses the request
 * whole; the result is then one change of the user, as PUT. A message whose operations change nothing
 * (the enterprise extension's alone, or values the user already has) leaves the user as it is.
 */
export async function patchScimUser(context: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<UserRecord> {
  const current = await readScimUser(context, id);
  checkVersion(current, ifMatch);
  const request = checkedPatch(body);
  if (request.Operations.length === 0) return current;
  const before = toScimUser(current, context.baseUrl);
  let patched: Record<string, unknown>;
  try {
    const message = new SCIMMY.Messages.PatchOp(request as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]);
    const resource = new SCIMMY.Schemas.User(before, 'out');
    // scimmy answers nothing when the operations changed nothing: the resource as it was.
    const applied = (await message.apply(resource, async (instance) => instance)) ?? resource;
    patched = JSON.parse(JSON.stringify(applied)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) throw error;
    throw new BadRequestError({ code: 'INVALID_PATCH', message: 'The operations could not be applied to the user: check each path and value against GET /Schemas', cause: error });
  }
  return apply(context, current, { ...desiredOf(patched, current), name: patchedName(before, patched, current.name) });
}

/** DELETE /Users/{id}: the logical delete of DELETE …/users/{id} (the user keeps its record; reads answer active: false). */
export async function deleteScimUser(context: ScimContext, id: string, ifMatch?: string): Promise<void> {
  const current = await readScimUser(context, id);
  checkVersion(current, ifMatch);
  if (current.status === 'ACTIVE') await deleteUser(context.caller.scope, id);
}

const deactivate = async (context: ScimContext, user: UserRecord): Promise<UserRecord> => {
  await deleteUser(context.caller.scope, user.uuid);
  return readScimUser(context, user.uuid);
};

function changes(current: UserRecord, desired: DesiredUser): { fields: boolean; access: boolean } {
  const access = desired.access ? accessOrThrow(desired.access, current) : current;
  return {
    fields: desired.name !== current.name || desired.email !== current.email || (desired.externalId ?? undefined) !== current.externalId,
    access: !sameAccess(access, current),
  };
}

/** Brings the user to what the resource describes with the users area's use cases, in the order that keeps each valid. */
async function apply(context: ScimContext, current: UserRecord, desired: DesiredUser): Promise<UserRecord> {
  const { scope } = context.caller;
  const changed = changes(current, desired);
  const fields = { name: desired.name, email: desired.email, externalId: desired.externalId, ...desired.access };
  if (current.status === 'DELETED') {
    if (!desired.active) {
      if (changed.fields || changed.access) throw new ConflictError({ code: 'USER_DELETED', message: 'The user is deactivated: set active to true to change it' });
      return current;
    }
    // Reactivation takes the fields with it, as PUT …/users/activate does; an e-mail change follows it.
    const restored = await activateUser(scope, { ...fields, email: current.email }, context.mail);
    return desired.email === restored.email ? restored : updateUser(scope, restored.uuid, fields);
  }
  const updated = changed.fields || changed.access ? await updateUser(scope, current.uuid, fields) : current;
  return desired.active ? updated : deactivate(context, updated);
}

export interface ScimSearch {
  filter?: string;
  startIndex: number;
  count: number;
}

/**
 * GET /Users: the users matching the filter in creation order, the page from `startIndex` (1-based),
 * and how many match. Without a filter: the first `startIndex - 1 + count` entries of each status's
 * listing and the user count. A filter naming one e-mail per group: the claims of those e-mails. Any
 * other filter: the listing entries, whole, of an organization of at most `SCAN_MAX_USERS` users
 * (400 `tooMany` beyond, before anything is read but the count).
 */
export async function searchScimUsers(context: ScimContext, search: ScimSearch): Promise<{ users: UserRecord[]; total: number }> {
  const { orgUuid } = context.caller.scope;
  const offset = search.startIndex - 1;
  if (search.filter === undefined || search.filter.trim() === '') {
    if (offset + search.count > SCAN_MAX_USERS) throw tooBroad();
    if (search.count === 0) {
      const count = await readUserCount(orgUuid);
      return { users: [], total: (count.ACTIVE ?? 0) + (count.DELETED ?? 0) };
    }
    const { entries, total } = await entriesByCreation(orgUuid, offset + search.count);
    return { users: await getUsers(orgUuid, entries.slice(offset).map((entry) => entry.uuid)), total };
  }
  const filter = parseFilter(search.filter);
  if (filter.emails) {
    const found = (await Promise.all(filter.emails.map((email) => findUserByEmail(orgUuid, email)))).filter((user): user is UserRecord => user !== undefined);
    const unique = [...new Map(found.map((user) => [user.uuid, user])).values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const byUuid = new Map(unique.map((user) => [user.uuid, user]));
    const matched = matching(filter, unique.map((user) => filterableOf({ ...user, company: user.company ?? '' })));
    return { users: matched.slice(offset, offset + search.count).map((value) => byUuid.get(value.id)!), total: matched.length };
  }
  const count = await readUserCount(orgUuid);
  if ((count.ACTIVE ?? 0) + (count.DELETED ?? 0) > SCAN_MAX_USERS) throw tooBroad();
  const { entries } = await entriesByCreation(orgUuid);
  // Entries written before they kept `updatedAt`: their users' last change is read from the users.
  const stale = filter.readsLastModified ? entries.filter((entry) => entry.updatedAt === undefined) : [];
  const updatedAt = new Map((await getUsers(orgUuid, stale.map((entry) => entry.uuid))).map((user) => [user.uuid, user.updatedAt]));
  const values: Filterable[] = entries.map((entry) => filterableOf({ ...entry, updatedAt: entry.updatedAt ?? updatedAt.get(entry.uuid) ?? entry.createdAt }));
  const matched = matching(filter, values);
  const page = matched.slice(offset, offset + search.count).map((value) => value.id);
  return { users: await getUsers(orgUuid, page), total: matched.length };
}

const tooBroad = () => new BadRequestError({ code: 'FILTER_TOO_BROAD', message: `The organization has more than ${groupDigits(SCAN_MAX_USERS)} users: filter by userName or emails.value with eq, or page within the first ${groupDigits(SCAN_MAX_USERS)}` });

/** The users as SCIM Users, with only the attributes the request selects (`id` and `schemas` always). */
export function renderScimUsers(users: UserRecord[], baseUrl: string, selection: AttributeSelection = {}): Record<string, unknown>[] {
  const project = projectionOf(selection);
  return users.map((user) => project(toScimUser(user, baseUrl) as unknown as Record<string, unknown>));
}
