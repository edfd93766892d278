import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResourceGroup } from '../../../shared/edge/api/routes';

/**
 * Every function runs in this one process, so which function is running is carried by async context:
 * local IAM checks its calls against its role, and `process.env` is its own (`env/process-env.ts`).
 */
const invocation = new AsyncLocalStorage<ResourceGroup>();

/** Runs one invocation of `group`'s handler; AWS calls made from it are that function's. */
export function runAsFunction<T>(group: ResourceGroup, invoke: () => T): T {
  return invocation.run(group, invoke);
}

/** Runs `work` as no function (a handler module's loading, shared by every function that needs it), wherever it is called from. */
export function outsideAnyFunction<T>(work: () => T): T {
  return invocation.exit(work);
}

/** The function whose invocation is running, or undefined outside any (set-up, seeding, tools). */
export function currentFunction(): ResourceGroup | undefined {
  return invocation.getStore();
}
