import { authorizeBot, botScopeKeys } from '../../shared/access/bot-access';
import {
  agentCreateSchema,
  agentPathSchema,
  agentUpdateSchema,
  botPathSchema,
  listQuerySchema,
  quicksearchQuerySchema,
} from '../../shared/agents/agent.schemas';
import { agentReadKeys, listAgents, quicksearchAgents, readAgent } from '../../shared/agents/agent-read.service';
import { createAgent, updateAgent } from '../../shared/agents/agent-write.service';
import { versionsOfIfMatch, withEtag } from '../../shared/http/etag';
import { agentRevisionRoutes } from '../common/revision-routes';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { pageOf } from '../../shared/http/page';
import { ok } from '../../shared/http/types';

/** Agents of a bot (spec 4.2). */
export const list = userRoute({
  schemas: { path: botPathSchema, query: listQuerySchema },
  prefetch: botScopeKeys,
  handle: async ({ path, query, caller, prefetched }) => {
    const { items, total } = await listAgents(await authorizeBot(caller, path, 'read', prefetched), 'AGENT', query);
    return ok(pageOf(items, total, query.page, query.size));
  },
});

/** Roles of matching agents as text/plain, one per line. */
export const quicksearch = userRoute({
  schemas: { path: botPathSchema, query: quicksearchQuerySchema },
  prefetch: botScopeKeys,
  handle: async ({ path, query, caller, prefetched }) => {
    const roles = await quicksearchAgents(await authorizeBot(caller, path, 'read', prefetched), query.name, query.limit);
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: roles.join('\n') };
  },
});

export const create = userRoute({
  schemas: { path: botPathSchema, body: agentCreateSchema },
  prefetch: botScopeKeys,
  authorize: ({ path, caller, prefetched }) => authorizeBot(caller, path, 'write', prefetched),
  idempotent: {
    // A keyed create whose answer was lost answers the agent it created, as it reads now.
    replay: async ({ uuid }, { scope }) => {
      const { agent, version } = await readAgent(scope, 'AGENT', uuid);
      return withEtag(agent, version, 201);
    },
  },
  handle: async ({ scope, body }) => {
    const { agent, version } = await createAgent(scope, body);
    return withEtag(agent, version, 201);
  },
});

export const get = userRoute({
  schemas: { path: agentPathSchema },
  prefetch: (path) => agentReadKeys(path, path.agentUUID),
  handle: async ({ path, caller, prefetched }) => {
    const scope = await authorizeBot(caller, path, 'read', prefetched);
    const { agent, version } = await readAgent(scope, 'AGENT', path.agentUUID, prefetched);
    return withEtag(agent, version);
  },
});

export const update = userRoute({
  schemas: { path: agentPathSchema, body: agentUpdateSchema },
  prefetch: (path) => agentReadKeys(path, path.agentUUID),
  handle: async ({ path, body, headers, caller, prefetched }) => {
    const scope = await authorizeBot(caller, path, 'write', prefetched);
    const { agent, version } = await updateAgent(scope, path.agentUUID, body, versionsOfIfMatch(headers['if-match']), prefetched);
    return withEtag(agent, version);
  },
});

export const handlers = {
  'agents.list': list,
  'agents.quicksearch': quicksearch,
  'agents.create': create,
  'agents.get': get,
  'agents.update': update,
  'agents.revisions': agentRevisionRoutes.list,
  'agents.revision': agentRevisionRoutes.get,
  'agents.revisionDiff': agentRevisionRoutes.diff,
  'agents.restore': agentRevisionRoutes.restore,
};
export const handler = createFunction('agents', handlers);
