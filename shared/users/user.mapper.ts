import type { UserRecord } from './user.entities';

/** The User of spec 2.9 plus `role`, `permissions` and `status`; only these fields ever leave. */
export interface UserResponse {
  uuid: string;
  orgUUID: string;
  name: string;
  email: string;
  image: string | null;
  company: string | null;
  admin: boolean;
  role: UserRecord['role'];
  permissions: { environmentUuid: string; botUuid?: string }[];
  status: UserRecord['status'];
  createdAt: string;
}

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
  };
}
