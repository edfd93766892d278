import type { AccessInput } from '../../domain/users/access-template';
import type { Permission, Role, UserRecord } from '../../domain/users/user.entities';
import { ACCESS_EXTENSION, USER_SCHEMA } from './scim-schema';

/**
 * A user of the users area as a SCIM User, and back. `userName` is the e-mail; `name.formatted` is the
 * user's name (`givenName` its first word, `familyName` the rest); `emails` is the one work e-mail;
 * `active` is false for a (logically) deleted user; role and grants travel in the access extension.
 */

export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { formatted: string; givenName?: string; familyName?: string };
  displayName: string;
  emails: { value: string; type: 'work'; primary: true }[];
  active: boolean;
  [ACCESS_EXTENSION]: { role: Role; permissions: Permission[] };
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

/** The user's version as SCIM's `meta.version` and the ETag: weak, from its last change. */
export const versionOf = (user: Pick<UserRecord, 'updatedAt'>) => `W/"${Date.parse(user.updatedAt).toString(36)}"`;

function nameParts(name: string): { givenName?: string; familyName?: string } {
  const [givenName, ...rest] = name.trim().split(/\s+/u);
  return { ...(givenName ? { givenName } : {}), ...(rest.length > 0 ? { familyName: rest.join(' ') } : {}) };
}

export function toScimUser(user: UserRecord, baseUrl: string): ScimUser {
  return {
    schemas: [USER_SCHEMA, ACCESS_EXTENSION],
    id: user.uuid,
    ...(user.externalId ? { externalId: user.externalId } : {}),
    userName: user.email,
    name: { formatted: user.name, ...nameParts(user.name) },
    displayName: user.name,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.status === 'ACTIVE',
    [ACCESS_EXTENSION]: {
      role: user.role,
      permissions: user.permissions.map((p) => (p.botUuid ? { environmentUuid: p.environmentUuid, botUuid: p.botUuid } : { environmentUuid: p.environmentUuid })),
    },
    meta: { resourceType: 'User', created: user.createdAt, lastModified: user.updatedAt, location: `${baseUrl}/Users/${user.uuid}`, version: versionOf(user) },
  };
}

/** What a SCIM User asks of the user: the users area's fields, its access when given, and whether it is active. */
export interface DesiredUser {
  email: string;
  name: string;
  externalId: string | null;
  access?: AccessInput;
  active: boolean;
}

interface IncomingUser {
  userName?: string;
  externalId?: string;
  name?: { formatted?: string; givenName?: string; familyName?: string };
  displayName?: string;
  emails?: { value?: string; type?: string; primary?: boolean }[];
  active?: boolean;
  [ACCESS_EXTENSION]?: { role?: Role; permissions?: { environmentUuid: string; botUuid?: string }[] };
}

const primaryEmail = (emails: IncomingUser['emails']) => (emails?.find((email) => email.primary) ?? emails?.find((email) => email.type === 'work') ?? emails?.[0])?.value;

/**
 * The user a SCIM User (validated by scimmy) describes. `current` is the user before a replace or
 * patch: the e-mail that changed wins (the userName, or the primary work e-mail a directory maps its
 * mail attribute to), and a name left out keeps the current one. On creation `userName` is the e-mail.
 */
export function desiredOf(incoming: IncomingUser, current?: UserRecord): DesiredUser {
  const userName = incoming.userName?.trim() ?? '';
  const listed = primaryEmail(incoming.emails)?.trim();
  let email = userName;
  if (current && userName.toLowerCase() === current.email.toLowerCase() && listed && listed.toLowerCase() !== current.email.toLowerCase()) email = listed;
  const { formatted, givenName, familyName } = incoming.name ?? {};
  const joined = [givenName, familyName].filter((part) => part?.trim()).join(' ');
  const name = formatted?.trim() || joined.trim() || incoming.displayName?.trim() || current?.name || email;
  const extension = incoming[ACCESS_EXTENSION];
  const access = extension && (extension.role !== undefined || extension.permissions !== undefined) ? extension : undefined;
  return {
    email,
    name,
    externalId: incoming.externalId?.trim() || null,
    ...(access ? { access: { ...(access.role ? { role: access.role } : {}), ...(access.permissions ? { permissions: access.permissions } : {}) } } : {}),
    active: incoming.active ?? true,
  };
}
