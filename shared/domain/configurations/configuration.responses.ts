import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { configurationFields } from './configuration.fields';
import { schemaRegistry } from '../../kernel/schemas/registry';

/** What the configurations area answers, made on first call (by the API description), never as a function loads. */
export const configurationResponses = lazy(() => {
  /** A configuration entry (docs/api/configurations.md) as the API answers it; `botUuid` is null on a general entry. */
  const configurationSchema = z
    .strictObject(shapeOf(configurationFields, 'response'))
    .register(schemaRegistry, { id: 'ConfigurationEntry' });

  return { configurationSchema };
});
export type ConfigurationResponse = z.output<ReturnType<typeof configurationResponses>['configurationSchema']>;
