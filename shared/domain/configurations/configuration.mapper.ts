import type { ConfigurationEntry } from './configuration.repository';
import type { ConfigurationResponse } from './configuration.responses';

/** An entry as the API answers it (`configuration.responses.ts`). */
export const toConfigurationResponse = (entry: ConfigurationEntry): ConfigurationResponse => ({
  id: entry.id,
  key: entry.key,
  value: entry.value,
  botUuid: entry.botUuid ?? null,
});
