import { createRequire } from 'node:module';

/**
 * A value made on first use and kept for the process: what a module would otherwise make as it loads
 * (an SDK client, a collator) is paid for by the first request that needs it, not by every cold start.
 */
export function lazy<T>(create: () => T): () => T {
  let made = false;
  let instance: T;
  return () => {
    if (!made) {
      instance = create();
      made = true;
    }
    return instance;
  };
}

/**
 * A package the code loads on first use rather than as its module loads (the packages of
 * docs/decisions/lighter-functions.md): `load` is the call site's own `require('<name>')`, which is
 * how esbuild sees the package and leaves it external, run where the code runs as CommonJS (Lambda,
 * jest, the local stack); under tsx, an ES module without `require`, the package is required by name.
 * Call sites mark the call `@__PURE__` for esbuild, so a bundle whose code never uses the package carries no `require` of it.
 */
export function requireLazily<T>(name: string, load: () => unknown): () => T {
  return lazy(() => (typeof require === 'function' ? load() : createRequire(import.meta.url)(name)) as T);
}
