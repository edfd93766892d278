/** Timed series: each operation's critical section is timed, its result checked outside the timing. */
import { performance } from 'node:perf_hooks';
import { mean, percentile } from './stats';

export interface Series<T = unknown> {
  key: string;
  label: string;
  /** Operation `i`; `requestId` (`bench-<key>-<i>`) links an API request to the handler's log line. */
  run: (i: number, requestId: string) => Promise<T>;
  /** Checks a result, untimed; throws when it is wrong. */
  verify?: (result: T, i: number) => void;
  /** Untimed work before operation `i` (a write the operation must then see). */
  prepare?: (i: number) => Promise<unknown>;
  samples: number[];
  /** Index of the first measured operation (after the warm-up), set by `interleave`. */
  first?: number;
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
    const [elapsed, result] = await timed(() => s.run(i, `bench-${s.key}-${i}`));
    s.verify?.(result, i);
    return elapsed;
  };
  for (const s of list) {
    s.first = warmUp;
    for (let i = 0; i < warmUp; i++) await one(s, i);
  }
  for (let round = 0; round * block < samples; round++) {
    for (let k = 0; k < list.length; k++) {
      const s = list[(round + k) % list.length]!;
      for (let j = 0; j < block && round * block + j < samples; j++) s.samples.push(await one(s, warmUp + round * block + j));
    }
  }
  return performance.now() - started;
}

/** Looks series up by key: samples, percentiles, labels; and the handler's logged durations of an API series. */
export function figures(list: Series[], handlerMs?: Map<string, number>) {
  const get = (key: string) => {
    const found = list.find((s) => s.key === key);
    if (!found) throw new Error(`No series ${key}`);
    return found;
  };
  return {
    get,
    p: (key: string, p: number) => percentile(get(key).samples, p),
    p50: (key: string) => percentile(get(key).samples, 50),
    p95: (key: string) => percentile(get(key).samples, 95),
    /** `durationMs` of the measured requests of an API series, as the stack logged them. */
    handler: (key: string) => {
      const s = get(key);
      return s.samples.flatMap((_, j) => handlerMs?.get(`bench-${key}-${(s.first ?? 0) + j}`) ?? []);
    },
  };
}

export interface CpuFigure {
  label: string;
  p50: number;
  mean: number;
}

/** Work in this process, on data fetched before: median and mean of `runs` runs after 20 warm-ups. */
export async function cpu(label: string, work: () => unknown, runs: number): Promise<CpuFigure> {
  const samples: number[] = [];
  for (let i = 0; i < 20 + runs; i++) {
    const [elapsed] = await timed(work);
    if (i >= 20) samples.push(elapsed);
  }
  return { label, p50: percentile(samples, 50), mean: mean(samples) };
}

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
