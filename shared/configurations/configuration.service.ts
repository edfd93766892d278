import type { Caller } from '../auth/caller';
import { NotFoundError } from '../errors';
import { findBot } from '../org/org.repository';
import {
  getConfiguration,
  insertConfiguration,
  listConfigurations,
  nextConfigurationId,
  updateConfigurationValue,
  type ConfigurationEntry,
} from './configuration.repository';

/** An entry as the spec answers it: `botUuid` is null on a general entry. */
export interface ConfigurationResponse {
  id: number;
  key: string;
  value: string;
  botUuid: string | null;
}

const toResponse = (entry: ConfigurationEntry): ConfigurationResponse => ({
  id: entry.id,
  key: entry.key,
  value: entry.value,
  botUuid: entry.botUuid ?? null,
});

/** A bot of the caller's organization, or 404 (another organization's bot does not exist for it). */
async function requireOwnBot(caller: Caller, botUuid: string): Promise<void> {
  const bot = await findBot(botUuid);
  if (!bot || bot.orgUuid !== caller.user.orgUuid || !bot.active) throw new NotFoundError('The bot was not found');
}

/**
 * Creates the caller's entry for a key (and bot), or changes its value if it exists; the entry keeps
 * its id across updates.
 */
export async function saveConfiguration(
  caller: Caller,
  input: { key: string; value: string; botUUID?: string },
): Promise<ConfigurationResponse> {
  const userUuid = caller.user.uuid;
  if (input.botUUID) await requireOwnBot(caller, input.botUUID);
  const entry = { userUuid, key: input.key, value: input.value, ...(input.botUUID ? { botUuid: input.botUUID } : {}) };
  const existing = await getConfiguration(userUuid, input.botUUID, input.key);
  if (!existing || !(await updateConfigurationValue(entry))) {
    const created = { ...entry, id: await nextConfigurationId(userUuid) };
    if (await insertConfiguration(created)) return toResponse(created);
    // Another request created the same key first: change its value instead, keeping its id.
    await updateConfigurationValue(entry);
  }
  return toResponse((await getConfiguration(userUuid, input.botUUID, input.key))!);
}

/** Every entry of the caller, general and bot-specific, by id. */
export async function listAllConfigurations(caller: Caller): Promise<ConfigurationResponse[]> {
  return (await listConfigurations(caller.user.uuid)).sort((a, b) => a.id - b.id).map(toResponse);
}

/** The caller's entries for one bot of its organization, by id. */
export async function listBotConfigurations(caller: Caller, botUuid: string): Promise<ConfigurationResponse[]> {
  await requireOwnBot(caller, botUuid);
  return (await listConfigurations(caller.user.uuid, botUuid)).sort((a, b) => a.id - b.id).map(toResponse);
}

/** Whether the caller has a general entry (or, with a bot, an entry for that bot) with the key. */
export async function hasConfiguration(caller: Caller, key: string, botUuid?: string): Promise<boolean> {
  if (botUuid) await requireOwnBot(caller, botUuid);
  return (await getConfiguration(caller.user.uuid, botUuid, key)) !== undefined;
}
