import { ownBot } from '../../shared/app/access/org-access';
import { configurationsApi } from '../../shared/edge/api/configurations.api';
import { hasConfiguration, listConfigurations, saveConfiguration } from '../../shared/app/configurations/configuration.service';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { ok } from '../../shared/edge/http/types';

/** The caller's own configuration values (docs/api/configurations.md); the path's organization is not used. */
export const handlers = routes(
  tokenOperation(configurationsApi.save, {
    // The bot is named by the body, read only once the caller may save at all.
    handle: async ({ body, scope }) => ok(await saveConfiguration(await ownBot(scope, body.botUUID), body)),
  }),
  tokenOperation(configurationsApi.list, {
    handle: async ({ scope }) => ok(await listConfigurations(scope)),
  }),
  tokenOperation(configurationsApi.has, {
    handle: async ({ query, scope }) => ok(await hasConfiguration(scope, query.key)),
  }),
  tokenOperation(configurationsApi.listOfBot, {
    handle: async ({ scope }) => ok(await listConfigurations(scope)),
  }),
  tokenOperation(configurationsApi.hasOfBot, {
    handle: async ({ query, scope }) => ok(await hasConfiguration(scope, query.key)),
  }),
);

export const handler = createFunction('configurations', handlers);
