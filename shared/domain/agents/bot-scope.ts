import type { Bot } from '../org/org.entities';

export interface BotPath {
  orgUUID: string;
  envUUID: string;
  botUUID: string;
}

export type BotAccess = 'read' | 'write';

/**
 * A bot someone was found allowed to use, and how. Use cases take one instead of a caller, so they
 * never authorize; a write use case asks for `BotScope<'write'>`, so a read scope cannot reach it.
 */
export interface BotScope<A extends BotAccess = BotAccess> {
  readonly bot: Bot;
  readonly access: A;
}

/** Full access to a bot for operator tools (seed, CLI, benchmarks), which hold the table's credentials and have no caller. */
export function operatorScope(bot: Bot): BotScope<'write'> {
  return { bot, access: 'write' };
}
