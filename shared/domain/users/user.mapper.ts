import type { Session } from '../sessions/session.repository';
import type { UserRecord } from './user.entities';
import type { OfflineSessionResponse, UserResponse } from './user.responses';

export type { UserResponse };

/** The User (docs/api/users.md#the-user) plus `role`, `permissions` and `status` (`user.responses.ts`): only these fields ever leave. */

export function toUserResponse(user: UserRecord): UserResponse {
  return {
    uuid: user.uuid,
    orgUUID: user.orgUuid,
    name: user.name,
    email: user.email,
    image: user.image ?? null,
    company: user.company ?? null,
    admin: user.role === 'ADMIN',
    role: user.role,
    permissions: user.permissions.map((p) => (p.botUuid ? { environmentUuid: p.environmentUuid, botUuid: p.botUuid } : { environmentUuid: p.environmentUuid })),
    status: user.status,
    createdAt: user.createdAt,
    ...(user.identityProvider ? { identityProvider: identityProviderLinkOf(user.identityProvider) } : {}),
  };
}

function identityProviderLinkOf(link: NonNullable<UserRecord['identityProvider']>): NonNullable<UserResponse['identityProvider']> {
  return { alias: link.alias, linkedAt: link.linkedAt, ...(link.subject === undefined ? {} : { subject: link.subject }) };
}

const isoOf = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** An offline session as an ADMIN sees it: when it began, was last used and ends; never its secret. */
export function toOfflineSessionResponse(session: Session): OfflineSessionResponse {
  const createdAt = session.createdAt ?? session.authTime ?? session.expiresAt;
  return {
    id: session.sessionId,
    clientId: session.clientId,
    createdAt: isoOf(createdAt),
    lastUsedAt: isoOf(session.lastUsedAt ?? createdAt),
    expiresAt: isoOf(session.expiresAt),
  };
}
