import { ValidationError } from '../../kernel/errors';
import { grantProblems, resolveAccess, type Access, type AccessInput } from './access-template';
import type { UserRecord } from './user.entities';

/** The fields of a user a request sets; `password` goes to the identity provider only. */
export interface UserFields {
  name: string;
  email: string;
  image?: string | null;
  company?: string | null;
  password?: string;
  /** A provisioning client's identifier of the user (SCIM `externalId`): left out keeps it, `null` clears it. */
  externalId?: string | null;
}

/** The role and permissions a request asks for, resolved against the user's current ones; 400 when invalid. */
export function accessOrThrow(input: AccessInput, current?: Access): Access {
  const access = resolveAccess(input, current);
  if (Array.isArray(access)) throw new ValidationError({ details: access });
  return access;
}

/** 400 unless every environment and bot the access grants is an active one of the organization. */
export async function checkGrants(orgUuid: string, access: Access): Promise<void> {
  const problems = await grantProblems(orgUuid, access.permissions);
  if (problems.length > 0) throw new ValidationError({ details: problems });
}

/** `image` and `company`: left out keeps the value, `null` or blank clears it. */
export function optionalText(next: string | null | undefined, current: string | undefined): { value?: string } {
  if (next === undefined) return current === undefined ? {} : { value: current };
  const trimmed = next?.trim();
  return trimmed ? { value: trimmed } : {};
}

/** The user with the request's fields and access applied, stamped `now`. */
export function withFields(user: UserRecord, fields: Partial<UserFields>, access: Access, now: string): UserRecord {
  const { image: _image, company: _company, externalId: _externalId, ...rest } = user;
  const image = optionalText(fields.image, user.image).value;
  const company = optionalText(fields.company, user.company).value;
  const externalId = optionalText(fields.externalId, user.externalId).value;
  return {
    ...rest,
    ...(externalId !== undefined ? { externalId } : {}),
    ...(fields.name !== undefined ? { name: fields.name.trim() } : {}),
    ...(fields.email !== undefined ? { email: fields.email.trim() } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(company !== undefined ? { company } : {}),
    role: access.role,
    permissions: access.permissions,
    updatedAt: now,
  };
}
