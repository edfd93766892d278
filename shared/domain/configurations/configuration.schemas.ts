import * as z from 'zod/mini';
import { uuidSchema } from '../../kernel/schemas/fields';

/** Request schemas of the caller's configuration values (docs/api/configurations.md). */

const keySchema = z.string().check(z.trim(), z.minLength(1, { message: 'Must not be blank' }), z.maxLength(200, { message: 'Must be at most 200 characters' }));

export const saveConfigurationSchema = z.strictObject({
  key: keySchema,
  value: z.string().check(z.maxLength(10_000, { message: 'Must be at most 10000 characters' })),
  botUUID: z.optional(uuidSchema),
});

export const configurationBotPathSchema = z.object({ botUUID: uuidSchema });
export const configurationKeyQuerySchema = z.object({ key: keySchema });
