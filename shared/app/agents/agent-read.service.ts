import { NotFoundError } from '../../kernel/errors';
import { compareText, fold, quickMatches } from '../../kernel/text/matching';
import { nothingPrefetched, type Prefetched } from '../../domain/requests/prefetch.repository';
import { botPathReads } from '../../domain/agents/bot-access.repository';
import type { BotPath, BotScope } from '../../domain/agents/bot-scope';
import { toAgentResponse, toAgentSummary, type AgentResponse, type AgentSummary, type AgentView } from '../../domain/agents/agent.mapper';
import {
  agentReads,
  defaultSupervisorReads,
  getAgent,
  getBotResources,
  getDefaultSupervisorUuid,
  listAgentSummaries,
  type AgentKind,
  type AgentRecord,
  type AgentSummaryRecord,
  type BotResources,
} from '../../domain/agents/agent.repository';
import type { ListQuery } from '../../domain/agents/agent.schemas';

export type { AgentKind, AgentView, ListQuery, Prefetched };

/** One page of a listing, how many items the whole listing holds, and where the next page starts (absent on the last). */
export interface AgentSlice {
  items: AgentSummary[];
  total: number;
  next?: AgentPosition;
}

/** Where a page starts: the order's value and the uuid of the last item of the page before. */
export type AgentPosition = [value: string, uuid: string];

export const agentNotFound = (kind: AgentKind) =>
  new NotFoundError(kind === 'SUPERVISOR' ? 'The supervisor was not found' : 'The agent was not found');

/**
 * Supervisors or agents of a bot: filtered by `searchTerm` on role, goal and tag names, sorted, page
 * `query.page` (from 1) or the page after `after` (a page token's position). Every page reads the
 * bot's summaries whole (one Query of its partition) and sorts them: the cost of any page, the first
 * too, is the bot's size, whatever its depth.
 */
export async function listAgents({ bot }: BotScope, kind: AgentKind, query: ListQuery, after?: AgentPosition): Promise<AgentSlice> {
  const term = fold(query.searchTerm?.trim() ?? '');
  const matches = (agent: AgentSummaryRecord) =>
    !term || [agent.role, agent.goal, ...agent.tags.map((tag) => tag.name)].some((text) => fold(text).includes(term));
  const sign = query.direction === 'ASC' ? 1 : -1;
  const compare = (a: AgentSummaryRecord, b: AgentSummaryRecord) => {
    const primary = query.orderBy === 'role' ? compareText(a.role, b.role) : a[query.orderBy].localeCompare(b[query.orderBy]);
    return sign * (primary || a.uuid.localeCompare(b.uuid));
  };
  const agents = (await listAgentSummaries(bot.uuid)).filter((agent) => agent.kind === kind && matches(agent)).sort(compare);
  const last = after && ({ role: after[0], updatedAt: after[0], createdAt: after[0], uuid: after[1] } as AgentSummaryRecord);
  const start = last ? agents.findIndex((agent) => compare(agent, last) > 0) : (query.page - 1) * query.size;
  const items = start < 0 ? [] : agents.slice(start, start + query.size);
  const end = items.at(-1);
  const next: AgentPosition | undefined = end && start + query.size < agents.length ? [end[query.orderBy], end.uuid] : undefined;
  return { items: items.map(toAgentSummary), total: agents.length, ...(next ? { next } : {}) };
}

/** Roles of the bot's agents whose role matches the quicksearch term, alphabetical, at most `limit`. */
export async function quicksearchAgents({ bot }: BotScope, name: string, limit: number): Promise<string[]> {
  return (await listAgentSummaries(bot.uuid))
    .filter((agent) => agent.kind === 'AGENT' && quickMatches(name, agent.role))
    .map((agent) => agent.role)
    .sort(compareText)
    .slice(0, limit);
}

/** What authorizing a path and `readAgent` read, for a route's prefetch: environment, bot and the agent. */
export const agentReadKeys = (path: BotPath, uuid: string) => [...botPathReads(path), ...agentReads(path.botUUID, uuid)];

/** What authorizing a path and `readDefaultSupervisor` read first: environment, bot and the default pointer. */
export const defaultSupervisorReadKeys = (path: BotPath) => [...botPathReads(path), ...defaultSupervisorReads(path.botUUID)];

/** A supervisor or agent of the scope's bot (from `prefetched` when the caller's read brought it); then its references. */
export async function readAgent(scope: BotScope, kind: AgentKind, uuid: string, prefetched: Prefetched = nothingPrefetched): Promise<AgentView> {
  return viewOf(await requireRecord(scope, kind, uuid, prefetched));
}

/** The stored record of a supervisor or agent of the scope's bot, or 404. */
export async function requireRecord({ bot }: BotScope, kind: AgentKind, uuid: string, prefetched: Prefetched = nothingPrefetched): Promise<AgentRecord> {
  return found(kind, await getAgent(bot.uuid, uuid, { prefetched }));
}

/**
 * The record read strongly consistent, or 404: what the revision routes start from, so a revision
 * written just before is counted and found (an eventually consistent read could return the version
 * before it).
 */
export async function requireLatestRecord({ bot }: BotScope, kind: AgentKind, uuid: string): Promise<AgentRecord> {
  return found(kind, await getAgent(bot.uuid, uuid, { consistent: true }));
}

function found(kind: AgentKind, agent: AgentRecord | undefined): AgentRecord {
  if (!agent || agent.kind !== kind) throw agentNotFound(kind);
  return agent;
}

export async function readDefaultSupervisor({ bot }: BotScope, prefetched: Prefetched = nothingPrefetched): Promise<AgentView> {
  const uuid = await getDefaultSupervisorUuid(bot.uuid, prefetched);
  if (!uuid) throw new NotFoundError('The bot has no default supervisor');
  const agent = await getAgent(bot.uuid, uuid);
  if (!agent || agent.kind !== 'SUPERVISOR') throw agentNotFound('SUPERVISOR');
  return viewOf(agent);
}

/** The record with what its answer names; `known` saves reading resources a write has just resolved. */
export async function viewOf(agent: AgentRecord, known?: BotResources): Promise<AgentView> {
  const [resources, heirs] = await Promise.all([
    known ??
      getBotResources(agent.botUuid, {
        personas: [agent.personaUuid],
        functions: agent.functionUuids,
        collections: agent.collectionUuids,
      }),
    agent.kind === 'SUPERVISOR' ? heirsOf(agent.botUuid) : Promise.resolve([]),
  ]);
  return { record: agent, resources, heirs };
}

/** Roles of the bot's agents that inherit from the supervisor, alphabetical. */
async function heirsOf(botUuid: string): Promise<string[]> {
  return (await listAgentSummaries(botUuid))
    .filter((agent) => agent.kind === 'AGENT' && agent.inheritFromSupervisor)
    .map((agent) => agent.role)
    .sort(compareText);
}

/** A supervisor or agent as the API answers it (docs/api/agents.md), and its version: the answer's ETag. */
export function shownAgent(view: AgentView): { agent: AgentResponse; version: number } {
  return { agent: toAgentResponse(view), version: view.record.version };
}
