import type { OrgScope } from './org-scope';
import { transactWrite } from '../../adapters/store/table';
import { NotFoundError } from '../../kernel/errors';
import { auditWrites } from '../audit/audit-event';
import { offlineSessionDelete, offlineSessionsPage, type Session, type SessionPage } from '../sessions/session.repository';
import { sessionOutlived } from '../sessions/credential-stamp';
import { readDomainStamp } from '../sessions/credential-stamp.repository';
import type { UserRecord } from './user.entities';
import { readUser } from './user-queries';

/** An ADMIN's view of a user's offline sessions (the long-lived refresh tokens of `scope=offline_access`). */

/**
 * A page of a user's live offline sessions, oldest first, `limit` of them after the position `after`
 * (a previous page's `next`); a user who is not of the organization is a 404.
 */
export async function listOfflineSessions(scope: OrgScope, userUuid: string, limit: number, after?: string): Promise<SessionPage> {
  const user = await readUser(scope, userUuid);
  return offlineSessionsPage(user.uuid, limit, after, await sessionsView(user));
}

/** What of a user's sessions still works: those its credential stamps (its own, its domain's) have not ended. */
export async function sessionsView(user: UserRecord): Promise<{ notBeforeMs?: number; alive: (session: Session) => boolean }> {
  const domainStamp = await readDomainStamp(user.orgUuid, user.email);
  return {
    ...(user.credentialsChangedAt === undefined ? {} : { notBeforeMs: user.credentialsChangedAt }),
    alive: (session) => !sessionOutlived(session, user, domainStamp),
  };
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
  const failed = await transactWrite([offlineSessionDelete(user.uuid, sessionId), ...audit]);
  if (failed.includes(0)) throw new NotFoundError('The user has no offline session with this id: GET …/users/{userId}/offline-sessions lists them');
}
