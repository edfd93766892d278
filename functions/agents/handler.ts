import { authorizeBot } from '../../shared/access/bot-access';
import {
  agentCreateSchema,
  agentPathSchema,
  agentUpdateSchema,
  botPathSchema,
  listQuerySchema,
  quicksearchQuerySchema,
} from '../../shared/agents/agent.schemas';
import { createAgent, listAgents, quicksearchAgents, readAgent, updateAgent } from '../../shared/agents/agent.service';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { ok, withEtag } from '../../shared/http/types';

/** Agents of a bot (spec 4.2). */
export const list = userRoute({
  schemas: { path: botPathSchema, query: listQuerySchema },
  handle: async ({ path, query, caller }) => ok(await listAgents(await authorizeBot(caller, path, 'read'), 'AGENT', query)),
});

/** Roles of matching agents as text/plain, one per line. */
export const quicksearch = userRoute({
  schemas: { path: botPathSchema, query: quicksearchQuerySchema },
  handle: async ({ path, query, caller }) => {
    const roles = await quicksearchAgents(await authorizeBot(caller, path, 'read'), query.name, query.limit);
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: roles.join('\n') };
  },
});

export const create = userRoute({
  schemas: { path: botPathSchema, body: agentCreateSchema },
  handle: async ({ path, body, caller }) => withEtag(await createAgent(await authorizeBot(caller, path, 'write'), body), 201),
});

export const read = userRoute({
  schemas: { path: agentPathSchema },
  handle: async ({ path, caller }) => withEtag(await readAgent(authorizeBot(caller, path, 'read'), path.botUUID, 'AGENT', path.agentUUID)),
});

export const update = userRoute({
  schemas: { path: agentPathSchema, body: agentUpdateSchema },
  handle: async ({ path, body, headers, caller }) =>
    withEtag(await updateAgent(await authorizeBot(caller, path, 'write'), path.agentUUID, body, headers['if-match'])),
});

export const handlers = {
  'agents.list': list,
  'agents.quicksearch': quicksearch,
  'agents.create': create,
  'agents.get': read,
  'agents.update': update,
};
export const handler = createFunction('agents', handlers);
