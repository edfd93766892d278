import { agentReadKeys, defaultSupervisorReadKeys, readAgent, readDefaultSupervisor } from '../../shared/app/agents/agent-read.service';
import { updateSupervisor } from '../../shared/app/agents/agent-write.service';
import { supervisorsApi } from '../../shared/edge/api/agents.api';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { agentAnswer } from '../common/agent-answer';
import { agentUpdate } from '../common/agent-update';
import { agentListing } from '../common/agent-listing';
import { revisionRoutes } from '../common/revision-routes';

/** Supervisors of a bot (docs/api/agents.md). */
export const handlers = routes(
  tokenOperation(supervisorsApi.list, {
    handle: (input) => agentListing(supervisorsApi.list.id, 'SUPERVISOR', input),
  }),
  tokenOperation(supervisorsApi.default, {
    prefetch: defaultSupervisorReadKeys,
    handle: async ({ scope, prefetched }) => agentAnswer(await readDefaultSupervisor(scope, prefetched)),
  }),
  tokenOperation(supervisorsApi.get, {
    prefetch: (path) => agentReadKeys(path, path.supervisorUUID),
    handle: async ({ path, scope, prefetched }) => agentAnswer(await readAgent(scope, 'SUPERVISOR', path.supervisorUUID, prefetched)),
  }),
  tokenOperation(supervisorsApi.update, agentUpdate((path) => path.supervisorUUID, updateSupervisor)),
  ...revisionRoutes(supervisorsApi, 'SUPERVISOR', (path) => path.supervisorUUID!),
);

export const handler = createFunction('supervisors', handlers);
