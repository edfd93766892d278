import { AsyncLocalStorage } from 'node:async_hooks';
import type { ResourceGroup } from '../../../shared/edge/api/routes';

/**
 * Every function runs in this one process, so which function is running is carried by async context:
 * local IAM checks its calls against its role, and `process.env` is its own (`env/process-env.ts`).
 */
const invocation = new AsyncLocalStorage<ResourceGroup>();

/**
 * Lambda's per-invocation store (`globalThis.awslambda.InvokeStore`) as its runtime provides it to a
 * function that runs invocations at once (`AWS_LAMBDA_MAX_CONCURRENCY`: `concurrentInvocationsEnv`): Powertools keeps each invocation's logger context (the function's name, its request
 * id), log keys and metrics there. Without it the process's one logger carried the context of the
 * invocation that began last, so a long invocation's lines bore another function's name.
 */
const invokeStores = new AsyncLocalStorage<Record<symbol, unknown>>();
/** What runs outside any invocation (set-up, seeding, a module's loading) shares one store, as before any invocation in Lambda. */
const outsideInvocations: Record<symbol, unknown> = {};
const currentStore = () => invokeStores.getStore() ?? outsideInvocations;
const invokeStore = {
  getContext: () => currentStore(),
  hasContext: () => true,
  get: (key: symbol) => currentStore()[key],
  set: (key: symbol, value: unknown) => void (currentStore()[key] = value),
  run: <T>(context: Record<symbol, unknown>, fn: () => T): T => invokeStores.run(context, fn),
  getRequestId: () => '-',
  getXRayTraceId: () => undefined,
  getTenantId: () => undefined,
};
const lambdaGlobal = globalThis as { awslambda?: Record<string, unknown> };
lambdaGlobal.awslambda = { ...lambdaGlobal.awslambda, InvokeStore: invokeStore };

/**
 * What each function's environment adds on the local stack (`env/stack-environments.ts`): Lambda sets
 * it for a function that runs invocations at once, and Powertools then uses the store above. Never
 * in the tools' environment: a process without these stores must not ask for them.
 */
export const concurrentInvocationsEnv = { AWS_LAMBDA_MAX_CONCURRENCY: '64' } as const;

/** Runs one invocation of `group`'s handler, with a store of its own; AWS calls made from it are that function's. */
export function runAsFunction<T>(group: ResourceGroup, invoke: () => T): T {
  return invocation.run(group, () => invokeStores.run({}, invoke));
}

/** Runs `work` as no function (a handler module's loading, shared by every function that needs it), wherever it is called from. */
export function outsideAnyFunction<T>(work: () => T): T {
  return invocation.exit(work);
}

/** The function whose invocation is running, or undefined outside any (set-up, seeding, tools). */
export function currentFunction(): ResourceGroup | undefined {
  return invocation.getStore();
}
