import { config } from '../config';

/**
 * AWS clients live in `shared/clients/`, one module per service, so a function loads only the SDK
 * clients it uses. Each is created once per process, on first use, with the endpoint from
 * configuration: the local stack points them at the emulators, AWS leaves the endpoints unset.
 */
export function lazy<T>(create: () => T): () => T {
  let instance: T | undefined;
  return () => (instance ??= create());
}

export const clientOptions = (endpoint: string | undefined) => ({
  region: config().region,
  ...(endpoint ? { endpoint } : {}),
});
