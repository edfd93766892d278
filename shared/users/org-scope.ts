import type { UserRecord } from './user.entities';

/** What a request may reach in its path's organization: the organization, who asks, and whether as ADMIN. */
export interface OrgScope {
  orgUuid: string;
  caller: UserRecord;
  isAdmin: boolean;
}
