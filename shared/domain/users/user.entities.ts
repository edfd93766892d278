import { roles, type UserFieldsRecord } from './user.fields';

export { roles };
export type Role = (typeof roles)[number];

/** Access to one environment (a SUPERVISOR's environment-wide grant) or to one bot of it. */
export type Permission = UserFieldsRecord['permissions'][number];

export type UserStatus = UserFieldsRecord['status'];

/** A user as stored: the fields of `user.fields.ts` (its API fields and `externalId`) and what only the service keeps. */
export interface UserRecord extends UserFieldsRecord {
  updatedAt: string;
  /** When a bulk job's welcome e-mail went out (a rerun of the job does not send it again). */
  welcomedAt?: string;
  /**
   * Epoch milliseconds of the last change of how the user signs in (a password set or changed, the
   * user disabled, its domain's provider enforced): every session and token begun before it is dead,
   * whatever a revocation missed (`outlivedCredentials`).
   */
  credentialsChangedAt?: number;
}
