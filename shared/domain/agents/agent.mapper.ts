import type { BotFunction, Collection, Persona } from '../org/org.entities';
import type { AgentRecord, AgentSummaryRecord, BotResources, Parameters } from './agent.repository';
import type { AgentResponse, AgentSummary, CollectionResponse, PersonaResponse, RevisionSummary } from './agent.responses';

export type { AgentResponse, AgentSummary, CollectionResponse, PersonaResponse, RevisionSummary };

/** Records to the shapes of `agent.responses.ts`: only the fields listed there ever leave. */

const toPersona = (p: Persona): PersonaResponse => ({
  uuid: p.uuid,
  name: p.name,
  image: p.image ?? null,
  backstory: p.backstory ?? null,
  personality: p.personality ?? null,
  communicationStyle: p.communicationStyle,
});

const toCollection = (c: Collection): CollectionResponse => ({
  uuid: c.uuid,
  name: c.name,
  description: c.description,
  documentCount: c.documentCount,
  searchType: { type: c.searchType.type, semanticWeight: c.searchType.semanticWeight, fullTextWeight: c.searchType.fullTextWeight },
  previousUserInput: c.previousUserInput,
  threshold: c.threshold,
  topK: c.topK,
});

const toParameters = (p: Parameters): Parameters => ({
  ...(p.maximumTokens !== undefined ? { maximumTokens: p.maximumTokens } : {}),
  requestTimeout: p.requestTimeout,
  temperature: p.temperature,
  topP: p.topP,
  presencePenalty: p.presencePenalty,
  frequencyPenalty: p.frequencyPenalty,
});

/** Keeps the agent's order of references; a resource that no longer exists is left out. */
function inOrder<T extends { uuid: string }>(uuids: string[], found: T[]): T[] {
  return uuids.flatMap((uuid) => found.filter((item) => item.uuid === uuid));
}

/**
 * A supervisor or agent with what its answer names: the bot's resources it references and, for a
 * supervisor, its heirs' roles. Use cases return one; the handler maps it with `toAgentResponse`.
 */
export interface AgentView {
  record: AgentRecord;
  resources: BotResources;
  heirs: string[];
}

export function toAgentResponse({ record: agent, resources, heirs }: AgentView): AgentResponse {
  const persona = resources.personas.find((p) => p.uuid === agent.personaUuid);
  return {
    uuid: agent.uuid,
    role: agent.role,
    flowUUID: agent.flowUUID,
    goal: agent.goal,
    instructions: agent.instructions ?? null,
    guardrails: agent.guardrails ?? null,
    persona: persona ? toPersona(persona) : null,
    inheritFromSupervisor: agent.inheritFromSupervisor,
    constraints: agent.constraints.map(({ uuid, value }) => ({ uuid, value })),
    tags: agent.tags.map(({ uuid, name }) => ({ uuid, name })),
    parameters: agent.parameters ? toParameters(agent.parameters) : null,
    functions: inOrder<BotFunction>(agent.functionUuids, resources.functions).map(({ uuid, name }) => ({ uuid, name })),
    knowledge: inOrder(agent.collectionUuids, resources.collections).map(toCollection),
    heirs: heirs.map((role) => ({ role })),
  };
}

export function toAgentSummary(agent: AgentSummaryRecord): AgentSummary {
  return {
    uuid: agent.uuid,
    role: agent.role,
    goal: agent.goal,
    tags: agent.tags.map(({ uuid, name }) => ({ uuid, name })),
    inheritFromSupervisor: agent.inheritFromSupervisor,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
  };
}

/** A revision listing's item. */
export const toRevisionSummary = (item: RevisionSummary): RevisionSummary => ({
  revision: item.revision,
  createdAt: item.createdAt,
  author: { uuid: item.author.uuid, email: item.author.email },
  action: item.action,
});
