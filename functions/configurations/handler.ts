import * as z from 'zod';
import { authorizeOwn } from '../../shared/access/org-access';
import { toConfigurationResponse } from '../../shared/configurations/configuration.mapper';
import { hasConfiguration, listConfigurations, saveConfiguration } from '../../shared/configurations/configuration.service';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { uuidSchema } from '../../shared/schemas/fields';
import { ok } from '../../shared/http/types';

/** The caller's own configuration values (spec 4.4); the path's organization is not used. */

const keySchema = z.string().trim().min(1, { message: 'Must not be blank' }).max(200, { message: 'Must be at most 200 characters' });
const botPath = z.object({ botUUID: uuidSchema });
const keyQuery = z.object({ key: keySchema });

export const save = userRoute({
  schemas: {
    body: z.strictObject({
      key: keySchema,
      value: z.string().max(10_000, { message: 'Must be at most 10000 characters' }),
      botUUID: uuidSchema.optional(),
    }),
  },
  handle: async ({ body, caller }) => ok(toConfigurationResponse(await saveConfiguration(await authorizeOwn(caller, body.botUUID), body))),
});

export const list = userRoute({
  handle: async ({ caller }) => ok((await listConfigurations(await authorizeOwn(caller))).map(toConfigurationResponse)),
});

export const has = userRoute({
  schemas: { query: keyQuery },
  handle: async ({ query, caller }) => ok(await hasConfiguration(await authorizeOwn(caller), query.key)),
});

export const listOfBot = userRoute({
  schemas: { path: botPath },
  handle: async ({ path, caller }) => ok((await listConfigurations(await authorizeOwn(caller, path.botUUID))).map(toConfigurationResponse)),
});

export const hasOfBot = userRoute({
  schemas: { path: botPath, query: keyQuery },
  handle: async ({ path, query, caller }) => ok(await hasConfiguration(await authorizeOwn(caller, path.botUUID), query.key)),
});

export const handlers = {
  'configurations.save': save,
  'configurations.list': list,
  'configurations.has': has,
  'configurations.listOfBot': listOfBot,
  'configurations.hasOfBot': hasOfBot,
};
export const handler = createFunction('configurations', handlers);
