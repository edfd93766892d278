import type { AgentRecord, BotFunction, Collection, Persona, Tag } from '../org/org.entities';
import { keys } from '../store/keys';
import type { ItemKey } from '../store/keys';
import { getItem, getItems, getItemsByKey, keyId, putItem, queryPrefix } from '../store/table';

/** What a listing, a quicksearch and a supervisor's heirs need of each agent, read without the long text. */
export type AgentSummaryRecord = Pick<
  AgentRecord,
  'uuid' | 'kind' | 'role' | 'goal' | 'tags' | 'inheritFromSupervisor' | 'createdAt' | 'updatedAt'
>;

const summaryAttributes = ['uuid', 'kind', 'role', 'goal', 'tags', 'inheritFromSupervisor', 'createdAt', 'updatedAt'] as const;

export async function listAgentSummaries(botUuid: string): Promise<AgentSummaryRecord[]> {
  const { PK, SKPrefix } = keys.agentsOfBot(botUuid);
  return queryPrefix<AgentSummaryRecord>(PK, SKPrefix, summaryAttributes);
}

export async function getAgent(botUuid: string, agentUuid: string): Promise<AgentRecord | undefined> {
  return getItem<AgentRecord>(keys.agent(botUuid, agentUuid));
}

export async function getDefaultSupervisorUuid(botUuid: string): Promise<string | undefined> {
  return (await getItem<{ agentUuid: string }>(keys.defaultSupervisor(botUuid)))?.agentUuid;
}

export async function insertAgent(agent: AgentRecord): Promise<void> {
  await putItem({ ...keys.agent(agent.botUuid, agent.uuid), type: agent.kind, ...agent }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/** Replaces an agent if it is still at `expectedVersion`; false when another write came first. */
export async function replaceAgent(agent: AgentRecord, expectedVersion: number): Promise<boolean> {
  return putItem(
    { ...keys.agent(agent.botUuid, agent.uuid), type: agent.kind, ...agent },
    { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } },
  );
}

export interface BotResources {
  personas: Persona[];
  functions: BotFunction[];
  collections: Collection[];
}

/** The bot's personas, functions and collections among the given uuids (those that exist). */
export async function getBotResources(
  botUuid: string,
  wanted: { personas: string[]; functions: string[]; collections: string[] },
): Promise<BotResources> {
  const personaKeys = wanted.personas.map((uuid) => keys.persona(botUuid, uuid));
  const functionKeys = wanted.functions.map((uuid) => keys.botFunction(botUuid, uuid));
  const collectionKeys = wanted.collections.map((uuid) => keys.collection(botUuid, uuid));
  // One read for all three kinds; each item is told apart by the key it was asked under.
  const found = await getItemsByKey<unknown>([...personaKeys, ...functionKeys, ...collectionKeys]);
  const pick = <T>(itemKeys: ItemKey[]) => itemKeys.flatMap((key) => (found.has(keyId(key)) ? [found.get(keyId(key)) as T] : []));
  return {
    personas: pick<Persona>(personaKeys),
    functions: pick<BotFunction>(functionKeys),
    collections: pick<Collection>(collectionKeys),
  };
}

/** The organization's tags among the given names (lower-cased match). */
export async function findTags(orgUuid: string, names: string[]): Promise<Tag[]> {
  return getItems<Tag>(names.map((name) => keys.tag(orgUuid, name)));
}

/** Creates a tag; false when the name was taken meanwhile (then read it back). */
export async function insertTag(orgUuid: string, tag: Tag): Promise<boolean> {
  return putItem({ ...keys.tag(orgUuid, tag.name), type: 'TAG', ...tag }, { ConditionExpression: 'attribute_not_exists(PK)' });
}
