import { gunzipSync, gzipSync } from 'node:zlib';
import { keys } from '../../adapters/store/keys';
import { getItem, queryPartition, type TableWrite } from '../../adapters/store/table';
import { auditContext } from '../audit/audit-context';
import type { AgentRecord } from './agent.repository';
import type { AgentResponse } from './agent.responses';
import type { RevisionAction, RevisionReferences, RevisionSummary } from './agent-revisions';

/** The one owner of revision items (`agent-revisions.ts` says what a revision is). */

interface RevisionItem extends RevisionSummary {
  /** gzip of `{ agent, references }` as JSON. */
  body: Uint8Array;
}

/** A revision as stored: its summary, the Agent it read as, and the uuids its references had. */
export interface StoredRevision {
  summary: RevisionSummary;
  agent: AgentResponse;
  references: RevisionReferences;
}

/** The Put of the revision `record.version` of `record`, read as `agent`, for the write's transaction. */
export function revisionWrite(record: AgentRecord, agent: AgentResponse, action: RevisionAction): TableWrite {
  const references: RevisionReferences = { personaUuid: record.personaUuid, functionUuids: record.functionUuids, collectionUuids: record.collectionUuids };
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

/**
 * The summaries of revisions `oldest` to `newest` of a record, newest first, as stored: one Query over
 * a key range, strongly consistent (the record was read so: so is what it counts).
 */
export async function listRevisionSummaries(record: AgentRecord, oldest: number, newest: number): Promise<RevisionSummary[]> {
  return queryPartition<RevisionSummary>(keys.agentRevisionsOf(record.botUuid, record.uuid), {
    forward: false,
    between: [keys.agentRevision(record.botUuid, record.uuid, oldest).SK, keys.agentRevision(record.botUuid, record.uuid, newest).SK],
    attributes: ['revision', 'createdAt', 'author', 'action'],
    consistent: true,
  });
}

/** Revision `revision` of a record, or undefined. Consistent: a revision written just before (by the same client, say) is found. */
export async function getRevision(record: AgentRecord, revision: number): Promise<StoredRevision | undefined> {
  const item = await getItem<RevisionItem>(keys.agentRevision(record.botUuid, record.uuid, revision), { consistent: true });
  if (!item) return undefined;
  const { agent, references } = JSON.parse(gunzipSync(item.body).toString('utf8')) as { agent: AgentResponse; references: RevisionReferences };
  return { summary: item, agent, references };
}

/** Every revision number of a record with the time it was written, newest first (one Query of the record's revisions). */
export async function listRevisionTimes(record: Pick<AgentRecord, 'botUuid' | 'uuid'>): Promise<{ revision: number; createdAt: string }[]> {
  return queryPartition<{ revision: number; createdAt: string }>(keys.agentRevisionsOf(record.botUuid, record.uuid), {
    forward: false,
    attributes: ['revision', 'createdAt'],
  });
}
