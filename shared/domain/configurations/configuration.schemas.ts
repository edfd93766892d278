import * as z from 'zod';
import { uuidSchema } from '../../kernel/schemas/fields';

/** Request schemas of the caller's configuration values (docs/api/configurations.md). */

const keySchema = z.string().trim().min(1, { message: 'Must not be blank' }).max(200, { message: 'Must be at most 200 characters' });

export const saveConfigurationSchema = z.strictObject({
  key: keySchema,
  value: z.string().max(10_000, { message: 'Must be at most 10000 characters' }),
  botUUID: uuidSchema.optional(),
});

export const configurationBotPathSchema = z.object({ botUUID: uuidSchema });
export const configurationKeyQuerySchema = z.object({ key: keySchema });
