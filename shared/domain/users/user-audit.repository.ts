import { changesBetween, type AuditAction } from '../audit/audit-event';
import { auditWrites } from '../audit/audit-event.repository';
import type { TableWrite } from '../../adapters/store/table';
import type { UserRecord } from './user.entities';
import { toUserResponse } from './user.mapper';

export type UserAuditAction = Extract<AuditAction, 'USER_CREATED' | 'USER_UPDATED' | 'USER_DELETED' | 'USER_REACTIVATED' | 'USER_IDENTITY_PROVIDER_LINKED' | 'USER_IDENTITY_PROVIDER_UNLINKED'>;

/**
 * The audit event of a user write, for the write's own transaction (`saveUser`, `putNewUser`): the
 * RFC 6902 patch between the user as the API shows it before and after (the response mapper's
 * whitelist, so no internal attribute appears), and `{op: add, path: /password, value: [REDACTED]}`
 * when the change set a password. The event is dated with the write (`updatedAt`).
 */
export function userAuditWrites(
  action: UserAuditAction,
  before: UserRecord | undefined,
  after: UserRecord,
  options: { passwordSet?: boolean } = {},
): TableWrite[] {
  return auditWrites({
    orgUuid: after.orgUuid,
    action,
    resource: { type: 'USER', uuid: after.uuid },
    changes: changesBetween(before && toUserResponse(before), toUserResponse(after), options.passwordSet ? ['password'] : []),
    at: after.updatedAt,
  });
}
