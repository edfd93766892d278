/** Timed series: each operation's critical section is timed, its result checked outside the timing. */
import { performance } from 'node:perf_hooks';
import { percentile } from './stats';

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

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export async function timed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

export interface Schedule {
  /** Unmeasured operations per series first. */
  warmUp: number;
  /** Consecutive operations of one series before the next takes over. */
  block: number;
  samples: number;
  /** Untimed work before every operation (renewing a token). */
  between?: () => Promise<unknown>;
}

/**
 * Every series in rounds after its warm-up: a block per series, the starting series rotating every
 * round, so that load drift hits every series alike. Returns the milliseconds it took.
 */
export async function interleave(list: Series[], { warmUp, block, samples, between }: Schedule): Promise<number> {
  const started = performance.now();
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
  return performance.now() - started;
}

/** Percentiles of series looked up by key. */
export function figures(list: Series[]) {
  const get = (key: string) => {
    const found = list.find((s) => s.key === key);
    check(found, `No series ${key}`);
    return found;
  };
  const p = (key: string, p: number) => percentile(get(key).samples, p);
  return { get, p, p50: (key: string) => p(key, 50), p95: (key: string) => p(key, 95) };
}
export type Figures = ReturnType<typeof figures>;

/** `count` operations with `width` in flight, after `warmUp` unmeasured ones: rate per second and latencies. */
export async function throughput(operation: () => Promise<unknown>, width: number, count: number, warmUp: number) {
  const drive = async (total: number, samples: number[]) => {
    let next = 0;
    const lane = async () => {
      while (next++ < total) samples.push((await timed(operation))[0]);
    };
    await Promise.all(Array.from({ length: width }, lane));
  };
  await drive(warmUp, []);
  const samples: number[] = [];
  const [elapsed] = await timed(() => drive(count, samples));
  return { rate: count / (elapsed / 1000), p50: percentile(samples, 50), p95: percentile(samples, 95) };
}
