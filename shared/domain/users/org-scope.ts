import type { UserRecord } from './user.entities';

/**
 * Who acts without being a user: an organization's directory provisioning through one of its SCIM
 * tokens (`uuid` is the token's id, never a user's, so no rule about the caller's own user applies).
 */
export interface Provisioner {
  uuid: string;
  provisioning: 'SCIM';
}

/** What a request may reach in its path's organization: the organization, who asks, and whether as ADMIN. */
export interface OrgScope {
  orgUuid: string;
  caller: UserRecord | Provisioner;
  isAdmin: boolean;
}

/** The caller when it is a user of the organization (not a provisioner). */
export const callerUser = (scope: OrgScope): UserRecord | undefined => ('provisioning' in scope.caller ? undefined : scope.caller);
