import type { OwnScope } from '../access/org-access';
import {
  getConfiguration,
  insertConfiguration,
  listConfigurations as readConfigurations,
  nextConfigurationId,
  updateConfigurationValue,
  type ConfigurationEntry,
} from './configuration.repository';
import { count } from '../metrics';

/**
 * The caller's own configuration entries (spec 4.4). The handler authorizes the scope: the caller, and
 * a bot of its organization when the request names one.
 */

/**
 * Creates the scope's entry for a key (general, or of the scope's bot), or changes its value if it
 * exists; the entry keeps its id across updates.
 */
export async function saveConfiguration(scope: OwnScope, input: { key: string; value: string }): Promise<ConfigurationEntry> {
  const saved = await save(scope, input);
  count('ConfigurationsSaved');
  return saved;
}

async function save(scope: OwnScope, input: { key: string; value: string }): Promise<ConfigurationEntry> {
  const userUuid = scope.user.uuid;
  const { botUuid } = scope;
  const entry = { userUuid, key: input.key, value: input.value, ...(botUuid ? { botUuid } : {}) };
  const existing = await getConfiguration(userUuid, botUuid, input.key);
  if (!existing || !(await updateConfigurationValue(entry))) {
    const created = { ...entry, id: await nextConfigurationId(userUuid) };
    if (await insertConfiguration(created)) return created;
    // Another request created the same key first: change its value instead, keeping its id.
    await updateConfigurationValue(entry);
  }
  return (await getConfiguration(userUuid, botUuid, input.key))!;
}

/** The scope's entries by id: every entry, general and bot-specific, or with a bot only that bot's. */
export async function listConfigurations(scope: OwnScope): Promise<ConfigurationEntry[]> {
  return (await readConfigurations(scope.user.uuid, scope.botUuid)).sort((a, b) => a.id - b.id);
}

/** Whether the scope has a general entry (or, with a bot, an entry for that bot) with the key. */
export async function hasConfiguration(scope: OwnScope, key: string): Promise<boolean> {
  return (await getConfiguration(scope.user.uuid, scope.botUuid, key)) !== undefined;
}
