import { setTimeout as delay } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { outsideAnyFunction } from './kernel/function-context';
import type { LambdaHandler } from './gateway';

/** Each function's handler module, named one by one so that a bundler sees them all (`start.mjs`). */
const handlerModules: Record<ResourceGroup, () => Promise<{ handler: unknown }>> = {
  auth: () => import('../../functions/auth/handler'),
  docs: () => import('../../functions/docs/handler'),
  users: () => import('../../functions/users/handler'),
  supervisors: () => import('../../functions/supervisors/handler'),
  agents: () => import('../../functions/agents/handler'),
  configurations: () => import('../../functions/configurations/handler'),
  bulk: () => import('../../functions/bulk/handler'),
  'bulk-worker': () => import('../../functions/bulk-worker/handler'),
  scim: () => import('../../functions/scim/handler'),
  publisher: () => import('../../functions/publisher/handler'),
  mail: () => import('../../functions/mail/handler'),
  feed: () => import('../../functions/feed/handler'),
};

/** How long after the stack answers the handler modules nobody has called yet start loading. */
const WARM_AFTER_MS = 1_000;

/**
 * The functions' handler modules, each loaded on its group's first request or event, as Lambda starts a
 * function; once, outside any invocation, so what it reads as it loads comes from the process's environment.
 */
export function handlerModulesOf(modules = handlerModules) {
  // The handlers loaded so far, by group: the gateway's table.
  const handlers = {} as Record<ResourceGroup, LambdaHandler>;
  const loads = new Map<ResourceGroup, Promise<LambdaHandler>>();
  // A function's init: its group's module loaded once.
  const load = (group: ResourceGroup): Promise<LambdaHandler> => {
    if (!loads.has(group)) loads.set(group, outsideAnyFunction(() => modules[group]()).then(({ handler }) => (handlers[group] = handler as LambdaHandler)));
    return loads.get(group)!;
  };
  // The group's handler for an event source: its module loaded on the first event.
  const handlerOf =
    <E, R>(group: ResourceGroup) =>
    async (event: E, context: Context): Promise<R> =>
      ((await load(group)) as unknown as (e: E, c: Context) => Promise<R>)(event, context);

  // Once `after` settles and a second more has passed, loads the modules nobody has called yet, one at a time.
  const warm = (after: Promise<unknown>) => {
    const stopping = new AbortController();
    const warming = (async () => {
      await after;
      await delay(WARM_AFTER_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
      for (const group of resourceGroups) {
        if (stopping.signal.aborted) return;
        await load(group).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          console.error(JSON.stringify({ level: 'ERROR', source: 'local-stack', function: group, message: `the handler module failed to load: its requests answer 500 (${message})` }));
        });
      }
    })();
    return {
      stop: async () => {
        stopping.abort();
        await warming;
      },
    };
  };
  return { handlers, load, handlerOf, warm };
}
