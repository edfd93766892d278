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
