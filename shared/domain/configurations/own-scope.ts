import type { UserRecord } from '../users/user.entities';

/** The caller's own data (configuration entries), optionally narrowed to one bot of its organization. */
export interface OwnScope {
  user: UserRecord;
  botUuid?: string;
}
