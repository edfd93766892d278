import { authorizeOwn } from '../../shared/access/org-access';
import { configurationsApi } from '../../shared/api/configurations.api';
import { toConfigurationResponse } from '../../shared/configurations/configuration.mapper';
import { hasConfiguration, listConfigurations, saveConfiguration } from '../../shared/configurations/configuration.service';
import { createFunction, routes } from '../../shared/http/handler-factory';
import { userOperation } from '../../shared/http/user-route';
import { ok } from '../../shared/http/types';

/** The caller's own configuration values (spec 4.4); the path's organization is not used. */
export const handlers = routes(
  userOperation(configurationsApi.save, {
    authorize: ({ body, caller }) => authorizeOwn(caller, body.botUUID),
    handle: async ({ body, scope }) => ok(toConfigurationResponse(await saveConfiguration(scope, body))),
  }),
  userOperation(configurationsApi.list, {
    authorize: ({ caller }) => authorizeOwn(caller),
    handle: async ({ scope }) => ok((await listConfigurations(scope)).map(toConfigurationResponse)),
  }),
  userOperation(configurationsApi.has, {
    authorize: ({ caller }) => authorizeOwn(caller),
    handle: async ({ query, scope }) => ok(await hasConfiguration(scope, query.key)),
  }),
  userOperation(configurationsApi.listOfBot, {
    authorize: ({ path, caller }) => authorizeOwn(caller, path.botUUID),
    handle: async ({ scope }) => ok((await listConfigurations(scope)).map(toConfigurationResponse)),
  }),
  userOperation(configurationsApi.hasOfBot, {
    authorize: ({ path, caller }) => authorizeOwn(caller, path.botUUID),
    handle: async ({ query, scope }) => ok(await hasConfiguration(scope, query.key)),
  }),
);

export const handler = createFunction('configurations', handlers);
