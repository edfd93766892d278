import type { Caller } from '../auth/caller';
import { ForbiddenError, NotFoundError } from '../../kernel/errors';
import { nothingPrefetched, type Prefetched } from '../../domain/requests/prefetch.repository';
import { botPathReads, readBotPath } from '../../domain/agents/bot-access.repository';
import type { BotAccess, BotPath, BotScope } from '../../domain/agents/bot-scope';

export { botPathReads, type BotAccess, type BotPath, type BotScope };

/**
 * The bot a request addresses, if the caller may use it. Scope first (another organization, an unknown
 * or inactive environment or bot: 404, so existence does not leak), then role: ADMIN any bot of the
 * organization; SUPERVISOR any bot of its environments; EDITOR read and write, VIEWER read only, on
 * the bots granted; anything else 403. Environment and bot come from `prefetched` when the caller's
 * read brought them (`botPathReads`).
 */
export async function authorizeBot<A extends BotAccess>(
  caller: Caller,
  path: BotPath,
  need: A,
  prefetched: Prefetched = nothingPrefetched,
): Promise<BotScope<A>> {
  const { user } = caller;
  if (user.orgUuid !== path.orgUUID) throw new NotFoundError('The organization was not found');
  const { environment, bot } = await readBotPath(path, prefetched);
  if (!environment?.active) throw new NotFoundError('The environment was not found');
  if (!bot?.active) throw new NotFoundError('The bot was not found');

  const grantsBot = user.permissions.some((p) => p.environmentUuid === path.envUUID && p.botUuid === path.botUUID);
  const grantsEnvironment = user.permissions.some((p) => p.environmentUuid === path.envUUID && !p.botUuid);
  const allowed =
    user.role === 'ADMIN' ||
    (user.role === 'SUPERVISOR' && (grantsEnvironment || grantsBot)) ||
    (user.role === 'EDITOR' && grantsBot) ||
    (user.role === 'VIEWER' && grantsBot && need === 'read');
  if (!allowed) throw new ForbiddenError(need === 'write' ? 'You may not change this bot' : 'You may not read this bot');
  return { bot, access: need };
}
