import type { Pluggable } from '@smithy/types';
import { config } from '../../kernel/config';
import { callTiming } from './call-timing';

/**
 * AWS clients live in `shared/adapters/clients/`, one module per service, so a function loads only the SDK
 * clients it uses. Each is created once per process, on first use (`lazy`), with the endpoint from
 * configuration: the local stack points them at the emulators, AWS leaves the endpoints unset.
 */
export const clientOptions = (endpoint: string | undefined) => ({
  region: config().region,
  ...(endpoint ? { endpoint } : {}),
});

/** SDK middleware every client of this process carries. */
export type ClientPlugin = Pluggable<object, object>;

interface PluggableClient {
  middlewareStack: { use(plugin: ClientPlugin): void };
}

const plugins: ClientPlugin[] = [];
const clients: PluggableClient[] = [];

/**
 * Gives every client of this process, made before or after, one more SDK middleware plugin. Nothing
 * registers one in Lambda; the local stack registers its IAM check (`infra/local/iam/`).
 */
export function addClientPlugin(plugin: ClientPlugin): void {
  plugins.push(plugin);
  for (const client of clients) client.middlewareStack.use(plugin);
}

/**
 * Registers a new client, so that it carries the plugins added by `addClientPlugin`, and times each of
 * its calls (`call-timing.ts`): what on-call reads of a dependency's latency, in Lambda and locally.
 */
export function withClientPlugins<C extends { middlewareStack: object }>(client: C): C {
  const pluggable = client as unknown as PluggableClient;
  pluggable.middlewareStack.use(callTiming);
  clients.push(pluggable);
  for (const plugin of plugins) pluggable.middlewareStack.use(plugin);
  return client;
}
