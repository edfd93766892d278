import { keys } from '../../adapters/store/keys';
import type { Bot, Environment } from '../org/org.entities';
import { getBot, getEnvironment } from '../org/org.repository';
import { nothingPrefetched, type ItemKey, type Prefetched } from '../requests/prefetch.repository';
import type { BotPath } from './bot-scope';

/** What authorizing a bot's path reads (`readBotPath`): a route's prefetch, so they come in the caller's BatchGetItem. */
export const botPathReads = (path: BotPath): ItemKey[] => [
  keys.environment(path.orgUUID, path.envUUID),
  keys.bot(path.orgUUID, path.envUUID, path.botUUID),
];

/** The environment and the bot a path names (undefined when absent), from `prefetched` when the caller's read brought them. */
export async function readBotPath(path: BotPath, prefetched: Prefetched = nothingPrefetched): Promise<{ environment: Environment | undefined; bot: Bot | undefined }> {
  const [environment, bot] = await Promise.all([
    prefetched.or(keys.environment(path.orgUUID, path.envUUID), () => getEnvironment(path.orgUUID, path.envUUID)),
    prefetched.or(keys.bot(path.orgUUID, path.envUUID, path.botUUID), () => getBot(path.orgUUID, path.envUUID, path.botUUID)),
  ]);
  return { environment, bot };
}
