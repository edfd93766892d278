import * as z from 'zod/mini';
import { schemaRegistry } from '../../kernel/schemas/registry';

/** A configuration entry (docs/api/configurations.md) as the API answers it; `botUuid` is null on a general entry. */
export const configurationSchema = z
  .strictObject({ id: z.int(), key: z.string(), value: z.string(), botUuid: z.nullable(z.uuid()) })
  .register(schemaRegistry, { id: 'ConfigurationEntry' });
export type ConfigurationResponse = z.output<typeof configurationSchema>;
