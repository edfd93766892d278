import { authorizeBot, botScopeKeys } from '../../shared/access/bot-access';
import { botPathSchema, listQuerySchema, supervisorPathSchema, supervisorUpdateSchema } from '../../shared/agents/agent.schemas';
import { agentReadKeys, defaultSupervisorReadKeys, listAgents, readAgent, readDefaultSupervisor } from '../../shared/agents/agent-read.service';
import { updateSupervisor } from '../../shared/agents/agent-write.service';
import { versionsOfIfMatch, withEtag } from '../../shared/http/etag';
import { supervisorRevisionRoutes } from '../common/revision-routes';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { pageOf } from '../../shared/http/page';
import { ok } from '../../shared/http/types';

/** Supervisors of a bot (spec 4.1). */
export const list = userRoute({
  schemas: { path: botPathSchema, query: listQuerySchema },
  prefetch: botScopeKeys,
  handle: async ({ path, query, caller, prefetched }) => {
    const { items, total } = await listAgents(await authorizeBot(caller, path, 'read', prefetched), 'SUPERVISOR', query);
    return ok(pageOf(items, total, query.page, query.size));
  },
});

/** Route `supervisors.default` (`default` cannot name an export). */
export const getDefault = userRoute({
  schemas: { path: botPathSchema },
  prefetch: defaultSupervisorReadKeys,
  handle: async ({ path, caller, prefetched }) => {
    const { agent, version } = await readDefaultSupervisor(await authorizeBot(caller, path, 'read', prefetched), prefetched);
    return withEtag(agent, version);
  },
});

export const get = userRoute({
  schemas: { path: supervisorPathSchema },
  prefetch: (path) => agentReadKeys(path, path.supervisorUUID),
  handle: async ({ path, caller, prefetched }) => {
    const scope = await authorizeBot(caller, path, 'read', prefetched);
    const { agent, version } = await readAgent(scope, 'SUPERVISOR', path.supervisorUUID, prefetched);
    return withEtag(agent, version);
  },
});

export const update = userRoute({
  schemas: { path: supervisorPathSchema, body: supervisorUpdateSchema },
  prefetch: (path) => agentReadKeys(path, path.supervisorUUID),
  handle: async ({ path, body, headers, caller, prefetched }) => {
    const scope = await authorizeBot(caller, path, 'write', prefetched);
    const { agent, version } = await updateSupervisor(scope, path.supervisorUUID, body, versionsOfIfMatch(headers['if-match']), prefetched);
    return withEtag(agent, version);
  },
});

export const handlers = {
  'supervisors.list': list,
  'supervisors.default': getDefault,
  'supervisors.get': get,
  'supervisors.update': update,
  'supervisors.revisions': supervisorRevisionRoutes.list,
  'supervisors.revision': supervisorRevisionRoutes.get,
  'supervisors.revisionDiff': supervisorRevisionRoutes.diff,
  'supervisors.restore': supervisorRevisionRoutes.restore,
};
export const handler = createFunction('supervisors', handlers);
