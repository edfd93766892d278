import { agentReadKeys, type AgentKind } from '../../shared/app/agents/agent-read.service';
import { diffAgentRevisions, listAgentRevisions, readAgentRevision } from '../../shared/app/agents/agent-revision.service';
import { restoreRevision } from '../../shared/app/agents/agent-write.service';
import type { agentsApi, supervisorsApi } from '../../shared/edge/api/agents.api';
import { versionsOfIfMatch } from '../../shared/edge/http/etag';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { cursorOf } from '../../shared/edge/http/cursor-page';
import { pageOf } from '../../shared/edge/http/page';
import { ok } from '../../shared/edge/http/types';
import { agentAnswer } from './agent-answer';

type RevisionOperations = Pick<typeof agentsApi | typeof supervisorsApi, 'revisions' | 'revision' | 'revisionDiff' | 'restore'>;

/**
 * The four revision routes, the same for supervisors and agents: listing, one revision, a diff
 * between two, and a restore. Whoever may read the bot reads its revisions; restoring needs write
 * access and honours `If-Match` as an update does.
 */
export function revisionRoutes(operations: RevisionOperations, kind: AgentKind, uuidOf: (path: { agentUUID?: string; supervisorUUID?: string }) => string) {
  return [
    tokenOperation(operations.revisions, {
      handle: async (input) => {
        const { path, query, scope } = input;
        const uuid = uuidOf(path);
        const cursor = await cursorOf<number>(operations.revisions.id, `${scope.bot.uuid}/${uuid}`, input, 'page');
        const { items, total, next } = await listAgentRevisions(scope, kind, uuid, { page: query.page, size: query.size, before: cursor.start?.after });
        const number = cursor.start?.number ?? query.page;
        return cursor.reply(pageOf(items, total, number, query.size), next === undefined ? undefined : { number: number + 1, after: next });
      },
    }),
    tokenOperation(operations.revision, {
      handle: async ({ path, scope }) => ok(await readAgentRevision(scope, kind, uuidOf(path), path.revision)),
    }),
    tokenOperation(operations.revisionDiff, {
      handle: async ({ path, query, scope }) => ok(await diffAgentRevisions(scope, kind, uuidOf(path), path.revision, query.against)),
    }),
    tokenOperation(operations.restore, {
      prefetch: (path) => agentReadKeys(path, uuidOf(path)),
      handle: async ({ path, headers, scope, prefetched }) =>
        agentAnswer(await restoreRevision(scope, kind, uuidOf(path), path.revision, versionsOfIfMatch(headers['if-match']), prefetched)),
    }),
  ];
}
