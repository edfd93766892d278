import { sessionOutlived } from '../sessions/credential-stamp';
import { readDomainStamp } from '../sessions/credential-stamp.repository';
import type { Session } from '../sessions/session.repository';
import type { UserRecord } from './user.entities';

/** What of a user's sessions still works: those its credential stamps (its own, its domain's) have not ended. */
export async function sessionsView(user: UserRecord): Promise<{ notBeforeMs?: number; alive: (session: Session) => boolean }> {
  const domainStamp = await readDomainStamp(user.orgUuid, user.email);
  return {
    ...(user.credentialsChangedAt === undefined ? {} : { notBeforeMs: user.credentialsChangedAt }),
    alive: (session) => !sessionOutlived(session, user, domainStamp),
  };
}
