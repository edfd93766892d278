import type { ItemKey } from '../../adapters/store/keys';
import { Prefetched as StorePrefetched } from '../../adapters/store/prefetched';

export type { ItemKey };

/**
 * The items a route read ahead, in the caller's BatchGetItem (docs/architecture.md#request-path). The
 * repositories name what a route may read ahead (`agentReads`, `botPathReads`, …) and look their
 * items up in it; the tiers above only hand both on, so what a route prefetches only saves round
 * trips: it never decides what a use case sees. The store's `Prefetched` implements it.
 */
export interface Prefetched {
  /** Whether the batch asked for `key` (then `or` answers without a read). */
  has(key: ItemKey): boolean;
  /** The item under `key` as the batch found it (undefined: it does not exist), or `read()`'s when the batch did not ask for it. */
  or<T>(key: ItemKey, read: () => Promise<T | undefined>): Promise<T | undefined>;
}

/** Nothing was read ahead (operator tools, benchmarks, tests calling use cases directly). */
export const nothingPrefetched: Prefetched = StorePrefetched.none;
