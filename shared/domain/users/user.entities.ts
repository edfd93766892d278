export const roles = ['ADMIN', 'SUPERVISOR', 'EDITOR', 'VIEWER'] as const;
export type Role = (typeof roles)[number];

/** Access to one environment (a SUPERVISOR's environment-wide grant) or to one bot of it. */
export interface Permission {
  environmentUuid: string;
  botUuid?: string;
}

export type UserStatus = 'ACTIVE' | 'DELETED';

export interface UserRecord {
  uuid: string;
  orgUuid: string;
  name: string;
  email: string;
  image?: string;
  company?: string;
  role: Role;
  permissions: Permission[];
  status: UserStatus;
  createdAt: string;
  updatedAt: string;
  /** The identifier a provisioning client (a SCIM directory) gave the user, kept as it sent it. */
  externalId?: string;
  /** When a bulk job's welcome e-mail went out (a rerun of the job does not send it again). */
  welcomedAt?: string;
  /**
   * The organization's OpenID provider the user signs in at (its alias), since the broker linked them,
   * and the provider's `sub` for the user: once recorded, only that `sub` signs the user in there,
   * until an ADMIN removes the link. A link without `subject` (made before subjects were recorded)
   * binds nothing: the next sign-in there is a first link.
   */
  identityProvider?: { alias: string; linkedAt: string; subject?: string };
  /**
   * Epoch milliseconds of the last change of how the user signs in (a password set or changed, the
   * user disabled, its domain's provider enforced): every session and token begun before it is dead,
   * whatever a revocation missed (`outlivedCredentials`).
   */
  credentialsChangedAt?: number;
}
