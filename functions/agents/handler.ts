import { agentReadKeys, quicksearchAgents, readAgent } from '../../shared/app/agents/agent-read.service';
import { readAgentAhead, rememberedReferenceKeys } from '../../shared/app/agents/agent-read-ahead';
import { createAgent, updateAgent } from '../../shared/app/agents/agent-write.service';
import { agentsApi } from '../../shared/edge/api/agents.api';
import { bundlesApi } from '../../shared/edge/api/bundles.api';
import { applyBundle } from '../../shared/app/bundles/bundle-apply';
import { exportBundle } from '../../shared/app/bundles/bundle-export';
import { bundleMediaTypes, JSON_MEDIA_TYPE, readBundle, wantsYaml, writeBundle, YAML_MEDIA_TYPE } from '../../shared/app/bundles/bundle-format';
import { toApplyResponse, toPlanResponse } from '../../shared/app/bundles/bundle.mapper';
import { planBundle } from '../../shared/app/bundles/bundle-plan';
import { etagOfText, tagsOfIfMatch } from '../../shared/edge/http/etag';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { ok } from '../../shared/edge/http/types';
import { agentAnswer } from '../common/agent-answer';
import { agentUpdate } from '../common/agent-update';
import { agentListing } from '../common/agent-listing';
import { revisionRoutes } from '../common/revision-routes';

/** Agents of a bot (docs/api/agents.md), and bundles of the bot's whole configuration. */

const bundleReader = { mediaTypes: bundleMediaTypes, read: readBundle };

export const handlers = routes(
  tokenOperation(agentsApi.list, {
    handle: (input) => agentListing(agentsApi.list.id, 'AGENT', input),
  }),
  // Roles of matching agents as text/plain, one per line.
  tokenOperation(agentsApi.quicksearch, {
    handle: async ({ query, scope }) => ({
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: (await quicksearchAgents(scope, query.name, query.limit)).join('\n'),
    }),
  }),
  tokenOperation(agentsApi.create, {
    // A keyed create whose answer was lost answers the agent it created, as it reads now.
    idempotent: { replay: async ({ uuid }, { scope }) => agentAnswer(await readAgent(scope, 'AGENT', uuid), 201) },
    handle: async ({ body, scope }) => agentAnswer(await createAgent(scope, body), 201),
  }),
  tokenOperation(agentsApi.get, {
    // With what the agent referenced when this container last answered it: one round trip, not two.
    prefetch: (path) => [...agentReadKeys(path, path.agentUUID), ...rememberedReferenceKeys(path.botUUID, path.agentUUID)],
    handle: async ({ path, scope, prefetched }) => agentAnswer(await readAgentAhead(scope, 'AGENT', path.agentUUID, prefetched)),
  }),
  tokenOperation(agentsApi.update, agentUpdate((path) => path.agentUUID, updateAgent)),
  ...revisionRoutes(agentsApi, 'AGENT', (path) => path.agentUUID!),
  // JSON, or YAML on request; the ETag is the configuration version (none for a past one).
  tokenOperation(bundlesApi.export, {
    handle: async ({ query, headers, scope }) => {
      const { bundle, version } = await exportBundle(scope, query.at);
      const yaml = wantsYaml(headers.accept);
      return {
        status: 200,
        contentType: yaml ? YAML_MEDIA_TYPE : JSON_MEDIA_TYPE,
        body: writeBundle(bundle, yaml),
        headers: version === undefined ? undefined : { etag: etagOfText(version) },
      };
    },
  }),
  tokenOperation(bundlesApi.plan, {
    readBody: bundleReader,
    handle: async ({ body, scope }) => ok(toPlanResponse(await planBundle(scope, body))),
  }),
  tokenOperation(bundlesApi.apply, {
    readBody: bundleReader,
    idempotent: true,
    handle: async ({ body, headers, scope }) => {
      const applied = await applyBundle(scope, body, tagsOfIfMatch(headers['if-match']));
      return ok(toApplyResponse(applied), { etag: etagOfText(applied.version) });
    },
  }),
);

export const handler = createFunction('agents', handlers);
