import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../errors';
import { toPage, type Page } from '../http/page';
import type { AgentRecord, Bot, Rule, Tag } from '../org/org.entities';
import { compareText, fold, quickMatches } from '../text/matching';
import {
  findTags,
  getAgent,
  getBotResources,
  getDefaultSupervisorUuid,
  insertAgent,
  insertTag,
  listAgentSummaries,
  replaceAgent,
  type AgentSummaryRecord,
  type BotResources,
} from './agent.repository';
import { toAgentResponse, toAgentSummary, type AgentResponse, type AgentSummary } from './agent.mapper';
import type { AgentCreate, AgentUpdate, ListQuery, SupervisorUpdate } from './agent.schemas';

export type AgentKind = AgentRecord['kind'];

/** A read: the body and the ETag that a later `If-Match` must carry. */
export interface AgentView {
  body: AgentResponse;
  etag: string;
}

const etagOf = (agent: AgentRecord) => `"${agent.version}"`;
const notFound = (kind: AgentKind) => new NotFoundError(kind === 'SUPERVISOR' ? 'The supervisor was not found' : 'The agent was not found');

/** Supervisors or agents of a bot: filtered by `searchTerm` on role, goal and tag names, sorted, paged. */
export async function listAgents(bot: Bot, kind: AgentKind, query: ListQuery): Promise<Page<AgentSummary>> {
  const term = fold(query.searchTerm?.trim() ?? '');
  const matches = (agent: AgentSummaryRecord) =>
    !term || [agent.role, agent.goal, ...agent.tags.map((tag) => tag.name)].some((text) => fold(text).includes(term));
  const sign = query.direction === 'ASC' ? 1 : -1;
  const compare = (a: AgentSummaryRecord, b: AgentSummaryRecord) => {
    const primary = query.orderBy === 'role' ? compareText(a.role, b.role) : a[query.orderBy].localeCompare(b[query.orderBy]);
    return sign * (primary || a.uuid.localeCompare(b.uuid));
  };
  const agents = (await listAgentSummaries(bot.uuid)).filter((agent) => agent.kind === kind && matches(agent));
  return toPage(agents.sort(compare).map(toAgentSummary), query.page, query.size);
}

/** Roles of the bot's agents whose role matches the quicksearch term, alphabetical, at most `limit`. */
export async function quicksearchAgents(bot: Bot, name: string, limit: number): Promise<string[]> {
  return (await listAgentSummaries(bot.uuid))
    .filter((agent) => agent.kind === 'AGENT' && quickMatches(name, agent.role))
    .map((agent) => agent.role)
    .sort(compareText)
    .slice(0, limit);
}

/**
 * Starts a read while the caller's access to the bot is still being checked, to save a round trip;
 * the result is used only once access is granted, and a refusal wins over anything the read finds.
 */
async function whileAuthorizing<T>(access: Promise<Bot>, read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  await access;
  return read;
}

/** A supervisor or agent of the bot `botUuid` names, once `access` to that bot is granted. */
export async function readAgent(access: Promise<Bot>, botUuid: string, kind: AgentKind, uuid: string): Promise<AgentView> {
  const agent = await whileAuthorizing(access, getAgent(botUuid, uuid));
  if (!agent || agent.kind !== kind) throw notFound(kind);
  return view(agent);
}

export async function readDefaultSupervisor(access: Promise<Bot>, botUuid: string): Promise<AgentView> {
  const uuid = await whileAuthorizing(access, getDefaultSupervisorUuid(botUuid));
  if (!uuid) throw new NotFoundError('The bot has no default supervisor');
  const agent = await getAgent(botUuid, uuid);
  if (!agent || agent.kind !== 'SUPERVISOR') throw notFound('SUPERVISOR');
  return view(agent);
}

async function view(agent: AgentRecord, known?: BotResources): Promise<AgentView> {
  const [resources, heirs] = await Promise.all([
    known ??
      getBotResources(agent.botUuid, {
        personas: [agent.personaUuid],
        functions: agent.functionUuids,
        collections: agent.collectionUuids,
      }),
    agent.kind === 'SUPERVISOR' ? heirsOf(agent.botUuid) : Promise.resolve([]),
  ]);
  return { body: toAgentResponse(agent, resources, heirs), etag: etagOf(agent) };
}

/** Roles of the bot's agents that inherit from the supervisor, alphabetical. */
async function heirsOf(botUuid: string): Promise<string[]> {
  return (await listAgentSummaries(botUuid))
    .filter((agent) => agent.kind === 'AGENT' && agent.inheritFromSupervisor)
    .map((agent) => agent.role)
    .sort(compareText);
}

interface References {
  persona: { uuid: string };
  functions?: { uuid: string }[];
  knowledge?: { uuid: string }[];
  tags?: { uuid?: string; name: string }[];
}

/**
 * Checks every reference of a body against the bot (persona, functions, knowledge) and the
 * organization (tags) and returns what a write needs, or every problem at once. Nothing is written
 * here except, once all is valid, the organization's new tags.
 */
async function resolveReferences(bot: Bot, body: References, extraIssues: FieldIssue[] = []) {
  const functions = body.functions ?? [];
  const knowledge = body.knowledge ?? [];
  const tags = body.tags ?? [];
  const [resources, existingTags] = await Promise.all([
    getBotResources(bot.uuid, {
      personas: [body.persona.uuid],
      functions: functions.map((f) => f.uuid),
      collections: knowledge.map((k) => k.uuid),
    }),
    findTags(bot.orgUuid, [...new Set(tags.map((tag) => tag.name.toLowerCase()))]),
  ]);
  const issues = [...extraIssues];
  const invalid = (fieldName: string, message: string) => issues.push({ fieldName, message, errorCode: 'FIELD_INVALID' });
  if (!resources.personas.some((p) => p.uuid === body.persona.uuid)) invalid('persona.uuid', 'No persona with this uuid in this bot');
  functions.forEach((f, i) => {
    if (!resources.functions.some((found) => found.uuid === f.uuid)) invalid(`functions.${i}.uuid`, 'No function with this uuid in this bot');
  });
  knowledge.forEach((k, i) => {
    if (!resources.collections.some((found) => found.uuid === k.uuid)) invalid(`knowledge.${i}.uuid`, 'No knowledge collection with this uuid in this bot');
  });
  const byName = new Map(existingTags.map((tag) => [tag.name.toLowerCase(), tag]));
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const key = tag.name.toLowerCase();
    if (seen.has(key)) invalid(`tags.${i}.name`, 'Listed more than once');
    seen.add(key);
    if (tag.uuid && byName.get(key)?.uuid !== tag.uuid) invalid(`tags.${i}.uuid`, `Is not the uuid of the tag ${tag.name}`);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return { resources, tags: await ensureTags(bot.orgUuid, tags.map((tag) => tag.name), byName) };
}

/** The tags of the given names, creating in the organization those that do not exist yet. */
async function ensureTags(orgUuid: string, names: string[], known: Map<string, Tag>): Promise<Tag[]> {
  const result: Tag[] = [];
  for (const name of names) {
    let tag = known.get(name.toLowerCase());
    if (!tag) {
      const created = { uuid: randomUUID(), name };
      // Another request may create the same name first: then use its tag.
      tag = (await insertTag(orgUuid, created)) ? created : (await findTags(orgUuid, [name]))[0]!;
      known.set(name.toLowerCase(), tag);
    }
    result.push(tag);
  }
  return result;
}

const nowAfter = (previous?: string) =>
  new Date(Math.max(Date.now(), previous ? Date.parse(previous) + 1 : 0)).toISOString();

export async function createAgent(bot: Bot, body: AgentCreate): Promise<AgentView> {
  const { resources, tags } = await resolveReferences(bot, body);
  const at = nowAfter();
  const agent: AgentRecord = {
    uuid: randomUUID(),
    botUuid: bot.uuid,
    kind: 'AGENT',
    role: body.role,
    goal: body.goal,
    flowUUID: randomUUID(),
    ...(body.instructions ? { instructions: body.instructions } : {}),
    ...(body.guardrails ? { guardrails: body.guardrails } : {}),
    personaUuid: body.persona.uuid,
    inheritFromSupervisor: body.inheritFromSupervisor,
    constraints: (body.constraints ?? []).map(({ value }) => ({ uuid: randomUUID(), value })),
    tags,
    ...(body.parameters ? { parameters: body.parameters } : {}),
    functionUuids: (body.functions ?? []).map((f) => f.uuid),
    collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  await insertAgent(agent);
  return view(agent, resources);
}

/** Whether an `If-Match` header names the current version (`*` matches any). */
function ifMatchHolds(ifMatch: string, agent: AgentRecord): boolean {
  return ifMatch.split(',').some((tag) => {
    const value = tag.trim().replace(/^W\//, '');
    return value === '*' || value === etagOf(agent);
  });
}

/**
 * Constraints of an update: a rule with a uuid must be one of the agent's (its text may change), one
 * without is new, and rules left out are removed.
 */
function nextConstraints(current: Rule[], given: { uuid?: string; value: string }[] = []) {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const rules = given.map((rule, i) => {
    if (!rule.uuid) return { uuid: randomUUID(), value: rule.value };
    if (!current.some((existing) => existing.uuid === rule.uuid) || seen.has(rule.uuid)) {
      issues.push({ fieldName: `constraints.${i}.uuid`, message: 'Is not one of this agent’s rules', errorCode: 'FIELD_INVALID' });
    }
    seen.add(rule.uuid);
    return { uuid: rule.uuid, value: rule.value };
  });
  return { rules, issues };
}

/** Without If-Match a lost race is run again; enough rounds for many writers of one record at once. */
const MAX_ATTEMPTS = 12;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));

/**
 * Read, check, write with a condition on the version read. With `If-Match`, a changed version is a 409;
 * without it the last write wins, so a lost race is simply run again on the newer version.
 */
async function update(
  bot: Bot,
  kind: AgentKind,
  uuid: string,
  ifMatch: string | undefined,
  apply: (current: AgentRecord) => Promise<{ next: Omit<AgentRecord, 'updatedAt' | 'version'>; resources?: BotResources }>,
): Promise<AgentView> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await getAgent(bot.uuid, uuid);
    if (!current || current.kind !== kind) throw notFound(kind);
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current)) throw new ConflictError('VERSION_CONFLICT');
    const { next, resources } = await apply(current);
    const written: AgentRecord = { ...next, updatedAt: nowAfter(current.updatedAt), version: current.version + 1 };
    if (await replaceAgent(written, current.version)) return view(written, resources);
    if (ifMatch !== undefined) throw new ConflictError('VERSION_CONFLICT');
    await backoff(attempt);
  }
  throw new ConflictError('CONFLICT', 'The resource is being changed by other requests; try again');
}

/** Replaces the agent's editable fields: optional fields left out are cleared. */
export async function updateAgent(bot: Bot, uuid: string, body: AgentUpdate, ifMatch?: string): Promise<AgentView> {
  return update(bot, 'AGENT', uuid, ifMatch, async (current) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    const { resources, tags } = await resolveReferences(bot, body, constraints.issues);
    const { instructions: _i, guardrails: _g, parameters: _p, ...kept } = current;
    return {
      resources,
      next: {
        ...kept,
        role: body.role,
        goal: body.goal,
        ...(body.instructions ? { instructions: body.instructions } : {}),
        ...(body.guardrails ? { guardrails: body.guardrails } : {}),
        personaUuid: body.persona.uuid,
        inheritFromSupervisor: body.inheritFromSupervisor,
        constraints: constraints.rules,
        tags,
        ...(body.parameters ? { parameters: body.parameters } : {}),
        functionUuids: (body.functions ?? []).map((f) => f.uuid),
        collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
      },
    };
  });
}

/** Replaces what a supervisor update body carries; role, goal, functions and knowledge stay. */
export async function updateSupervisor(bot: Bot, uuid: string, body: SupervisorUpdate, ifMatch?: string): Promise<AgentView> {
  return update(bot, 'SUPERVISOR', uuid, ifMatch, async (current) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    // Functions and knowledge are not part of this body: the read-back loads them.
    const { tags } = await resolveReferences(bot, { persona: body.persona, tags: body.tags }, constraints.issues);
    const { instructions: _i, guardrails: _g, parameters: _p, ...kept } = current;
    return {
      next: {
        ...kept,
        ...(body.instructions ? { instructions: body.instructions } : {}),
        ...(body.guardrails ? { guardrails: body.guardrails } : {}),
        personaUuid: body.persona.uuid,
        constraints: constraints.rules,
        tags,
        ...(body.parameters ? { parameters: body.parameters } : {}),
      },
    };
  });
}
