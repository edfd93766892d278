/**
 * Who may call an operation with a user's access token, as the catalogue declares it beside the
 * operation's schemas (`shared/edge/api/operation.ts`); `access-policy.ts` checks it. No imports, so the
 * catalogue and the API description can use it without reaching the store.
 * - `{ org: 'member' }`, any user of the path's organization; `{ org: 'admin' }`, its ADMINs;
 * - `{ user: 'read' | 'update' }`, an ADMIN of the path's organization, or the user `{userId}` itself;
 * - `{ bot: 'read' | 'write' }`, a user whose role and grants reach the path's bot so;
 * - `{ own: 'entries' }`, any signed-in user, on its own data (with `{botUUID}`, an active bot of its organization).
 * A caller of another organization gets 404, as for anything it cannot see; one of the right
 * organization without the role or grant gets 403, worded by `because` when given.
 */
export type TokenAccess =
  | { readonly org: 'member' | 'admin'; readonly because?: string }
  | { readonly user: 'read' | 'update' }
  | { readonly bot: 'read' | 'write' }
  | { readonly own: 'entries' };

/** How the API description states an access declaration, in a phrase. */
export function describeAccess(access: TokenAccess): string {
  if ('org' in access) return access.org === 'admin' ? 'an ADMIN of the organization' : 'any user of the organization';
  if ('user' in access) return `an ADMIN of the organization, or the user itself (${access.user === 'read' ? 'reading' : 'changing'} itself)`;
  if ('bot' in access) {
    return access.bot === 'read'
      ? 'a user who may read the bot (an ADMIN; a SUPERVISOR of its environment; an EDITOR or VIEWER granted it)'
      : 'a user who may change the bot (an ADMIN; a SUPERVISOR of its environment; an EDITOR granted it)';
  }
  return 'any signed-in user, on its own entries';
}
