import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas } from '../../kernel/schemas/fields';

/** Request schemas of the caller's configuration values (docs/api/configurations.md). */

/** The configuration values' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const configurationSchemas = lazy(() => {
  const { uuidSchema } = fieldSchemas();

  const keySchema = z.string().check(z.trim(), z.minLength(1, { message: 'Must not be blank' }), z.maxLength(200, { message: 'Must be at most 200 characters' }));

  const saveConfigurationSchema = z.strictObject({
    key: keySchema,
    value: z.string().check(z.maxLength(10_000, { message: 'Must be at most 10000 characters' })),
    botUUID: z.optional(uuidSchema),
  });

  const configurationBotPathSchema = z.object({ botUUID: uuidSchema });
  const configurationKeyQuerySchema = z.object({ key: keySchema });

  return { saveConfigurationSchema, configurationBotPathSchema, configurationKeyQuerySchema };
});
