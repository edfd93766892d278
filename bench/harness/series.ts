/**
 * Timed series (each operation's critical section timed, its result checked outside the timing) and
 * their figures. Percentiles are nearest-rank: with 10 samples p95 is the slowest.
 */
import { performance } from 'node:perf_hooks';

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

export const fmt = {
  /** Milliseconds: one decimal from 10 up, `below10` decimals under 10. */
  ms: (value: number, below10 = 2) => (Number.isFinite(value) ? value.toFixed(value >= 10 ? 1 : below10) : '–'),
  ratio: (value: number) => `${value.toFixed(2)}×`,
  share: (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`,
  int: (value: number) => Math.round(value).toLocaleString('en'),
  kib: (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`,
  mib: (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`,
  gib: (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`,
  s: (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`,
};

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export async function timed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

/** The median ms of `runs` calls of `work` after an untimed one (that one's own time when it took over `onceAboveMs`), and the last result. */
export function medianMs<T>(work: () => T, runs: number, onceAboveMs = Infinity): { ms: number; result: T } {
  let result!: T;
  const time = () => {
    const started = performance.now();
    result = work();
    return performance.now() - started;
  };
  const first = time();
  return { ms: first > onceAboveMs ? first : percentile(Array.from({ length: runs }, time), 50), result };
}

export interface Series<T = unknown> {
  key: string;
  label: string;
  /** Operation `i` (warm-ups first, then the measured ones). */
  run: (i: number) => Promise<T>;
  /** Checks a result, untimed; throws when it is wrong. */
  verify?: (result: T, i: number) => void;
  /** Untimed work before operation `i` (a write the operation must then see). */
  prepare?: (i: number) => Promise<unknown>;
  samples: number[];
}

export const series = <T>(key: string, label: string, run: Series<T>['run'], verify?: Series<T>['verify'], prepare?: Series<T>['prepare']): Series =>
  ({ key, label, run, verify, prepare, samples: [] }) as Series;

export interface Schedule {
  /** Unmeasured operations per series first. */
  warmUp: number;
  /** Consecutive operations of one series before the next takes over. */
  block: number;
  samples: number;
  /** Untimed work before every operation (renewing a token). */
  between?: () => Promise<unknown>;
}

/** Every series in rounds after its warm-up: a block per series, the starting series rotating every round, so that load drift hits every series alike. */
export async function interleave(list: Series[], { warmUp, block, samples, between }: Schedule): Promise<void> {
  const one = async (s: Series, i: number) => {
    await between?.();
    await s.prepare?.(i);
    const [elapsed, result] = await timed(() => s.run(i));
    s.verify?.(result, i);
    return elapsed;
  };
  for (const s of list) for (let i = 0; i < warmUp; i++) await one(s, i);
  for (let round = 0; round * block < samples; round++) {
    for (let k = 0; k < list.length; k++) {
      const s = list[(round + k) % list.length]!;
      for (let j = round * block; j < Math.min(samples, (round + 1) * block); j++) s.samples.push(await one(s, warmUp + j));
    }
  }
}

/** Percentiles of series looked up by key. */
export function figures(list: Series[]) {
  const get = (key: string) => {
    const found = list.find((s) => s.key === key);
    check(found, `No series ${key}: the report asks for a key no series of the benchmark declares`);
    return found;
  };
  const p = (key: string, p: number) => percentile(get(key).samples, p);
  return { get, p, p50: (key: string) => p(key, 50), p95: (key: string) => p(key, 95) };
}
export type Figures = ReturnType<typeof figures>;
