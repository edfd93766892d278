import * as z from 'zod/mini';
import { configurationResponses } from '../../domain/configurations/configuration.responses';
import { configurationSchemas } from '../../domain/configurations/configuration.schemas';
import { bot } from './examples';
import { operationsUnder } from './operation';

/** The caller's own configuration values (docs/api/configurations.md); the path's organization is not used. */
const configurations = operationsUnder('configurations', 'user', '/org/{orgUUID}', { access: { own: 'entries' } });

export const configurationsApi = {
  save: configurations({
    id: 'configurations.save',
    method: 'POST',
    path: '/configurations',
    request: { body: () => configurationSchemas().saveConfigurationSchema },
    summary: 'Save a configuration value of the caller',
    responses: [{ status: 200, description: 'The entry', json: () => configurationResponses().configurationSchema }],
    example: { key: 'theme', value: 'dark', botUUID: bot },
  }),
  list: configurations({
    id: 'configurations.list',
    method: 'GET',
    path: '/configurations',
    summary: "The caller's configuration values",
    responses: [{ status: 200, description: 'Every entry', json: () => z.array(configurationResponses().configurationSchema) }],
  }),
  has: configurations({
    id: 'configurations.has',
    method: 'GET',
    path: '/configurations/userHasConf',
    request: { query: () => configurationSchemas().configurationKeyQuerySchema },
    summary: 'Whether the caller has a value for a key',
    responses: [{ status: 200, description: 'Whether it exists', json: () => z.boolean() }],
  }),
  listOfBot: configurations({
    id: 'configurations.listOfBot',
    method: 'GET',
    path: '/configurations/{botUUID}',
    request: { path: () => configurationSchemas().configurationBotPathSchema },
    summary: "The caller's configuration values for one bot",
    responses: [{ status: 200, description: 'Every bot-specific entry', json: () => z.array(configurationResponses().configurationSchema) }],
  }),
  hasOfBot: configurations({
    id: 'configurations.hasOfBot',
    method: 'GET',
    path: '/configurations/{botUUID}/userHasConf',
    request: { path: () => configurationSchemas().configurationBotPathSchema, query: () => configurationSchemas().configurationKeyQuerySchema },
    summary: 'Whether the caller has a bot-specific value for a key',
    responses: [{ status: 200, description: 'Whether it exists', json: () => z.boolean() }],
  }),
};
