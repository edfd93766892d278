import type { ItemKey } from './keys';
import { keyId } from './table';

/**
 * Items read in the caller's BatchGetItem, by key. Use cases look up the exact key they would read
 * and read it themselves when it was not asked for, so what a route prefetches only saves round
 * trips: it never decides what a use case sees.
 */
export class Prefetched {
  /** Nothing was read ahead (operator tools, benchmarks, tests calling use cases directly). */
  static readonly none = new Prefetched([], new Map());

  private readonly asked: Set<string>;

  constructor(
    asked: ItemKey[],
    private readonly found: Map<string, unknown>,
  ) {
    this.asked = new Set(asked.map(keyId));
  }

  /** Whether the batch asked for `key` (then `or` answers without a read). */
  has(key: ItemKey): boolean {
    return this.asked.has(keyId(key));
  }

  /** The item under `key` as the batch found it (undefined: it does not exist), or `read()`'s when the batch did not ask for it. */
  async or<T>(key: ItemKey, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const id = keyId(key);
    return this.asked.has(id) ? (this.found.get(id) as T | undefined) : read();
  }
}
