import { createBody, type TestOrg, type UserDto } from './user-helpers';

/** An audit event as `GET …/audit-events` answers it, for the tests that read them. */
export interface AuditEventDto {
  id: string;
  at: string;
  actor: { uuid: string | null; email: string | null };
  action: string;
  resource: { type: string; uuid: string };
  requestId: string | null;
  changes?: { op: string; path: string; value?: unknown }[];
}

/** The password `createRenameDelete` sets: no audit or change event may show it. */
export const OTHER_PASSWORD = 'Other-Passw0rd';

/**
 * A user created, then renamed with a new password (`OTHER_PASSWORD`), then deleted, by the
 * organization's ADMIN through the API, each request with its own `x-request-id`; fails unless each
 * succeeds. Answers the user as created.
 */
export async function createRenameDelete(
  org: TestOrg,
  names: { name: string; renamed: string },
  requestIds: { create: string; update: string; remove: string },
): Promise<UserDto> {
  const created = await org.admin.api.post(org.url(), createBody(org, { name: names.name }), { 'x-request-id': requestIds.create });
  expect(created.status).toBe(200);
  const user = created.body;
  const renamed = { ...user, name: names.renamed, password: OTHER_PASSWORD, confirmPassword: OTHER_PASSWORD };
  expect((await org.admin.api.put(org.url(`/${user.uuid}`), renamed, { 'x-request-id': requestIds.update })).status).toBe(200);
  expect((await org.admin.api.delete(org.url(`/${user.uuid}`), { 'x-request-id': requestIds.remove })).status).toBe(204);
  return user;
}
