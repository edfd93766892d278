import type { BotFunction, Collection, Persona, Tag } from '../org/org.entities';
import type { AgentRecord, AgentSummaryRecord, BotResources, Parameters, Rule } from './agent.repository';

/** Persona (basic) of spec 2.2. */
export interface PersonaResponse {
  uuid: string;
  name: string;
  image: string | null;
  backstory: string | null;
  personality: string | null;
  communicationStyle: Persona['communicationStyle'];
}

/** Collection of spec 2.6. */
export type CollectionResponse = Omit<Collection, 'botUuid'>;

/** The Agent of spec 2.1, also the shape supervisors are read in. */
export interface AgentResponse {
  uuid: string;
  role: string;
  flowUUID: string;
  goal: string;
  instructions: string | null;
  guardrails: string | null;
  persona: PersonaResponse | null;
  inheritFromSupervisor: boolean;
  constraints: Rule[];
  tags: Tag[];
  parameters: Parameters | null;
  functions: { uuid: string; name: string }[];
  knowledge: CollectionResponse[];
  heirs: { role: string }[];
}

/** A listing's content item: the summary fields documented in docs/api/agents.md#listings. */
export interface AgentSummary {
  uuid: string;
  role: string;
  goal: string;
  tags: Tag[];
  inheritFromSupervisor: boolean;
  createdAt: string;
  updatedAt: string;
}

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

export function toAgentResponse(agent: AgentRecord, resources: BotResources, heirs: string[]): AgentResponse {
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
