import type { Caller } from '../auth/caller';
import { ForbiddenError, NotFoundError } from '../../kernel/errors';
import { findBot } from '../../domain/org/org.repository';
import type { OwnScope } from '../../domain/configurations/own-scope';
import type { OrgScope } from '../../domain/users/org-scope';

export type { OrgScope, OwnScope };

const ORG_NOT_FOUND = 'The organization was not found';
const USER_ADMIN_ONLY = 'Only an ADMIN administers users';

function orgScope(caller: Caller, orgUuid: string): OrgScope {
  // Another organization is a 404, so that existence does not leak.
  if (caller.user.orgUuid !== orgUuid) throw new NotFoundError(ORG_NOT_FOUND);
  return { orgUuid, caller: caller.user, isAdmin: caller.user.role === 'ADMIN' };
}

/** Any user of the path's organization (404 for another organization). */
export async function authorizeOrgMember(caller: Caller, orgUuid: string): Promise<OrgScope> {
  return orgScope(caller, orgUuid);
}

/** An ADMIN of the path's organization (404 for another organization, then 403). */
export async function authorizeOrgAdmin(caller: Caller, orgUuid: string, forbidden = USER_ADMIN_ONLY): Promise<OrgScope> {
  const scope = orgScope(caller, orgUuid);
  if (!scope.isAdmin) throw new ForbiddenError(forbidden);
  return scope;
}

/** An ADMIN, or the user itself, on one user of the path's organization (404 for another organization, then 403). */
export async function authorizeUserAccess(caller: Caller, orgUuid: string, userUuid: string, need: 'read' | 'update'): Promise<OrgScope> {
  const scope = orgScope(caller, orgUuid);
  if (!scope.isAdmin && scope.caller.uuid !== userUuid) {
    throw new ForbiddenError(need === 'read' ? 'Only an ADMIN reads other users' : 'Only an ADMIN updates other users');
  }
  return scope;
}

/** The caller's own data; with a bot, only an active bot of its organization (another one is a 404). */
export async function authorizeOwn(caller: Caller, botUuid?: string): Promise<OwnScope> {
  return ownBot({ user: caller.user }, botUuid);
}

/** The caller's own scope narrowed to a bot a body names: an active bot of its organization (another one is a 404). */
export async function ownBot(scope: OwnScope, botUuid: string | undefined): Promise<OwnScope> {
  if (!botUuid) return scope;
  const bot = await findBot(botUuid);
  if (!bot || bot.orgUuid !== scope.user.orgUuid || !bot.active) throw new NotFoundError('The bot was not found');
  return { user: scope.user, botUuid };
}
