import { randomUUID } from 'node:crypto';
import type { BotScope } from '../../domain/agents/bot-scope';
import { assignedFields, plainContentOf, withoutReplaced } from '../../domain/agents/agent.fields';
import { toAgentResponse, type AgentResponse } from '../../domain/agents/agent.mapper';
import { findTags, newAgent, readBotPartition, type AgentRecord, type BotPartition, type Rule } from '../../domain/agents/agent.repository';
import { changesBetween, type PatchOperation } from '../../domain/audit/audit-event';
import { ValidationError, type FieldIssue } from '../../kernel/errors';
import { without } from '../../kernel/schemas/declared-fields';
import type { Tag } from '../../domain/org/org.entities';
import { compareText, fold } from '../../kernel/text/matching';
import { byRole, configurationVersion } from './bundle-export';
import type { Bundle, BundleEntry } from './bundle.schemas';

/**
 * What applying a bundle to a bot would change: each entry matched with the bot's supervisor or agent
 * of the same role (the default supervisor with the default supervisor), its references resolved by
 * name against the bot, and the record it would leave. Reads only.
 */

export type ChangeAction = 'create' | 'update' | 'unchanged' | 'untouched';

export interface PlannedChange {
  kind: 'supervisor' | 'agent';
  role: string;
  action: ChangeAction;
  patch: PatchOperation[];
  /** The record as it is (absent for a creation). */
  current?: AgentRecord;
  /** The record the bundle makes of it, before its version and time are set (for `create` and `update`). */
  next?: AgentRecord;
  /** A new default supervisor: the bot's marker points at it. */
  asDefault?: boolean;
}

export interface Plan {
  baseVersion: string;
  changes: PlannedChange[];
  partition: BotPartition;
  /** Roles of the agents inheriting from the supervisor once the plan is applied, as a supervisor's read lists them. */
  heirs: string[];
  /** Tags the bundle names that the organization does not have yet (`uuid` empty until created). */
  newTags: Tag[];
}

/** An Agent as a plan compares it: without the assigned fields a bundle does not carry (the uuids, the derived `heirs`). */
function comparable(agent: AgentResponse) {
  const rest = without(agent, assignedFields);
  return { ...rest, constraints: rest.constraints.map(({ value }) => ({ value })), tags: rest.tags.map(({ name }) => ({ name })) };
}

/** The plan of `bundle` on the scope's bot; every name the bot lacks is one 422 `details` entry. */
export async function planBundle({ bot }: BotScope, bundle: Bundle, options: { consistent?: boolean } = {}): Promise<Plan> {
  const partition = await readBotPartition(bot.uuid, options);
  const issues: FieldIssue[] = [];
  const invalid = (fieldName: string, message: string) => issues.push({ fieldName, message, errorCode: 'FIELD_INVALID' });

  // The bot's resources by folded name; a name two resources share is ambiguous.
  const byName = <T extends { uuid: string; name: string }>(items: T[]) => {
    const map = new Map<string, T[]>();
    for (const item of items) map.set(fold(item.name), [...(map.get(fold(item.name)) ?? []), item]);
    return map;
  };
  const personas = byName(partition.resources.personas);
  const functions = byName(partition.resources.functions);
  const collections = byName(partition.resources.collections);
  const resolve = <T extends { uuid: string }>(map: Map<string, T[]>, name: string, path: string, what: string): string => {
    const found = map.get(fold(name)) ?? [];
    if (found.length === 0) invalid(path, `The bot has no ${what} named "${name}"; create it in the target bot or rename the reference`);
    if (found.length > 1) invalid(path, `The bot has ${found.length} ${what}s named "${name}"; rename one of them`);
    return found[0]?.uuid ?? '';
  };

  const tagNames = [...new Set([...bundle.supervisors, ...bundle.agents].flatMap((entry) => (entry.tags ?? []).map((tag) => tag.name.toLowerCase())))];
  const known = new Map((await findTags(bot.orgUuid, tagNames)).map((tag) => [tag.name.toLowerCase(), tag]));
  const newTags = tagNames.filter((name) => !known.has(name)).map((name) => ({ uuid: '', name }));
  for (const tag of newTags) known.set(tag.name, tag);

  const defaultUuid = partition.defaultSupervisorUuid;
  const targets = (kind: AgentRecord['kind']) => partition.agents.filter((record) => record.kind === kind && record.uuid !== defaultUuid);
  const matched = new Set<string>();
  /** The record of `kind` with the entry's role, or of the default supervisor for the default entry. */
  const match = (entry: BundleEntry, kind: AgentRecord['kind'], path: string): AgentRecord | undefined => {
    if (entry.default) return partition.agents.find((record) => record.uuid === defaultUuid);
    const found = targets(kind).filter((record) => fold(record.role) === fold(entry.role));
    if (found.length > 1) invalid(`${path}.role`, `The bot has ${found.length} ${kind === 'AGENT' ? 'agents' : 'supervisors'} with this role; give them distinct roles first`);
    return found[0];
  };

  const planned: { entry: BundleEntry; kind: AgentRecord['kind']; current?: AgentRecord; next: AgentRecord }[] = [];
  const plan = (entries: BundleEntry[], kind: AgentRecord['kind'], list: string) =>
    entries.forEach((entry, index) => {
      const path = `${list}.${index}`;
      const current = match(entry, kind, path);
      if (current) matched.add(current.uuid);
      const fields = {
        botUuid: bot.uuid,
        kind,
        ...plainContentOf(entry),
        personaUuid: resolve(personas, entry.persona.name, `${path}.persona.name`, 'persona'),
        constraints: rulesOf(current?.constraints ?? [], entry.constraints ?? []),
        tags: (entry.tags ?? []).map((tag) => known.get(tag.name.toLowerCase())!),
        functionUuids: (entry.functions ?? []).map((f, i) => resolve(functions, f.name, `${path}.functions.${i}.name`, 'function')),
        collectionUuids: (entry.knowledge ?? []).map((k, i) => resolve(collections, k.name, `${path}.knowledge.${i}.name`, 'knowledge collection')),
      };
      planned.push({ entry, kind, current, next: { ...withoutReplaced(current ?? newAgent(fields)), ...fields } });
    });
  plan(bundle.supervisors, 'SUPERVISOR', 'supervisors');
  plan(bundle.agents, 'AGENT', 'agents');
  if (issues.length > 0) throw new ValidationError({ details: issues });

  // Heirs as the bot will have them, so revisions and audit events read as a read after the apply would.
  const untouched = partition.agents.filter((record) => !matched.has(record.uuid));
  const heirs = [...untouched, ...planned.map((item) => item.next)]
    .filter((record) => record.kind === 'AGENT' && record.inheritFromSupervisor)
    .map((record) => record.role)
    .sort(compareText);
  const agentOf = (record: AgentRecord) =>
    toAgentResponse({ record, resources: partition.resources, heirs: record.kind === 'SUPERVISOR' ? heirs : [] });

  const changes: PlannedChange[] = planned.map(({ entry, kind, current, next }) => {
    const after = comparable(agentOf(next));
    const patch = changesBetween(current ? comparable(agentOf(current)) : undefined, after);
    const action: ChangeAction = !current ? 'create' : patch.length === 0 ? 'unchanged' : 'update';
    return {
      kind: kind === 'AGENT' ? 'agent' : 'supervisor',
      role: entry.role,
      action,
      patch,
      ...(current ? { current } : {}),
      ...(action === 'unchanged' ? {} : { next }),
      ...(!current && entry.default ? { asDefault: true } : {}),
    };
  });
  for (const record of untouched) {
    changes.push({ kind: record.kind === 'AGENT' ? 'agent' : 'supervisor', role: record.role, action: 'untouched', patch: [], current: record });
  }
  changes.sort((a, b) => Number(a.kind === 'agent') - Number(b.kind === 'agent') || byRole(a, b));
  return { baseVersion: configurationVersion(partition.agents), changes, partition, heirs, newTags };
}

/** Rules by value: a rule whose text the record has keeps its uuid, a new text gets a new one. */
function rulesOf(current: Rule[], given: { value: string }[]): Rule[] {
  const free = [...current];
  return given.map(({ value }) => {
    const index = free.findIndex((rule) => rule.value === value);
    return index >= 0 ? free.splice(index, 1)[0]! : { uuid: randomUUID(), value };
  });
}
