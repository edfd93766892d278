import { readOf } from '../../kernel/schemas/declared-fields';
import type { Session } from '../sessions/session.repository';
import { userFields } from './user.fields';
import type { UserRecord } from './user.entities';
import type { OfflineSessionResponse, UserResponse } from './user.responses';

export type { UserResponse };

/** The User (docs/api/users.md#the-user) plus `role`, `permissions` and `status` (`user.responses.ts`): only the fields `user.fields.ts` shows ever leave. */

export function toUserResponse(user: UserRecord): UserResponse {
  return readOf(userFields, user) as UserResponse;
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
