import { authorizeBot } from '../../shared/access/bot-access';
import { botPathSchema, listQuerySchema, supervisorPathSchema, supervisorUpdateSchema } from '../../shared/agents/agent.schemas';
import { listAgents, readAgent, readDefaultSupervisor } from '../../shared/agents/agent-read.service';
import { updateSupervisor } from '../../shared/agents/agent-write.service';
import { versionsOfIfMatch, withEtag } from '../../shared/http/etag';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { pageOf } from '../../shared/http/page';
import { ok } from '../../shared/http/types';

/** Supervisors of a bot (spec 4.1). */
export const list = userRoute({
  schemas: { path: botPathSchema, query: listQuerySchema },
  handle: async ({ path, query, caller }) => {
    const { items, total } = await listAgents(await authorizeBot(caller, path, 'read'), 'SUPERVISOR', query);
    return ok(pageOf(items, total, query.page, query.size));
  },
});

/** Route `supervisors.default` (`default` cannot name an export). */
export const getDefault = userRoute({
  schemas: { path: botPathSchema },
  handle: async ({ path, caller }) => {
    const { agent, version } = await readDefaultSupervisor(await authorizeBot(caller, path, 'read'));
    return withEtag(agent, version);
  },
});

export const get = userRoute({
  schemas: { path: supervisorPathSchema },
  handle: async ({ path, caller }) => {
    const { agent, version } = await readAgent(await authorizeBot(caller, path, 'read'), 'SUPERVISOR', path.supervisorUUID);
    return withEtag(agent, version);
  },
});

export const update = userRoute({
  schemas: { path: supervisorPathSchema, body: supervisorUpdateSchema },
  handle: async ({ path, body, headers, caller }) => {
    const scope = await authorizeBot(caller, path, 'write');
    const { agent, version } = await updateSupervisor(scope, path.supervisorUUID, body, versionsOfIfMatch(headers['if-match']));
    return withEtag(agent, version);
  },
});

export const handlers = {
  'supervisors.list': list,
  'supervisors.default': getDefault,
  'supervisors.get': get,
  'supervisors.update': update,
};
export const handler = createFunction('supervisors', handlers);
