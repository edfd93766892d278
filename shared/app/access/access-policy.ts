import type { Caller } from '../auth/caller';
import type { ItemKey, Prefetched } from '../../domain/requests/prefetch.repository';
import { authorizeBot, botPathReads, type BotAccess, type BotPath, type BotScope } from './bot-access';
import type { TokenAccess } from './access-kinds';
import { authorizeOrgAdmin, authorizeOrgMember, authorizeOwn, authorizeUserAccess, type OrgScope, type OwnScope } from './org-access';

export type { TokenAccess };

/** The scope an access declaration grants: what the operation's use case takes instead of a caller. */
export type ScopeOf<A extends TokenAccess> = A extends { bot: infer N extends BotAccess } ? BotScope<N> : A extends { own: 'entries' } ? OwnScope : OrgScope;

/** The path parameters an access declaration reads: the organization, and the user or bot it names. */
export type AccessPath = { orgUUID?: string; userId?: string; envUUID?: string; botUUID?: string };

/** The items checking `access` reads, fetched in the caller's own BatchGetItem. */
export function accessKeys(access: TokenAccess, path: AccessPath): ItemKey[] {
  return 'bot' in access ? botPathReads(path as BotPath) : [];
}

/** Checks `access` for the caller on the (valid) path: the scope it grants, or 404 / 403. */
export async function authorizeAccess<A extends TokenAccess>(access: A, caller: Caller, path: AccessPath, prefetched: Prefetched): Promise<ScopeOf<A>> {
  const orgUuid = path.orgUUID ?? '';
  let scope: OrgScope | OwnScope | BotScope;
  if ('org' in access) scope = access.org === 'admin' ? await authorizeOrgAdmin(caller, orgUuid, access.because) : await authorizeOrgMember(caller, orgUuid);
  else if ('user' in access) scope = await authorizeUserAccess(caller, orgUuid, path.userId ?? '', access.user);
  else if ('bot' in access) scope = await authorizeBot(caller, path as BotPath, access.bot, prefetched);
  else scope = await authorizeOwn(caller, path.botUUID);
  // Narrowed by the branch the declaration took, which is what ScopeOf<A> computes.
  return scope as ScopeOf<A>;
}
