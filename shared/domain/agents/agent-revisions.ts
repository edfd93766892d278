import type { AgentResponse, RevisionDiff, RevisionSummary } from './agent.responses';
import type { AgentRecord } from './agent.repository';

export type { RevisionDiff, RevisionSummary };

import { plainContentOf, type AgentContent } from './agent.fields';

/**
 * Revisions of supervisors and agents: every create, update or restore writes, in its own
 * transaction, one revision item numbered by the version the write gives the record (the ETag). The
 * item holds the Agent as read right after the write and the uuids of its persona, functions and
 * collections (which the Agent leaves out once they are gone, and a restore must name), gzipped in
 * one binary attribute: the long texts are stored once. Revision numbers are contiguous from the
 * record's `revisionsFrom` (1, or the first write after revisions began for a record older than
 * them), so a page is a key range and the total a subtraction. The items are written and read by
 * `agent-revision.repository.ts`; the routes' use cases are `shared/app/agents/agent-revision.service.ts`.
 */

export const revisionActions = ['CREATED', 'UPDATED', 'RESTORED'] as const;
export type RevisionAction = (typeof revisionActions)[number];

/** What a restore sets again: everything an agent's author decides (`agent.fields.ts`). */
export type { AgentContent };

export interface Revision extends RevisionSummary {
  agent: AgentResponse;
  content: AgentContent;
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

/** The number of revisions kept of a record. */
export const revisionCount = (record: AgentRecord): number =>
  record.revisionsFrom === undefined ? 0 : record.version - record.revisionsFrom + 1;

export { contentOf, type References as RevisionReferences };
