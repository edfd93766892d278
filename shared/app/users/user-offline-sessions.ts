import type { OrgScope } from '../../domain/users/org-scope';
import { NotFoundError } from '../../kernel/errors';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { offlineSessionsPage, type SessionPage } from '../../domain/sessions/session.repository';
import { sessionsView } from '../../domain/users/user-sessions';
import { deleteOfflineSessionWith, readUser } from '../../domain/users/user.repository';

/** An ADMIN's view of a user's offline sessions (the long-lived refresh tokens of `scope=offline_access`). */

/**
 * A page of a user's live offline sessions, oldest first, `limit` of them after the position `after`
 * (a previous page's `next`); a user who is not of the organization is a 404.
 */
export async function listOfflineSessions(scope: OrgScope, userUuid: string, limit: number, after?: string): Promise<SessionPage> {
  const user = await readUser(scope, userUuid);
  return offlineSessionsPage(user.uuid, limit, after, await sessionsView(user));
}

/**
 * Ends one of a user's offline sessions (its refresh token stops working at once), with its audit event
 * `OFFLINE_SESSION_REVOKED` in the same transaction; a session that is not one of the user's is a 404.
 */
export async function revokeOfflineSession(scope: OrgScope, userUuid: string, sessionId: string): Promise<void> {
  const user = await readUser(scope, userUuid);
  const audit = auditWrites({
    orgUuid: user.orgUuid,
    action: 'OFFLINE_SESSION_REVOKED',
    resource: { type: 'USER', uuid: user.uuid },
    changes: [{ op: 'remove', path: `/offlineSessions/${sessionId}` }],
  });
  if (!(await deleteOfflineSessionWith(user.uuid, sessionId, audit))) throw new NotFoundError('The user has no offline session with this id: GET …/users/{userId}/offline-sessions lists them');
}
