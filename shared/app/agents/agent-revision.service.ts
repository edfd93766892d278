import { NotFoundError, ValidationError } from '../../kernel/errors';
import { changesBetween, type PatchOperation } from '../../domain/audit/audit-event';
import type { BotScope } from '../../domain/agents/bot-scope';
import { toRevisionSummary, type AgentResponse } from '../../domain/agents/agent.mapper';
import type { AgentKind, AgentRecord } from '../../domain/agents/agent.repository';
import { getRevision, listRevisionSummaries } from '../../domain/agents/agent-revision.repository';
import { contentOf, revisionCount, type Revision, type RevisionDiff, type RevisionSummary } from '../../domain/agents/agent-revisions';
import { requireLatestRecord } from './agent-read.service';

/**
 * The revisions of supervisors and agents (docs/api/agents.md, `agent-revisions.ts` says what one
 * is). The routes' use cases read the record strongly consistent first (`requireLatestRecord`), so a
 * revision written just before is counted and found.
 */

/** fast-json-patch's operation types are closed interfaces; the answer's patch operation is open to extensions. */
const asPatch = (patch: PatchOperation[]) => patch as RevisionDiff['patch'];

/**
 * Revisions `page` (from 1) of `size`, or the `size` older than revision `before` (a page token's
 * position), newest first, as stored (`toRevisionSummary` answers them): one Query over a key range at
 * any depth. `next` is the oldest revision of the page when older ones are kept.
 */
export async function listRevisions(
  record: AgentRecord,
  page: number,
  size: number,
  before?: number,
): Promise<{ items: RevisionSummary[]; total: number; next?: number }> {
  const total = revisionCount(record);
  const newest = before !== undefined ? before - 1 : record.version - (page - 1) * size;
  const oldest = Math.max(newest - size + 1, record.revisionsFrom ?? newest + 1);
  if (total === 0 || newest < oldest) return { items: [], total };
  const items = await listRevisionSummaries(record, oldest, newest);
  return { items, total, ...(oldest > (record.revisionsFrom ?? oldest) ? { next: oldest } : {}) };
}

/** One revision of a record, or 404. */
export async function readRevision(record: AgentRecord, revision: number, kind: AgentKind): Promise<Revision> {
  const stored = await getRevision(record, revision);
  if (!stored) throw new NotFoundError(`The ${kind === 'SUPERVISOR' ? 'supervisor' : 'agent'} has no revision ${revision}`);
  return { ...toRevisionSummary(stored.summary), agent: stored.agent, content: contentOf(stored.agent, stored.references) };
}

/**
 * The patch from revision `against` (by default the one before) to revision `revision`. For the first
 * revision kept, with no revision before it, `from` is null and the patch adds the whole Agent.
 */
export async function diffRevisions(record: AgentRecord, kind: AgentKind, revision: number, against?: number): Promise<RevisionDiff> {
  const to = await readRevision(record, revision, kind);
  const fromNumber = against ?? revision - 1;
  if (against === undefined && (record.revisionsFrom === undefined || revision <= record.revisionsFrom)) {
    return { from: null, to: revision, patch: asPatch(changesBetween(undefined, to.agent)) };
  }
  if (fromNumber < 1) throw new ValidationError({ details: [{ fieldName: 'against', message: 'Must be a revision number', errorCode: 'FIELD_INVALID' }] });
  const from = await readRevision(record, fromNumber, kind);
  return { from: fromNumber, to: revision, patch: asPatch(changesBetween(from.agent, to.agent)) };
}

/** A page of the revisions of a supervisor or agent of the scope's bot, as the API answers them; `before` as for `listRevisions`. */
export async function listAgentRevisions(
  scope: BotScope,
  kind: AgentKind,
  uuid: string,
  page: { page: number; size: number; before?: number | undefined },
): Promise<{ items: RevisionSummary[]; total: number; next?: number }> {
  const { items, total, next } = await listRevisions(await requireLatestRecord(scope, kind, uuid), page.page, page.size, page.before);
  return { items: items.map(toRevisionSummary), total, ...(next === undefined ? {} : { next }) };
}

/** Revision `revision` of a supervisor or agent of the scope's bot: the Agent it read as, or 404. */
export async function readAgentRevision(scope: BotScope, kind: AgentKind, uuid: string, revision: number): Promise<AgentResponse> {
  return (await readRevision(await requireLatestRecord(scope, kind, uuid), revision, kind)).agent;
}

/** The patch between two revisions of a supervisor or agent of the scope's bot (`diffRevisions`). */
export async function diffAgentRevisions(scope: BotScope, kind: AgentKind, uuid: string, revision: number, against?: number): Promise<RevisionDiff> {
  return diffRevisions(await requireLatestRecord(scope, kind, uuid), kind, revision, against);
}
