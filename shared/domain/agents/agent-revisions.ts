import { gunzipSync, gzipSync } from 'node:zlib';
import { auditContext } from '../audit/audit-context';
import { changesBetween, type PatchOperation } from '../audit/audit-event';
import { NotFoundError, ValidationError } from '../../kernel/errors';
import { keys } from '../../adapters/store/keys';
import { getItem, queryPartition, type TableWrite } from '../../adapters/store/table';
import { toRevisionSummary } from './agent.mapper';
import type { AgentResponse, RevisionDiff, RevisionSummary } from './agent.responses';

export type { RevisionDiff, RevisionSummary };

/** fast-json-patch's operation types are closed interfaces; the answer's patch operation is open to extensions. */
const asPatch = (patch: PatchOperation[]) => patch as RevisionDiff['patch'];
import type { AgentKind, AgentRecord } from './agent.repository';
import { plainContentOf, type AgentContent } from './agent.fields';

/**
 * Revisions of supervisors and agents: every create, update or restore writes, in its own
 * transaction, one revision item numbered by the version the write gives the record (the ETag). The
 * item holds the Agent as read right after the write and the uuids of its persona, functions and
 * collections (which the Agent leaves out once they are gone, and a restore must name), gzipped in
 * one binary attribute: the long texts are stored once. Revision numbers are contiguous from the
 * record's `revisionsFrom` (1, or the first write after revisions began for a record older than
 * them), so a page is a key range and the total a subtraction.
 */

export const revisionActions = ['CREATED', 'UPDATED', 'RESTORED'] as const;
export type RevisionAction = (typeof revisionActions)[number];

/** What a restore sets again: everything an agent's author decides (`agent.fields.ts`). */
export type { AgentContent };

export interface Revision extends RevisionSummary {
  agent: AgentResponse;
  content: AgentContent;
}

interface RevisionItem extends RevisionSummary {
  /** gzip of `{ agent, references }` as JSON. */
  body: Uint8Array;
}

/** What a revision keeps beside the Agent: the uuids its references had, found or not. */
type References = Pick<AgentRecord, 'personaUuid' | 'functionUuids' | 'collectionUuids'>;

/** The content of a record as a restore sets it again, from the Agent it read as and its references. */
function contentOf(agent: AgentResponse, references: References): AgentContent {
  return {
    ...plainContentOf(agent),
    personaUuid: references.personaUuid,
    constraints: agent.constraints.map(({ uuid, value }) => ({ uuid, value })),
    tags: agent.tags.map(({ uuid, name }) => ({ uuid, name })),
    functionUuids: references.functionUuids,
    collectionUuids: references.collectionUuids,
  };
}

/** The Put of the revision `record.version` of `record`, read as `agent`, for the write's transaction. */
export function revisionWrite(record: AgentRecord, agent: AgentResponse, action: RevisionAction): TableWrite {
  const references: References = { personaUuid: record.personaUuid, functionUuids: record.functionUuids, collectionUuids: record.collectionUuids };
  const body = gzipSync(JSON.stringify({ agent, references }));
  const item: RevisionItem & { type: string } = {
    type: 'AGENT_REVISION',
    revision: record.version,
    createdAt: record.updatedAt,
    author: auditContext().actor,
    action,
    body,
  };
  return {
    Put: { Item: { ...keys.agentRevision(record.botUuid, record.uuid, record.version), ...item }, ConditionExpression: 'attribute_not_exists(PK)' },
  };
}

/** The number of revisions kept of a record. */
export const revisionCount = (record: AgentRecord): number =>
  record.revisionsFrom === undefined ? 0 : record.version - record.revisionsFrom + 1;

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
  const items = await queryPartition<RevisionSummary>(keys.agentRevisionsOf(record.botUuid, record.uuid), {
    forward: false,
    between: [keys.agentRevision(record.botUuid, record.uuid, oldest).SK, keys.agentRevision(record.botUuid, record.uuid, newest).SK],
    attributes: ['revision', 'createdAt', 'author', 'action'],
    // The record was read consistently: so is what it counts.
    consistent: true,
  });
  return { items, total, ...(oldest > (record.revisionsFrom ?? oldest) ? { next: oldest } : {}) };
}

/** One revision of a record, or 404. */
export async function readRevision(record: AgentRecord, revision: number, kind: AgentKind): Promise<Revision> {
  // Consistent: a revision written just before this request (by its client, say) is found.
  const item = await getItem<RevisionItem>(keys.agentRevision(record.botUuid, record.uuid, revision), { consistent: true });
  if (!item) throw new NotFoundError(`The ${kind === 'SUPERVISOR' ? 'supervisor' : 'agent'} has no revision ${revision}`);
  const { agent, references } = JSON.parse(gunzipSync(item.body).toString('utf8')) as { agent: AgentResponse; references: References };
  return { ...toRevisionSummary(item), agent, content: contentOf(agent, references) };
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
