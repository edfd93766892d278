import { agentFields, type FieldSource } from './agent.fields';
import type { AgentRecord, AgentSummaryRecord, BotResources } from './agent.repository';
import type { AgentResponse, AgentSummary, CollectionResponse, PersonaResponse, RevisionSummary } from './agent.responses';

export type { AgentResponse, AgentSummary, CollectionResponse, PersonaResponse, RevisionSummary };

/** Records to the shapes of `agent.responses.ts`: only the fields `agent.fields.ts` declares ever leave. */

/**
 * A supervisor or agent with what its answer names: the bot's resources it references and, for a
 * supervisor, its heirs' roles. Use cases return one; the handler maps it with `toAgentResponse`.
 */
export interface AgentView {
  record: AgentRecord;
  resources: BotResources;
  heirs: string[];
}

/** Each field of `agentFields` as its `read` shows it, in the declaration's order. */
export function toAgentResponse(view: AgentView): AgentResponse {
  const source = view as unknown as FieldSource;
  return Object.fromEntries(Object.entries(agentFields).map(([name, field]) => [name, field.read(source, name)])) as AgentResponse;
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
