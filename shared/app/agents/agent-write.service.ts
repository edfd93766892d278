import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../kernel/errors';
import { count } from '../../kernel/metrics';
import { changesBetween } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import type { Bot } from '../../domain/org/org.entities';
import { nothingPrefetched, type Prefetched } from '../../domain/requests/prefetch.repository';
import type { BotScope } from '../../domain/agents/bot-scope';
import { toAgentResponse, type AgentResponse, type AgentView } from '../../domain/agents/agent.mapper';
import {
  getAgent,
  insertAgent,
  newAgent,
  replaceAgent,
  type AgentKind,
  type AgentRecord,
  type BotResources,
  type NewAgent,
  type Rule,
} from '../../domain/agents/agent.repository';
import { revisionWrite } from '../../domain/agents/agent-revision.repository';
import type { RevisionAction } from '../../domain/agents/agent-revisions';
import { resolveReferences } from '../../domain/agents/agent-references';
import { assignedIssues, keptFields, keptIssues, nextConstraints } from '../../domain/agents/agent-update-checks';
import type { AgentCreate, AgentUpdate, SupervisorUpdate } from '../../domain/agents/agent.schemas';
import { agentNotFound, viewOf } from './agent-read.service';
import { readRevision } from './agent-revision.service';
import { plainContentOf, supervisorReplaces, withoutReplaced } from '../../domain/agents/agent.fields';

/**
 * Which versions an update may replace: `'any'`, or one of those listed (an empty list matches none).
 * Absent, the last write wins.
 */
export type ExpectedVersions = 'any' | readonly number[];

export async function createAgent({ bot }: BotScope<'write'>, body: AgentCreate): Promise<AgentView> {
  const { resources, tags } = await resolveReferences(bot, body);
  const created = await insertWithHistory(
    bot,
    {
      botUuid: bot.uuid,
      kind: 'AGENT',
      ...plainContentOf(body),
      personaUuid: body.persona.uuid,
      constraints: (body.constraints ?? []).map(({ value }) => ({ uuid: randomUUID(), value })),
      tags,
      functionUuids: (body.functions ?? []).map((f) => f.uuid),
      collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
    },
    {},
    resources,
  );
  count('AgentsCreated');
  return created;
}

/**
 * Writes a new supervisor or agent with its first revision and its audit event, all in one
 * transaction (the operator's supervisors too, through `org-admin.service`).
 */
export async function insertWithHistory(
  bot: Bot,
  fields: NewAgent,
  options: { asDefault?: boolean } = {},
  known?: BotResources,
): Promise<AgentView> {
  const record = newAgent(fields);
  const created = await shownAs(record, known);
  await insertAgent(record, historyOf(bot, record, 'CREATED', undefined, created.agent), options);
  return created.view;
}

/** A record as its answer shows it: what its revision and audit event keep. */
interface Shown {
  view: AgentView;
  agent: AgentResponse;
}

async function shownAs(record: AgentRecord, known?: BotResources): Promise<Shown> {
  const view = await viewOf(record, known);
  return { view, agent: toAgentResponse(view) };
}

/** The revision and the audit event of a write that made `record`, read as `after`: written in the record's transaction. */
function historyOf(bot: Bot, record: AgentRecord, action: RevisionAction, before: AgentResponse | undefined, after: AgentResponse) {
  return [
    revisionWrite(record, after, action),
    ...auditWrites({
      orgUuid: bot.orgUuid,
      action: `${record.kind}_${action}`,
      resource: { type: record.kind, uuid: record.uuid },
      changes: changesBetween(before, after),
      at: record.updatedAt,
      place: { environmentUuid: bot.envUuid, botUuid: bot.uuid },
    }),
  ];
}

/**
 * Replaces the agent's editable fields: optional fields left out are cleared. What the body carries
 * of a read besides (`uuid`, `flowUUID`, `heirs`, the details of its references) is checked or
 * ignored as `assignedIssues` says.
 */
export async function updateAgent(
  { bot }: BotScope<'write'>,
  uuid: string,
  body: AgentUpdate,
  expected?: ExpectedVersions,
  prefetched: Prefetched = nothingPrefetched,
): Promise<AgentView> {
  return update({ bot, kind: 'AGENT', uuid, expected, prefetched, action: 'UPDATED' }, async (current) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    const { resources, tags } = await resolveReferences(bot, body, [...assignedIssues(current, body), ...constraints.issues]);
    return {
      resources,
      next: {
        ...replaceShared(current, body, constraints.rules, tags),
        ...plainContentOf(body),
        functionUuids: (body.functions ?? []).map((f) => f.uuid),
        collectionUuids: (body.knowledge ?? []).map((k) => k.uuid),
      },
    };
  });
}

/**
 * Replaces what a supervisor update body carries; role, goal, functions and knowledge stay. A body
 * may carry them too, as a read shows them, but only unchanged (`keptIssues`).
 */
export async function updateSupervisor(
  { bot }: BotScope<'write'>,
  uuid: string,
  body: SupervisorUpdate,
  expected?: ExpectedVersions,
  prefetched: Prefetched = nothingPrefetched,
): Promise<AgentView> {
  return update({ bot, kind: 'SUPERVISOR', uuid, expected, prefetched, action: 'UPDATED' }, async (current, before) => {
    const constraints = nextConstraints(current.constraints, body.constraints);
    // Only a body carrying the fields this route keeps waits for the read to compare them with.
    const kept = keptFields.some((field) => body[field] !== undefined) ? keptIssues((await before).agent, body) : [];
    const issues = [...assignedIssues(current, body), ...kept, ...constraints.issues];
    // Functions and knowledge are not changed by this body: the read-back loads them.
    const { tags } = await resolveReferences(bot, { persona: body.persona, tags: body.tags }, issues);
    return { next: replaceShared(current, body, constraints.rules, tags) };
  });
}

/**
 * Makes the content of a supervisor or agent that of its revision `revision` (everything
 * `AgentContent` holds), as a new revision `RESTORED`. `expected` as for updates. A reference of that
 * revision the bot no longer has is a ValidationError naming it (as the revision's Agent names it),
 * and nothing changes.
 */
export async function restoreRevision(
  { bot }: BotScope<'write'>,
  kind: AgentKind,
  uuid: string,
  revision: number,
  expected?: ExpectedVersions,
  prefetched: Prefetched = nothingPrefetched,
): Promise<AgentView> {
  const restored = await update({ bot, kind, uuid, expected, prefetched, action: 'RESTORED' }, async (current) => {
    const { content } = await readRevision(current, revision, kind);
    const { resources, tags } = await resolveReferences(bot, {
      persona: { uuid: content.personaUuid },
      functions: content.functionUuids.map((reference) => ({ uuid: reference })),
      knowledge: content.collectionUuids.map((reference) => ({ uuid: reference })),
      tags: content.tags,
    });
    return { resources, next: { ...withoutReplaced(current), ...content, tags } };
  });
  count('RevisionsRestored');
  return restored;
}

/**
 * What agent and supervisor updates both replace: the plain fields a supervisor's update sets
 * (`supervisorReplaces`; optional ones are cleared when left out), the persona, the constraints and the tags.
 */
function replaceShared(current: AgentRecord, body: SupervisorUpdate, rules: Rule[], tags: AgentRecord['tags']): AgentRecord {
  return {
    ...withoutReplaced(current),
    ...plainContentOf(body, supervisorReplaces),
    personaUuid: body.persona.uuid,
    constraints: rules,
    tags,
  };
}

const accepts = (expected: ExpectedVersions, version: number) => expected === 'any' || expected.includes(version);

const nowAfter = (previous: string) => new Date(Math.max(Date.now(), Date.parse(previous) + 1)).toISOString();

/** Without an expected version a lost race is run again; enough rounds for many writers of one record at once. */
const MAX_ATTEMPTS = 12;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));

/**
 * Read, check, write with a condition on the version read, together with the new revision and the
 * audit event (the patch between the Agent as read before and after). With expected versions, another
 * version is a conflict; without, the last write wins, so a lost race is simply run again on the
 * newer version.
 */
async function update(
  {
    bot,
    kind,
    uuid,
    expected,
    prefetched,
    action,
  }: { bot: Bot; kind: AgentKind; uuid: string; expected?: ExpectedVersions; prefetched: Prefetched; action: RevisionAction },
  apply: (
    current: AgentRecord,
    before: Promise<Shown>,
  ) => Promise<{ next: Omit<AgentRecord, 'updatedAt' | 'version'>; resources?: BotResources }>,
): Promise<AgentView> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // The caller's read may have brought the agent; a retry reads the version that beat us.
    const current =
      attempt === 1 ? await getAgent(bot.uuid, uuid, { prefetched }) : await getAgent(bot.uuid, uuid);
    if (!current || current.kind !== kind) throw agentNotFound(kind);
    if (expected !== undefined && !accepts(expected, current.version)) throw new ConflictError({ code: 'VERSION_CONFLICT' });
    // The read of `current`, as the audit event's `before`, and for `apply` to compare a body with.
    const shown = shownAs(current);
    const [{ next, resources }, before] = await Promise.all([apply(current, shown), shown]);
    const version = current.version + 1;
    // Revisions began at this record's creation, or begin now for a record older than them.
    const written: AgentRecord = { ...next, updatedAt: nowAfter(current.updatedAt), version, revisionsFrom: current.revisionsFrom ?? version };
    const after = await shownAs(written, resources);
    if (await replaceAgent(written, current.version, historyOf(bot, written, action, before.agent, after.agent))) {
      if (action === 'UPDATED') count(kind === 'AGENT' ? 'AgentsUpdated' : 'SupervisorsUpdated');
      return after.view;
    }
    if (expected !== undefined) throw new ConflictError({ code: 'VERSION_CONFLICT' });
    await backoff(attempt);
  }
  throw new ConflictError('The resource is being changed by other requests; try again');
}
