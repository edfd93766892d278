import { requireRecord, viewOf } from '../../shared/domain/agents/agent-read.service';
import type { AgentView } from '../../shared/domain/agents/agent.mapper';
import type { AgentKind, AgentRecord, BotResources } from '../../shared/domain/agents/agent.repository';
import type { BotScope } from '../../shared/domain/agents/bot-scope';
import { keys, type ItemKey } from '../../shared/adapters/store/keys';
import type { Prefetched } from '../../shared/adapters/store/prefetched';

/**
 * An agent's answer needs the persona, functions and collections it references, which are known only
 * once the agent is read: a second round trip after the caller's BatchGetItem. This container keeps,
 * for the agents it last answered, the keys of what each referenced, so that the next read of the same
 * agent asks for them in the caller's batch. Only keys are kept, never items: the items are read on
 * every request, so a key that went stale (the agent now references something else) costs the second
 * round trip as before, never a wrong answer.
 */
const referencedKeys = new Map<string, ItemKey[]>();
/** Agents remembered; the one remembered longest ago goes first. */
const AGENTS_KEPT = 1000;

const agentId = (botUuid: string, agentUuid: string) => `${botUuid}/${agentUuid}`;

/** The keys of an agent's references, by kind, in the agent's order. */
function referenceKeys(agent: AgentRecord) {
  return {
    personas: [keys.persona(agent.botUuid, agent.personaUuid)],
    functions: agent.functionUuids.map((uuid) => keys.botFunction(agent.botUuid, uuid)),
    collections: agent.collectionUuids.map((uuid) => keys.collection(agent.botUuid, uuid)),
  };
}

/** What the agent referenced when this container last answered it (nothing when it has not): for a route's prefetch. */
export const rememberedReferenceKeys = (botUuid: string, agentUuid: string): ItemKey[] => referencedKeys.get(agentId(botUuid, agentUuid)) ?? [];

function remember(agent: AgentRecord): void {
  const id = agentId(agent.botUuid, agent.uuid);
  const { personas, functions, collections } = referenceKeys(agent);
  referencedKeys.delete(id);
  if (referencedKeys.size >= AGENTS_KEPT) referencedKeys.delete(referencedKeys.keys().next().value!);
  referencedKeys.set(id, [...personas, ...functions, ...collections]);
}

const NOT_ASKED = Symbol('not asked');

/**
 * The agent's references as the caller's batch read them, when it asked for every one; otherwise
 * undefined, and the use case reads them. As `getBotResources` answers: a reference that no longer
 * exists is left out.
 */
async function prefetchedReferences(agent: AgentRecord, prefetched: Prefetched): Promise<BotResources | undefined> {
  const wanted = referenceKeys(agent);
  const pick = async <T>(itemKeys: ItemKey[]) => Promise.all(itemKeys.map((key) => prefetched.or<T | typeof NOT_ASKED>(key, async () => NOT_ASKED)));
  const [personas, functions, collections] = await Promise.all([pick(wanted.personas), pick(wanted.functions), pick(wanted.collections)]);
  if ([personas, functions, collections].some((found) => found.includes(NOT_ASKED))) return undefined;
  const present = <T>(found: (T | typeof NOT_ASKED | undefined)[]) => found.filter((item): item is T => item !== undefined && item !== NOT_ASKED);
  return { personas: present(personas), functions: present(functions), collections: present(collections) } as BotResources;
}

/**
 * A supervisor or agent of the scope's bot as `readAgent` answers it, its references taken from the
 * caller's batch when it brought them all (`rememberedReferenceKeys`); remembered for the next read.
 */
export async function readAgentAhead(scope: BotScope, kind: AgentKind, uuid: string, prefetched: Prefetched): Promise<AgentView> {
  const record = await requireRecord(scope, kind, uuid, prefetched);
  const view = await viewOf(record, await prefetchedReferences(record, prefetched));
  remember(record);
  return view;
}
