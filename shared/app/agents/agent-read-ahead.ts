import { prefetchedResources, referenceReads, type AgentKind, type AgentRecord } from '../../domain/agents/agent.repository';
import type { AgentView } from '../../domain/agents/agent.mapper';
import type { BotScope } from '../../domain/agents/bot-scope';
import type { ItemKey, Prefetched } from '../../domain/requests/prefetch.repository';
import { requireRecord, viewOf } from './agent-read.service';

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

/** What the agent referenced when this container last answered it (nothing when it has not): for a route's prefetch. */
export const rememberedReferenceKeys = (botUuid: string, agentUuid: string): ItemKey[] => referencedKeys.get(agentId(botUuid, agentUuid)) ?? [];

function remember(agent: AgentRecord): void {
  const id = agentId(agent.botUuid, agent.uuid);
  referencedKeys.delete(id);
  if (referencedKeys.size >= AGENTS_KEPT) referencedKeys.delete(referencedKeys.keys().next().value!);
  referencedKeys.set(id, referenceReads(agent));
}

/**
 * A supervisor or agent of the scope's bot as `readAgent` answers it, its references taken from the
 * caller's batch when it brought them all (`rememberedReferenceKeys`, else `getBotResources` reads
 * them); remembered for the next read.
 */
export async function readAgentAhead(scope: BotScope, kind: AgentKind, uuid: string, prefetched: Prefetched): Promise<AgentView> {
  const record = await requireRecord(scope, kind, uuid, prefetched);
  const view = await viewOf(record, await prefetchedResources(record, prefetched));
  remember(record);
  return view;
}
