import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/caller';
import { ConflictError, NotFoundError } from '../errors';
import { cognitoIdentityProvider, type IdentityProvider } from '../identity/identity-provider';
import type { Permission, Role, UserRecord } from './user.entities';
import {
  claimEmail,
  completeClaim,
  getEmailClaim,
  getUser,
  putNewUser,
  releaseClaim,
  takeOverClaim,
} from './user.repository';

/** A pending e-mail claim older than this, whose user never appeared, is taken over by the next attempt. */
export const STALE_CLAIM_MS = 60_000;

export interface NewUser {
  orgUuid: string;
  name: string;
  email: string;
  password: string;
  role: Role;
  permissions: Permission[];
  image?: string;
  company?: string;
}

/**
 * Registers a user in the store and the identity provider without transactions: claim the e-mail,
 * register the credentials, write the user, mark the claim done. A failure before the user is written
 * gives the claim back; a crash leaves a pending claim that a later attempt detects and repairs.
 */
export async function registerUser(
  input: NewUser,
  identityProvider: IdentityProvider = cognitoIdentityProvider,
): Promise<UserRecord> {
  const { orgUuid } = input;
  const email = input.email.trim();
  const now = new Date().toISOString();
  let userUuid: string = randomUUID();

  if (!(await claimEmail(orgUuid, email, userUuid, now))) {
    userUuid = await recoverClaim(orgUuid, email, now);
  }

  try {
    await identityProvider.createUser({ username: userUuid, email, password: input.password });
  } catch (error) {
    await releaseClaim(orgUuid, email, userUuid);
    throw error;
  }

  const user: UserRecord = {
    uuid: userUuid,
    orgUuid,
    name: input.name.trim(),
    email,
    ...(input.image ? { image: input.image } : {}),
    ...(input.company ? { company: input.company } : {}),
    role: input.role,
    permissions: input.permissions,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
  };
  if (!(await putNewUser(user))) throw new ConflictError('EMAIL_TAKEN');
  await completeClaim(orgUuid, email, userUuid);
  return user;
}

/** Decides what an existing claim means: taken, in progress elsewhere, or abandoned (taken over). */
async function recoverClaim(orgUuid: string, email: string, now: string): Promise<string> {
  const claim = await getEmailClaim(orgUuid, email);
  if (!claim || claim.state === 'DONE') throw new ConflictError('EMAIL_TAKEN');
  if (await getUser(orgUuid, claim.userUuid)) {
    // The user was written but the claim never marked done: finish that attempt's work.
    await completeClaim(orgUuid, email, claim.userUuid);
    throw new ConflictError('EMAIL_TAKEN');
  }
  const age = Date.now() - Date.parse(claim.claimedAt);
  if (age < STALE_CLAIM_MS || !(await takeOverClaim(orgUuid, email, claim.claimedAt, now))) {
    throw new ConflictError('EMAIL_TAKEN', 'The e-mail is being registered by another request');
  }
  return claim.userUuid;
}

/** The user a token belongs to, read under the path's organization (another organization is a 404). */
export function currentUser(caller: Caller, pathOrgUuid: string): UserRecord {
  if (caller.user.orgUuid !== pathOrgUuid) throw new NotFoundError('The organization was not found');
  return caller.user;
}
