import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { fieldSchemas } from '../../kernel/schemas/fields';
import { configurationFields, keySchema } from './configuration.fields';

/** Request schemas of the caller's configuration values (docs/api/configurations.md). */

/** The configuration values' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const configurationSchemas = lazy(() => {
  const { uuidSchema } = fieldSchemas();

  /** The fields of `configuration.fields.ts` a save takes. */
  const saveConfigurationSchema = z.strictObject(shapeOf(configurationFields, 'save'));

  const configurationBotPathSchema = z.object({ botUUID: uuidSchema });
  const configurationKeyQuerySchema = z.object({ key: keySchema() });

  return { saveConfigurationSchema, configurationBotPathSchema, configurationKeyQuerySchema };
});
