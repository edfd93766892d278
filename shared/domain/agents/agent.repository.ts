import { randomUUID } from 'node:crypto';
import type { BotFunction, Collection, Persona, Tag } from '../org/org.entities';
import type { AgentContent } from './agent.fields';
import { keys } from '../../adapters/store/keys';
import type { ItemKey } from '../../adapters/store/keys';
import { ConflictError } from '../../kernel/errors';
import { nothingPrefetched, type Prefetched } from '../requests/prefetch.repository';
import { deleteItem, getItem, getItems, getItemsByKey, keyId, putItem, queryPartition, queryPrefix, transactWrite, type TableWrite } from '../../adapters/store/table';

/** The one owner of supervisor and agent items (and of a bot's default-supervisor marker). */

export type { Parameters, Rule } from './agent.fields';

/** A supervisor or an agent of a bot (read back in the Agent shape of docs/api/agents.md): its fields are `agent.fields.ts`'s. */
export interface AgentRecord extends AgentContent {
  uuid: string;
  botUuid: string;
  kind: 'SUPERVISOR' | 'AGENT';
  flowUUID: string;
  createdAt: string;
  updatedAt: string;
  /** Grows by one on every write; the ETag of reads and the condition of updates. */
  version: number;
  /** The first revision kept (`agent-revisions.ts`); absent on a record not written since revisions began. */
  revisionsFrom?: number;
}

export type AgentKind = AgentRecord['kind'];

/** What a caller decides of a new supervisor or agent; identity, timestamps and version are assigned on insert. */
export type NewAgent = Omit<AgentRecord, 'uuid' | 'flowUUID' | 'createdAt' | 'updatedAt' | 'version'>;

/** What a listing, a quicksearch and a supervisor's heirs need of each agent, read without the long text. */
export type AgentSummaryRecord = Pick<
  AgentRecord,
  'uuid' | 'kind' | 'role' | 'goal' | 'tags' | 'inheritFromSupervisor' | 'createdAt' | 'updatedAt'
>;

const summaryAttributes = ['uuid', 'kind', 'role', 'goal', 'tags', 'inheritFromSupervisor', 'createdAt', 'updatedAt'] as const;

const itemOf = (agent: AgentRecord) => ({ ...keys.agent(agent.botUuid, agent.uuid), type: agent.kind, ...agent });

export async function listAgentSummaries(botUuid: string): Promise<AgentSummaryRecord[]> {
  const { PK, SKPrefix } = keys.agentsOfBot(botUuid);
  return queryPrefix<AgentSummaryRecord>(PK, SKPrefix, summaryAttributes);
}

/** What `getAgent` reads, for a route's prefetch. */
export const agentReads = (botUuid: string, agentUuid: string): ItemKey[] => [keys.agent(botUuid, agentUuid)];

/** The record (strongly consistent with `consistent`), or the one `prefetched` holds when the caller's read brought it. */
export async function getAgent(
  botUuid: string,
  agentUuid: string,
  options: { consistent?: boolean; prefetched?: Prefetched } = {},
): Promise<AgentRecord | undefined> {
  const key = keys.agent(botUuid, agentUuid);
  const read = () => getItem<AgentRecord>(key, { consistent: options.consistent ?? false });
  return options.prefetched ? options.prefetched.or(key, read) : read();
}

/** What `getDefaultSupervisorUuid` reads, for a route's prefetch. */
export const defaultSupervisorReads = (botUuid: string): ItemKey[] => [keys.defaultSupervisor(botUuid)];

/** The uuid the bot's default-supervisor marker points at, from `prefetched` when the caller's read brought it. */
export async function getDefaultSupervisorUuid(botUuid: string, prefetched: Prefetched = nothingPrefetched): Promise<string | undefined> {
  const key = keys.defaultSupervisor(botUuid);
  return (await prefetched.or(key, () => getItem<{ agentUuid: string }>(key)))?.agentUuid;
}

/** A new supervisor or agent at version 1, not yet written. */
export function newAgent(fields: NewAgent): AgentRecord {
  const at = new Date().toISOString();
  return { ...fields, uuid: randomUUID(), flowUUID: randomUUID(), createdAt: at, updatedAt: at, version: 1, revisionsFrom: 1 };
}

/** The Put of a supervisor's or agent's item: a new one (`'new'`), or one still at the expected version. */
export function agentPut(agent: AgentRecord, expected: number | 'new'): TableWrite {
  return expected === 'new'
    ? { Put: { Item: itemOf(agent), ConditionExpression: 'attribute_not_exists(PK)' } }
    : { Put: { Item: itemOf(agent), ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expected } } };
}

/** The Put of the bot's default-supervisor marker, pointing at `agentUuid`. */
export const defaultMarkerPut = (botUuid: string, agentUuid: string): TableWrite => ({
  Put: { Item: { ...keys.defaultSupervisor(botUuid), type: 'DEFAULT_SUPERVISOR', agentUuid } },
});

/**
 * The check every write of a supervisor or agent makes in its transaction: no bundle is being applied
 * to the bot (`keys.bundleLease`), or its lease has expired.
 */
export function noBundleLease(botUuid: string): TableWrite {
  return {
    ConditionCheck: {
      Key: keys.bundleLease(botUuid),
      ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :now',
      ExpressionAttributeValues: { ':now': Date.now() },
    },
  };
}

const leaseHeld = () => new ConflictError({ code: 'BUNDLE_IN_PROGRESS' });

/**
 * Writes a new supervisor or agent in one transaction with `alongside` (its revision and audit event).
 * With `asDefault` (a supervisor), the bot's default-supervisor marker points at it.
 */
export async function insertAgent(agent: AgentRecord, alongside: TableWrite[], options: { asDefault?: boolean } = {}): Promise<void> {
  const marker = options.asDefault ? [defaultMarkerPut(agent.botUuid, agent.uuid)] : [];
  const writes = [agentPut(agent, 'new'), ...marker, ...alongside, noBundleLease(agent.botUuid)];
  const failed = await transactWrite(writes);
  if (failed.includes(writes.length - 1)) throw leaseHeld();
  if (failed.length > 0) throw new ConflictError('The agent exists already');
}

/**
 * Replaces an agent if it is still at `expectedVersion`, with `alongside` in the same transaction;
 * false when another write came first.
 */
export async function replaceAgent(agent: AgentRecord, expectedVersion: number, alongside: TableWrite[]): Promise<boolean> {
  const writes = [agentPut(agent, expectedVersion), ...alongside, noBundleLease(agent.botUuid)];
  const failed = await transactWrite(writes);
  if (failed.includes(writes.length - 1)) throw leaseHeld();
  if (failed.includes(0)) return false;
  if (failed.length > 0) throw new ConflictError('The resource is being changed by other requests; try again');
  return true;
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

/** The keys of an agent's references, by kind, in the agent's order. */
function referenceKeys(agent: AgentRecord) {
  return {
    personas: [keys.persona(agent.botUuid, agent.personaUuid)],
    functions: agent.functionUuids.map((uuid) => keys.botFunction(agent.botUuid, uuid)),
    collections: agent.collectionUuids.map((uuid) => keys.collection(agent.botUuid, uuid)),
  };
}

/** What reading the agent's references reads (its persona, functions and collections), for a route's prefetch. */
export function referenceReads(agent: AgentRecord): ItemKey[] {
  const { personas, functions, collections } = referenceKeys(agent);
  return [...personas, ...functions, ...collections];
}

const NOT_ASKED = Symbol('not asked');

/**
 * The agent's references as the caller's batch read them, when it asked for every one; otherwise
 * undefined (read them with `getBotResources`). As `getBotResources` answers: a reference that no
 * longer exists is left out.
 */
export async function prefetchedResources(agent: AgentRecord, prefetched: Prefetched): Promise<BotResources | undefined> {
  const wanted = referenceKeys(agent);
  const pick = async <T>(itemKeys: ItemKey[]) => Promise.all(itemKeys.map((key) => prefetched.or<T | typeof NOT_ASKED>(key, async () => NOT_ASKED)));
  const [personas, functions, collections] = await Promise.all([pick(wanted.personas), pick(wanted.functions), pick(wanted.collections)]);
  if ([personas, functions, collections].some((found) => found.includes(NOT_ASKED))) return undefined;
  const present = <T>(found: (T | typeof NOT_ASKED | undefined)[]) => found.filter((item): item is T => item !== undefined && item !== NOT_ASKED);
  return { personas: present(personas), functions: present(functions), collections: present(collections) } as BotResources;
}

/** The organization's tags among the given names (lower-cased match). */
export async function findTags(orgUuid: string, names: string[]): Promise<Tag[]> {
  return getItems<Tag>(names.map((name) => keys.tag(orgUuid, name)));
}

/** Creates a tag; false when the name was taken meanwhile (then read it back). */
export async function insertTag(orgUuid: string, tag: Tag): Promise<boolean> {
  return putItem({ ...keys.tag(orgUuid, tag.name), type: 'TAG', ...tag }, { ConditionExpression: 'attribute_not_exists(PK)' });
}

/** Everything of a bot's partition a bundle reads: its supervisors and agents, the default marker and its resources. */
export interface BotPartition {
  agents: AgentRecord[];
  defaultSupervisorUuid: string | undefined;
  resources: BotResources;
}

/**
 * The bot's partition in one Query (strongly consistent with `consistent`). Reads come without their
 * keys and `type`, so each item is told apart by what only its kind holds.
 */
export async function readBotPartition(botUuid: string, options: { consistent?: boolean } = {}): Promise<BotPartition> {
  const items = await queryPartition<Record<string, unknown>>(keys.botPartition(botUuid), { forward: true, consistent: options.consistent ?? false });
  const partition: BotPartition = { agents: [], defaultSupervisorUuid: undefined, resources: { personas: [], functions: [], collections: [] } };
  for (const item of items) {
    if (item.kind === 'AGENT' || item.kind === 'SUPERVISOR') partition.agents.push(item as unknown as AgentRecord);
    else if (typeof item.agentUuid === 'string') partition.defaultSupervisorUuid = item.agentUuid;
    else if (item.communicationStyle !== undefined) partition.resources.personas.push(item as unknown as Persona);
    else if (item.searchType !== undefined) partition.resources.collections.push(item as unknown as Collection);
    else if (typeof item.name === 'string' && item.leaseId === undefined) partition.resources.functions.push(item as unknown as BotFunction);
  }
  return partition;
}

/** Takes the bot's bundle lease (`keys.bundleLease`) until `expiresAt` (ms); false while another unexpired one is held. */
export async function takeBundleLease(botUuid: string, leaseId: string, expiresAt: number): Promise<boolean> {
  return putItem(
    { ...keys.bundleLease(botUuid), type: 'BUNDLE_LEASE', leaseId, expiresAt },
    { ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :now', ExpressionAttributeValues: { ':now': Date.now() } },
  );
}

/** The check of a bundle's own transactions: its lease is still the one held. */
export const bundleLeaseHeld = (botUuid: string, leaseId: string): TableWrite => ({
  ConditionCheck: { Key: keys.bundleLease(botUuid), ConditionExpression: 'leaseId = :lease', ExpressionAttributeValues: { ':lease': leaseId } },
});

export async function releaseBundleLease(botUuid: string, leaseId: string): Promise<void> {
  await deleteItem({ Key: keys.bundleLease(botUuid), ConditionExpression: 'leaseId = :lease', ExpressionAttributeValues: { ':lease': leaseId } });
}
