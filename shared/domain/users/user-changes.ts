import { ValidationError } from '../../kernel/errors';
import { grantProblems, resolveAccess, type Access, type AccessInput } from './access-template';
import type { UserRecord } from './user.entities';
import { keptWhenLeftOut } from './user.fields';
import { without } from '../../kernel/schemas/declared-fields';

/**
 * The fields of a user a request sets; `password` goes to the identity provider only. The optional
 * texts (image, company and a provisioning client's `externalId`): left out keeps them, `null` clears them.
 */
export interface UserFields extends Partial<Record<(typeof keptWhenLeftOut)[number], string | null>> {
  name: string;
  email: string;
  password?: string;
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

/** An optional text (`image`, `company`, `externalId`): left out keeps the value, `null` or blank clears it. */
export function optionalText(next: string | null | undefined, current: string | undefined): { value?: string } {
  if (next === undefined) return current === undefined ? {} : { value: current };
  const trimmed = next?.trim();
  return trimmed ? { value: trimmed } : {};
}

/**
 * The optional texts (`keptWhenLeftOut` of `user.fields.ts`: image, company, externalId) a write sets:
 * those `fields` give, or else `current` has (as `optionalText` decides).
 */
export function optionalTexts(fields: Partial<UserFields>, current: Partial<UserRecord> = {}): Partial<Pick<UserRecord, (typeof keptWhenLeftOut)[number]>> {
  return Object.fromEntries(keptWhenLeftOut.flatMap((name) => {
    const { value } = optionalText(fields[name], current[name]);
    return value === undefined ? [] : [[name, value]];
  }));
}

/** The user with the request's fields and access applied, stamped `now`. */
export function withFields(user: UserRecord, fields: Partial<UserFields>, access: Access, now: string): UserRecord {
  return {
    ...without(user, keptWhenLeftOut),
    ...optionalTexts(fields, user),
    ...(fields.name !== undefined ? { name: fields.name.trim() } : {}),
    ...(fields.email !== undefined ? { email: fields.email.trim() } : {}),
    role: access.role,
    permissions: access.permissions,
    updatedAt: now,
  };
}
