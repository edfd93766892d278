import { authorizeBot, botScopeKeys } from '../../shared/access/bot-access';
import { versionsOfIfMatch, withEtag } from '../../shared/http/etag';
import { userRoute, type RouteHandler } from '../../shared/http/handler-factory';
import { pageOf } from '../../shared/http/page';
import { ok } from '../../shared/http/types';
import { agentReadKeys, requireLatestRecord } from '../../shared/agents/agent-read.service';
import type { AgentKind } from '../../shared/agents/agent.repository';
import { diffRevisions, listRevisions, readRevision } from '../../shared/agents/agent-revisions';
import { restoreRevision } from '../../shared/agents/agent-write.service';
import { agentRevisionPathSchema, agentPathSchema, revisionDiffQuerySchema, revisionListQuerySchema, supervisorPathSchema, supervisorRevisionPathSchema } from '../../shared/agents/agent.schemas';

/**
 * The four revision routes (issue 14), the same for supervisors and agents: listing, one revision,
 * a diff between two, and a restore. Whoever may read the bot reads its revisions; restoring needs
 * write access and honours `If-Match` as an update does.
 */
function revisionRoutes<P extends typeof agentPathSchema | typeof supervisorPathSchema, R extends typeof agentRevisionPathSchema | typeof supervisorRevisionPathSchema>(
  kind: AgentKind,
  schemas: { path: P; revisionPath: R },
  uuidOf: (path: { agentUUID?: string; supervisorUUID?: string }) => string,
): Record<'list' | 'get' | 'diff' | 'restore', RouteHandler> {
  return {
    list: userRoute({
      schemas: { path: schemas.path, query: revisionListQuerySchema },
      prefetch: botScopeKeys,
      handle: async ({ path, query, caller, prefetched }) => {
        const record = await requireLatestRecord(await authorizeBot(caller, path, 'read', prefetched), kind, uuidOf(path));
        const { items, total } = await listRevisions(record, query.page, query.size);
        return ok(pageOf(items, total, query.page, query.size));
      },
    }),
    get: userRoute({
      schemas: { path: schemas.revisionPath },
      prefetch: botScopeKeys,
      handle: async ({ path, caller, prefetched }) => {
        const record = await requireLatestRecord(await authorizeBot(caller, path, 'read', prefetched), kind, uuidOf(path));
        return ok((await readRevision(record, path.revision, kind)).agent);
      },
    }),
    diff: userRoute({
      schemas: { path: schemas.revisionPath, query: revisionDiffQuerySchema },
      prefetch: botScopeKeys,
      handle: async ({ path, query, caller, prefetched }) => {
        const record = await requireLatestRecord(await authorizeBot(caller, path, 'read', prefetched), kind, uuidOf(path));
        return ok(await diffRevisions(record, kind, path.revision, query.against));
      },
    }),
    restore: userRoute({
      schemas: { path: schemas.revisionPath },
      prefetch: (path) => agentReadKeys(path, uuidOf(path)),
      handle: async ({ path, headers, caller, prefetched }) => {
        const scope = await authorizeBot(caller, path, 'write', prefetched);
        const { agent, version } = await restoreRevision(scope, kind, uuidOf(path), path.revision, versionsOfIfMatch(headers['if-match']), prefetched);
        return withEtag(agent, version);
      },
    }),
  };
}

export const agentRevisionRoutes = revisionRoutes('AGENT', { path: agentPathSchema, revisionPath: agentRevisionPathSchema }, (path) => path.agentUUID!);
export const supervisorRevisionRoutes = revisionRoutes(
  'SUPERVISOR',
  { path: supervisorPathSchema, revisionPath: supervisorRevisionPathSchema },
  (path) => path.supervisorUUID!,
);
