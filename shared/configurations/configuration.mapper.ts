import type { ConfigurationEntry } from './configuration.repository';

/** An entry as the spec answers it: `botUuid` is null on a general entry. */
export interface ConfigurationResponse {
  id: number;
  key: string;
  value: string;
  botUuid: string | null;
}

export const toConfigurationResponse = (entry: ConfigurationEntry): ConfigurationResponse => ({
  id: entry.id,
  key: entry.key,
  value: entry.value,
  botUuid: entry.botUuid ?? null,
});
