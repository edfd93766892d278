import type { FieldIssue } from '../../kernel/errors';
import { getBot, getEnvironment } from '../org/org.repository';
import type { Permission, Role, UserRecord } from './user.entities';

/**
 * The access template of the create, update and activate bodies (docs/api/users.md): `role`,
 * the legacy `admin` flag, and `permissions`, under bulk-create rules 4 to 7.
 */
export interface AccessInput {
  role?: Role;
  admin?: boolean;
  permissions?: Permission[];
}

export interface Access {
  role: Role;
  permissions: Permission[];
}

/** A role's name with its article, as read aloud: an ADMIN, an EDITOR, a VIEWER, a SUPERVISOR. */
const withArticle = (role: Role) => `${/^[AEIOU]/.test(role) ? 'An' : 'A'} ${role}`;

const issue = (fieldName: string, message: string, errorCode: FieldIssue['errorCode'] = 'FIELD_INVALID'): FieldIssue => ({
  fieldName,
  message,
  errorCode,
});

/**
 * The role and permissions a body asks for, given what the user has now (`current`, absent on
 * creation): fields left out keep their current value. Returns the problems instead when the body
 * breaks a rule (4: one role of the four; 5: VIEWER and EDITOR name a bot; 6: SUPERVISOR names an
 * environment; an ADMIN reaches the whole organization, so it has no permissions).
 */
export function resolveAccess(input: AccessInput, current?: Access): Access | FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (input.role && input.admin !== undefined && input.admin !== (input.role === 'ADMIN')) {
    issues.push(issue('admin', 'Must agree with role: true for an ADMIN, false otherwise'));
  }
  const role: Role | undefined =
    input.role ?? (input.admin === true ? 'ADMIN' : input.admin === false && current?.role === 'ADMIN' ? undefined : current?.role);
  if (!role) {
    issues.push(issue('role', 'Give a role (ADMIN, SUPERVISOR, EDITOR or VIEWER), or admin: true', 'FIELD_REQUIRED'));
    return issues;
  }

  const permissions = dedupe(input.permissions ?? (role === 'ADMIN' || current?.role === 'ADMIN' ? [] : (current?.permissions ?? [])));
  // Access the body leaves as it is stays, even if it predates these rules: only a change is checked.
  if (current && issues.length === 0 && sameAccess({ role, permissions }, current)) return current;
  if (role === 'ADMIN' && permissions.length > 0) {
    issues.push(issue('permissions', 'An ADMIN reaches the whole organization: leave permissions empty'));
  }
  if (role !== 'ADMIN' && permissions.length === 0) {
    const what = role === 'SUPERVISOR' ? 'an environment' : 'a bot';
    issues.push(issue('permissions', `${withArticle(role)} needs at least one permission naming ${what}`, 'FIELD_REQUIRED'));
  }
  if (role === 'VIEWER' || role === 'EDITOR') {
    permissions.forEach((permission, i) => {
      if (!permission.botUuid) {
        issues.push(issue(`permissions.${i}.botUuid`, `${withArticle(role)} is granted bots: botUuid is required`, 'FIELD_REQUIRED'));
      }
    });
  }
  return issues.length > 0 ? issues : { role, permissions };
}

/** Rule 7: every environment and bot named exists in the organization, is active, and the bot is in that environment. */
export async function grantProblems(orgUuid: string, permissions: Permission[]): Promise<FieldIssue[]> {
  const results = await Promise.all(
    permissions.map(async (permission, i) => {
      const [environment, bot] = await Promise.all([
        getEnvironment(orgUuid, permission.environmentUuid),
        permission.botUuid ? getBot(orgUuid, permission.environmentUuid, permission.botUuid) : undefined,
      ]);
      if (!environment?.active) {
        return [issue(`permissions.${i}.environmentUuid`, 'No active environment has this uuid in the organization')];
      }
      if (permission.botUuid && !bot?.active) {
        return [issue(`permissions.${i}.botUuid`, 'No active bot has this uuid in that environment')];
      }
      return [];
    }),
  );
  return results.flat();
}

export function sameAccess(a: Access, b: Pick<UserRecord, 'role' | 'permissions'>): boolean {
  const ids = (permissions: Permission[]) => permissions.map(permissionId).sort().join(',');
  return a.role === b.role && ids(a.permissions) === ids(b.permissions);
}

const permissionId = (p: Permission) => `${p.environmentUuid}/${p.botUuid ?? '*'}`;

function dedupe(permissions: Permission[]): Permission[] {
  const seen = new Map<string, Permission>();
  for (const p of permissions) {
    seen.set(permissionId(p), p.botUuid ? { environmentUuid: p.environmentUuid, botUuid: p.botUuid } : { environmentUuid: p.environmentUuid });
  }
  return [...seen.values()];
}
