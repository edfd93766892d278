import { authorizeBot } from '../../shared/access/bot-access';
import { botPathSchema, listQuerySchema, supervisorPathSchema, supervisorUpdateSchema } from '../../shared/agents/agent.schemas';
import { listAgents, readAgent, readDefaultSupervisor, updateSupervisor } from '../../shared/agents/agent.service';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { ok, withEtag } from '../../shared/http/types';

/** Supervisors of a bot (spec 4.1). */
export const list = userRoute({
  schemas: { path: botPathSchema, query: listQuerySchema },
  handle: async ({ path, query, caller }) => ok(await listAgents(await authorizeBot(caller, path, 'read'), 'SUPERVISOR', query)),
});

export const readDefault = userRoute({
  schemas: { path: botPathSchema },
  handle: async ({ path, caller }) => withEtag(await readDefaultSupervisor(authorizeBot(caller, path, 'read'), path.botUUID)),
});

export const read = userRoute({
  schemas: { path: supervisorPathSchema },
  handle: async ({ path, caller }) =>
    withEtag(await readAgent(authorizeBot(caller, path, 'read'), path.botUUID, 'SUPERVISOR', path.supervisorUUID)),
});

export const update = userRoute({
  schemas: { path: supervisorPathSchema, body: supervisorUpdateSchema },
  handle: async ({ path, body, headers, caller }) =>
    withEtag(await updateSupervisor(await authorizeBot(caller, path, 'write'), path.supervisorUUID, body, headers['if-match'])),
});

export const handlers = {
  'supervisors.list': list,
  'supervisors.default': readDefault,
  'supervisors.get': read,
  'supervisors.update': update,
};
export const handler = createFunction('supervisors', handlers);
