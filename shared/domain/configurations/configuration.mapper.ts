import { readOf } from '../../kernel/schemas/declared-fields';
import { configurationFields } from './configuration.fields';
import type { ConfigurationEntry } from './configuration.repository';
import type { ConfigurationResponse } from './configuration.responses';

/** An entry as the API answers it (`configuration.responses.ts`): the fields `configuration.fields.ts` shows. */
export const toConfigurationResponse = (entry: ConfigurationEntry): ConfigurationResponse => readOf(configurationFields, entry) as ConfigurationResponse;
