import { ConflictError, errorMessage, type ErrorCode } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import type { OrgScope } from '../../domain/users/org-scope';
import type { Permission, UserRecord } from '../../domain/users/user.entities';
import { deleteUser } from '../users/user-lifecycle';
import { userPorts } from '../users/identity-provider.port';
import { userAuditWrites } from '../../domain/users/user-audit.repository';
import { findUserByEmail, getAdmins, saveUser } from '../../domain/users/user.repository';
import { OrgDirectory } from './bulk-create.rules';
import { readCsv, requireWithin, type UploadedFile } from './csv-file';
import { bulkPermissionLimits, permissionLayout } from './bulk.limits';

/**
 * Bulk deletion and bulk permission changes (docs/api/bulk.md#bulk-delete), in the scope of an ADMIN of the path's
 * organization: each item is handled on its own and the answer lists the items that failed. They act
 * at once (no worker): their inputs are small.
 */

/** An entry of these operations' error lists: the e-mail, a message, a stable code, and where it came from. */
export interface ItemError {
  email: string;
  message: string;
  errorCode: ErrorCode;
  /** The item's position in a JSON array (0-based) … */
  index?: number;
  /** … or its line in a CSV file. */
  line?: number;
}


const itemError = (email: string, errorCode: ErrorCode, where: { index?: number; line?: number }): ItemError => ({
  email,
  message: errorMessage(errorCode, 'item'),
  errorCode,
  ...where,
});

/**
 * Deletes the users with these e-mails, each exactly as `DELETE /users/{userId}` does. Errors: an
 * unknown e-mail, a user already deleted, the caller itself, and the last ADMIN. With `dryRun` the
 * same checks run and nothing changes.
 */
export async function bulkDelete(scope: OrgScope, emails: string[], dryRun: boolean): Promise<ItemError[]> {
  const { orgUuid } = scope;
  const errors: ItemError[] = [];
  const seen = new Set<string>();
  let admins = dryRun ? (await getAdmins(orgUuid)).size : 0;
  // One at a time, in order: the last-ADMIN rule then depends only on the order of the list.
  for (const [index, raw] of emails.entries()) {
    const email = raw.trim();
    const fail = (code: ErrorCode) => errors.push(itemError(email, code, { index }));
    const user = await findUserByEmail(orgUuid, email);
    if (!user) {
      fail('USER_NOT_FOUND');
      continue;
    }
    if (user.uuid === scope.caller.uuid) {
      fail('SELF_DELETE');
      continue;
    }
    if (user.status === 'DELETED' || seen.has(user.uuid)) {
      fail('USER_DELETED');
      continue;
    }
    seen.add(user.uuid);
    if (dryRun) {
      if (user.role === 'ADMIN' && admins <= 1) fail('LAST_ADMIN');
      else if (user.role === 'ADMIN') admins -= 1;
      continue;
    }
    try {
      await deleteUser(scope, user.uuid, userPorts());
    } catch (error) {
      const code = error instanceof ConflictError ? conflictCode(error.code) : 'FAILED';
      if (code === 'FAILED') logger.error('bulk delete: user not deleted', { orgUuid, userUuid: user.uuid, reason: (error as Error).name });
      fail(code);
    }
  }
  return errors;
}

function conflictCode(code: ErrorCode): ErrorCode {
  return code === 'LAST_ADMIN' || code === 'USER_DELETED' || code === 'SELF_DELETE' ? code : 'CHANGED_MEANWHILE';
}


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const grantId = (p: Permission) => `${p.environmentUuid}/${p.botUuid ?? '*'}`;

/**
 * Grants the permissions a CSV file lists (`Email, EnvironmentUuid, EnvironmentName, Bot`, one grant
 * per row; `Bot` left empty grants a SUPERVISOR the whole environment), under rules 5 to 7.
 */
export async function bulkGrant(scope: OrgScope, file: UploadedFile, dryRun: boolean): Promise<ItemError[]> {
  const { orgUuid } = scope;
  requireWithin(file, bulkPermissionLimits.maxBytes);
  const directory = new OrgDirectory(orgUuid);
  const errors: ItemError[] = [];
  const grants = new Map<string, { user: UserRecord; add: Permission[]; lines: number[] }>();
  const users = new Map<string, Promise<UserRecord | undefined>>();
  for await (const row of readCsv(file.content, permissionLayout, bulkPermissionLimits)) {
    const { Email: email, EnvironmentUuid, EnvironmentName, Bot } = row.values;
    const fail = (code: ErrorCode) => errors.push(itemError(email, code, { line: row.line }));
    const key = email.toLowerCase();
    if (!users.has(key)) users.set(key, findUserByEmail(orgUuid, email));
    const user = grantee(await users.get(key)!);
    if (typeof user === 'string') {
      fail(user);
      continue;
    }
    if (!EnvironmentUuid || !EnvironmentName) {
      fail('ENVIRONMENT_REQUIRED');
      continue;
    }
    if (!Bot && user.role !== 'SUPERVISOR') {
      fail('BOT_REQUIRED');
      continue;
    }
    const grant = { environmentUuid: EnvironmentUuid.toLowerCase(), ...(Bot ? { botUuid: Bot.toLowerCase() } : {}) };
    if (!UUID.test(grant.environmentUuid)) {
      fail('ENVIRONMENT_NOT_FOUND');
      continue;
    }
    if (grant.botUuid && !UUID.test(grant.botUuid)) {
      fail('BOT_NOT_FOUND');
      continue;
    }
    const problem = await directory.grantProblem({ ...grant, environmentName: EnvironmentName, line: row.line });
    if (problem) {
      fail(problem.code);
      continue;
    }
    const entry = grants.get(user.uuid) ?? { user, add: [], lines: [] };
    entry.add.push(grant);
    entry.lines.push(row.line);
    grants.set(user.uuid, entry);
  }
  if (!dryRun) {
    for (const { user, add, lines } of grants.values()) {
      const permissions = new Map(user.permissions.map((p) => [grantId(p), p]));
      for (const p of add) permissions.set(grantId(p), p);
      if (permissions.size === user.permissions.length) continue; // Every grant was there already.
      if (!(await replacePermissions(user, [...permissions.values()]))) {
        errors.push(itemError(user.email, 'CHANGED_MEANWHILE', { line: lines[0]! }));
      }
    }
  }
  return errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

export interface Revocation {
  email: string;
  environmentUuid?: string;
  bot?: string;
}

/**
 * Revokes permissions: the grant of a bot (`environmentUuid` and `bot`), every grant in an
 * environment (`environmentUuid` alone), or every grant of the user (`email` alone). A user may be
 * left with none: it then reaches no bot until granted one.
 */
export async function bulkRevoke(scope: OrgScope, items: Revocation[], dryRun: boolean): Promise<ItemError[]> {
  const { orgUuid } = scope;
  const errors: ItemError[] = [];
  // A dry run keeps what earlier items would have revoked, so it reports what the real run would.
  const dryPermissions = new Map<string, Permission[]>();
  for (const [index, item] of items.entries()) {
    const fail = (code: ErrorCode) => errors.push(itemError(item.email, code, { index }));
    const user = grantee(await findUserByEmail(orgUuid, item.email.trim()));
    if (typeof user === 'string') {
      fail(user);
      continue;
    }
    const env = item.environmentUuid?.toLowerCase();
    const bot = item.bot?.toLowerCase();
    const current = (dryRun && dryPermissions.get(user.uuid)) || user.permissions;
    const keep = current.filter((p) => {
      if (!env) return false;
      if (p.environmentUuid !== env) return true;
      return bot ? p.botUuid !== bot : false;
    });
    if (keep.length === current.length) {
      // Nothing to revoke: a grant the user does not have is an error; "every grant" of none is done.
      if (env) fail('GRANT_NOT_FOUND');
      continue;
    }
    if (dryRun) dryPermissions.set(user.uuid, keep);
    else if (!(await replacePermissions(user, keep))) fail('CHANGED_MEANWHILE');
  }
  return errors;
}

/** The user whose permissions an item changes, or why they cannot change: it is not there, or an ADMIN (who has them all). */
function grantee(user: UserRecord | undefined): UserRecord | ErrorCode {
  if (!user || user.status === 'DELETED') return 'USER_NOT_FOUND';
  return user.role === 'ADMIN' ? 'ADMIN_HAS_ALL' : user;
}

/** Writes a user's new permissions, conditioned on the record it read, with its USER_UPDATED event. */
async function replacePermissions(user: UserRecord, permissions: Permission[]): Promise<boolean> {
  const updated: UserRecord = { ...user, permissions, updatedAt: new Date().toISOString() };
  return saveUser(updated, user, { alongside: userAuditWrites('USER_UPDATED', user, updated) });
}
