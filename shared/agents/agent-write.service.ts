import { randomUUID } from 'node:crypto';
import type { BotScope } from '../access/bot-access';
import { Prefetched } from '../auth/caller';
import { ConflictError, type FieldIssue } from '../errors';
import { count } from '../metrics';
import { keys } from '../store/keys';
import { getAgent, insertAgent, replaceAgent, type AgentKind, type AgentRecord, type BotResources, type Rule } from './agent.repository';
import { agentNotFound, versioned, type VersionedAgent } from './agent-read.service';
import { resolveReferences } from './agent-references';
import type { AgentCreate, AgentUpdate, SupervisorUpdate } from './agent.schemas';

/**
 * Which versions an update may replace: `'any'`, or one of those listed (an empty list matches none).
 * Absent, the last write wins.
 */
export type ExpectedVersions = 'any' | readonly number[];

export async function createAgent({ bot }: BotScope<'write'>, body: AgentCreate): Promise<VersionedAgent> {
  const { resources, tags } = await resolveReferences(bot, body);
  const agent = await insertAgent({
    botUuid: bot.uuid,
    kind: 'AGENT',
    role: body.role,
    goal: body.goal,
    ...(body.instructions ? { instructions: body.instructions } : {}),
    ...(body.guardrails ? { guardrails: body.guardrails } : {}),
    personaUuid: body.persona.uuid,
    inheritFromSupervisor: body.inheritFromSupervisor,
    constraints: (body.constraints ?? []).map(({ value }) => ({ uuid: randomUUID(), value })),
    tags,
    ...(body.parameters ? { parameters: body.parameters } : {}),
    functionUuids: (body.functions ?? []).map((f) => f.uuid),
    collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
  });
  count('AgentsCreated');
  return versioned(agent, resources);
}

/** Replaces the agent's editable fields: optional fields left out are cleared. */
export async function updateAgent(
  { bot }: BotScope<'write'>,
  uuid: string,
  body: AgentUpdate,
  expected?: ExpectedVersions,
  prefetched = Prefetched.none,
): Promise<VersionedAgent> {
  return update({ botUuid: bot.uuid, kind: 'AGENT', uuid, expected, prefetched }, async (current) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    const { resources, tags } = await resolveReferences(bot, body, constraints.issues);
    return {
      resources,
      next: {
        ...replaceShared(current, body, constraints.rules, tags),
        role: body.role,
        goal: body.goal,
        inheritFromSupervisor: body.inheritFromSupervisor,
        functionUuids: (body.functions ?? []).map((f) => f.uuid),
        collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
      },
    };
  });
}

/** Replaces what a supervisor update body carries; role, goal, functions and knowledge stay. */
export async function updateSupervisor(
  { bot }: BotScope<'write'>,
  uuid: string,
  body: SupervisorUpdate,
  expected?: ExpectedVersions,
  prefetched = Prefetched.none,
): Promise<VersionedAgent> {
  return update({ botUuid: bot.uuid, kind: 'SUPERVISOR', uuid, expected, prefetched }, async (current) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    // Functions and knowledge are not part of this body: the read-back loads them.
    const { tags } = await resolveReferences(bot, { persona: body.persona, tags: body.tags }, constraints.issues);
    return { next: replaceShared(current, body, constraints.rules, tags) };
  });
}

/**
 * What agent and supervisor updates both replace: instructions, guardrails and parameters (cleared
 * when left out), the persona, the constraints and the tags.
 */
function replaceShared(
  current: AgentRecord,
  body: Pick<SupervisorUpdate, 'instructions' | 'guardrails' | 'parameters' | 'persona'>,
  rules: Rule[],
  tags: AgentRecord['tags'],
): AgentRecord {
  const { instructions: _i, guardrails: _g, parameters: _p, ...kept } = current;
  return {
    ...kept,
    ...(body.instructions ? { instructions: body.instructions } : {}),
    ...(body.guardrails ? { guardrails: body.guardrails } : {}),
    personaUuid: body.persona.uuid,
    constraints: rules,
    tags,
    ...(body.parameters ? { parameters: body.parameters } : {}),
  };
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

const accepts = (expected: ExpectedVersions, version: number) => expected === 'any' || expected.includes(version);

const nowAfter = (previous: string) => new Date(Math.max(Date.now(), Date.parse(previous) + 1)).toISOString();

/** Without an expected version a lost race is run again; enough rounds for many writers of one record at once. */
const MAX_ATTEMPTS = 12;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));

/**
 * Read, check, write with a condition on the version read. With expected versions, another version is
 * a conflict; without, the last write wins, so a lost race is simply run again on the newer version.
 */
async function update(
  { botUuid, kind, uuid, expected, prefetched }: { botUuid: string; kind: AgentKind; uuid: string; expected?: ExpectedVersions; prefetched: Prefetched },
  apply: (current: AgentRecord) => Promise<{ next: Omit<AgentRecord, 'updatedAt' | 'version'>; resources?: BotResources }>,
): Promise<VersionedAgent> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // The caller's read may have brought the agent; a retry reads the version that beat us.
    const current = attempt === 1 ? await prefetched.or(keys.agent(botUuid, uuid), () => getAgent(botUuid, uuid)) : await getAgent(botUuid, uuid);
    if (!current || current.kind !== kind) throw agentNotFound(kind);
    if (expected !== undefined && !accepts(expected, current.version)) throw new ConflictError('VERSION_CONFLICT');
    const { next, resources } = await apply(current);
    const written: AgentRecord = { ...next, updatedAt: nowAfter(current.updatedAt), version: current.version + 1 };
    if (await replaceAgent(written, current.version)) {
      count(kind === 'AGENT' ? 'AgentsUpdated' : 'SupervisorsUpdated');
      return versioned(written, resources);
    }
    if (expected !== undefined) throw new ConflictError('VERSION_CONFLICT');
    await backoff(attempt);
  }
  throw new ConflictError('CONFLICT', 'The resource is being changed by other requests; try again');
}
