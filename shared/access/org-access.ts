import type { Caller } from '../auth/caller';
import { ForbiddenError, NotFoundError } from '../errors';

/** The path's organization must be the caller's; another one is a 404, so that existence does not leak. */
export function requireOrganization(caller: Caller, orgUuid: string): void {
  if (caller.user.orgUuid !== orgUuid) throw new NotFoundError('The organization was not found');
}

/** The caller is an ADMIN of the path's organization (404 for another organization, then 403). */
export function requireAdmin(caller: Caller, orgUuid: string, forbidden = 'Only an ADMIN administers users'): void {
  requireOrganization(caller, orgUuid);
  if (caller.user.role !== 'ADMIN') throw new ForbiddenError(forbidden);
}
