import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResourceGroup } from '../../shared/api/routes';

/**
 * Every function runs in this one process on the local stack, so which function made an AWS call is
 * carried by async context: the gateway and the asynchronous invoker run each invocation inside
 * `runAsFunction`, and whatever checks a call as that function's role (local IAM) reads it back.
 */
const invocation = new AsyncLocalStorage<ResourceGroup>();

/** Runs one invocation of `group`'s handler; AWS calls made from it are that function's. */
export function runAsFunction<T>(group: ResourceGroup, invoke: () => T): T {
  return invocation.run(group, invoke);
}

/** The function whose invocation is running, or undefined outside any (set-up, seeding, tools). */
export function currentFunction(): ResourceGroup | undefined {
  return invocation.getStore();
}
