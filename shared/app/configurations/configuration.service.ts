import { count } from '../../kernel/metrics';
import { changesBetween, REDACTED, type PatchOperation } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import type { OwnScope } from '../../domain/configurations/own-scope';
import { toConfigurationResponse } from '../../domain/configurations/configuration.mapper';
import type { ConfigurationResponse } from '../../domain/configurations/configuration.responses';
import {
  getConfiguration,
  insertConfiguration,
  listConfigurations as readConfigurations,
  nextConfigurationId,
  updateConfigurationValue,
  type ConfigurationEntry,
} from '../../domain/configurations/configuration.repository';
import { without } from '../../kernel/schemas/declared-fields';
import { replacedOnSave } from '../../domain/configurations/configuration.fields';

/**
 * The caller's own configuration entries (docs/api/configurations.md). The handler authorizes the scope: the caller, and
 * a bot of its organization when the request names one.
 */

/**
 * Creates the scope's entry for a key (general, or of the scope's bot), or changes its value if it
 * exists; the entry keeps its id across updates.
 */
export async function saveConfiguration(scope: OwnScope, input: { key: string; value: string }): Promise<ConfigurationResponse> {
  const saved = await save(scope, input);
  count('ConfigurationsSaved');
  return toConfigurationResponse(saved);
}

async function save(scope: OwnScope, input: { key: string; value: string }): Promise<ConfigurationEntry> {
  const { user, botUuid } = scope;
  const entry = { userUuid: user.uuid, key: input.key, value: input.value, ...(botUuid ? { botUuid } : {}) };
  const existing = await getConfiguration(user.uuid, botUuid, input.key);
  if (!existing || !(await updateConfigurationValue(entry, savedEvent(user.orgUuid, existing, entry)))) {
    const created = { ...entry, id: await nextConfigurationId(user.uuid) };
    if (await insertConfiguration(created, savedEvent(user.orgUuid, undefined, created))) return created;
    // Another request created the same key first: change its value instead, keeping its id.
    const current = await getConfiguration(user.uuid, botUuid, input.key);
    if (current) await updateConfigurationValue(entry, savedEvent(user.orgUuid, current, entry));
  }
  return (await getConfiguration(user.uuid, botUuid, input.key))!;
}

/**
 * The CONFIGURATION_SAVED event of a save, for its transaction. The resource is the user whose entry
 * it is (an entry has no uuid; its id counts within the user); `changes` names the entry (for a new
 * one an `add` of its id, key and bot; for an existing one RFC 6902 `test` operations on them) and
 * says whether the value changed, never what it is: entries are their user's own, which no ADMIN
 * reads through the API, and the audit listing must not become a way to.
 */
function savedEvent(orgUuid: string, before: ConfigurationEntry | undefined, after: Omit<ConfigurationEntry, 'id'> & { id?: number }) {
  const id = before?.id ?? after.id!;
  // What names the entry, as a read shows it: every field a save does not replace.
  const entry = without(toConfigurationResponse({ ...after, id }), replacedOnSave);
  const changes: PatchOperation[] = before
    ? [
        ...Object.entries(entry).map(([name, value]): PatchOperation => ({ op: 'test', path: `/${name}`, value })),
        ...replacedOnSave.filter((name) => before[name] !== after[name]).map((name) => ({ op: 'replace' as const, path: `/${name}`, value: REDACTED })),
      ]
    : changesBetween(undefined, entry, replacedOnSave);
  return auditWrites({ orgUuid, action: 'CONFIGURATION_SAVED', resource: { type: 'CONFIGURATION', uuid: after.userUuid }, changes });
}

/** The scope's entries by id, as the API answers them: every entry, general and bot-specific, or with a bot only that bot's. */
export async function listConfigurations(scope: OwnScope): Promise<ConfigurationResponse[]> {
  return (await readConfigurations(scope.user.uuid, scope.botUuid)).sort((a, b) => a.id - b.id).map(toConfigurationResponse);
}

/** Whether the scope has a general entry (or, with a bot, an entry for that bot) with the key. */
export async function hasConfiguration(scope: OwnScope, key: string): Promise<boolean> {
  return (await getConfiguration(scope.user.uuid, scope.botUuid, key)) !== undefined;
}
